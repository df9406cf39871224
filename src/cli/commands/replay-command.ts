// `chaind replay --from <source home> --home <new home>`: rebuild a home from genesis by replaying another home's
// blocks with this binary's release line (the chain's release and its predecessors, src/replay/chain-line.ts) for
// whichever chain the CLI serves, checking every app hash (src/replay/replay-home.ts does the work). Prints
// a progress bar on a TTY (stderr), then the report: heights, heights/s and the time per release segment; `-o json`
// prints it as JSON. A mismatch exits 1 with one line naming the height, the expected and the computed hash.
import { Command } from "commander";
import { CliError } from "../../client/cli/errors.ts";
import { homePaths } from "../../config/home.ts";
import { formatDecCoins, loadAppConfig, resolveHome } from "../../config/index.ts";
import { loadEngineGenesis } from "../../engine/genesis.ts";
import { openChainSwitchingApp } from "../../replay/chain-line.ts";
import { createProgressPrinter, heightsPerSecond } from "../../replay/progress.ts";
import { type ReplayReport, replayHome } from "../../replay/replay-home.ts";
import { currentChain } from "../../runtime/current-chain.ts";
import { closeVerifyPool } from "../../x/auth/verify-pool.ts";
import type { CliIo } from "../io.ts";
import { globalFlags } from "./cli-support.ts";
import { nodeLogger } from "./node-logger.ts";

/** `replay`. */
export function replayCommand(io: CliIo): Command {
  return new Command("replay")
    .description(
      "Build a new home (--home, absent or empty) by replaying every block of another home (--from) from genesis with this binary's releases, switching releases in process at each upgrade, and check each height's app hash against the source; the source is only read",
    )
    .requiredOption("--from <home>", "the home whose blocks to replay (an embedded-engine node's home; not modified)")
    .action(async (flags: { from: string }, command: Command) => {
      const { home, output } = globalFlags(command);
      const sourceHome = resolveHome(flags.from);
      if (sourceHome === home) throw new CliError("--from and --home name the same directory: replay needs a new home");
      // The new home runs on a copy of the source's config/ (replay-home.ts), so the source's config.toml counts.
      const logger = nodeLogger(command, sourceHome);
      const progress = await createProgressPrinter(process.stderr);
      let report: ReplayReport;
      try {
        report = await replayHome({
          sourceHome,
          home,
          openApp: async (target, store) => {
            const appConfig = await loadAppConfig(target);
            const genesis = await loadEngineGenesis(homePaths(target).genesis);
            return openChainSwitchingApp({
              chain: currentChain(),
              home: target,
              chainId: genesis.chainId,
              logger,
              minimumGasPrices: formatDecCoins(appConfig.minimumGasPrices),
              pruning: appConfig.pruning,
              minRetainBlocks: appConfig.minRetainBlocks,
              syncCommits: store.syncCommits,
            });
          },
          onProgress: (p) => progress.update(p),
        });
      } finally {
        progress.stop();
        await closeVerifyPool();
      }
      io.stdout.write(output === "json" ? `${JSON.stringify(reportJson(report))}\n` : reportText(report));
    });
}

const round = (value: number) => Math.round(value * 10) / 10;

/** The report as JSON (heights as strings, snake_case). */
export function reportJson(report: ReplayReport): Record<string, unknown> {
  return {
    from_height: report.fromHeight.toString(),
    to_height: report.toHeight.toString(),
    blocks: report.blocks,
    duration_ms: round(report.ms),
    heights_per_second: round(heightsPerSecond(report.blocks, report.ms)),
    app_hash: report.appHash,
    segments: report.segments.map((s) => ({
      release: s.release,
      entered_by: s.enteredBy ?? null,
      from_height: s.fromHeight.toString(),
      to_height: s.toHeight.toString(),
      blocks: s.blocks,
      duration_ms: round(s.ms),
      heights_per_second: round(heightsPerSecond(s.blocks, s.ms)),
    })),
  };
}

/** The report as text for people. */
export function reportText(report: ReplayReport): string {
  const lines = [
    `replayed heights ${report.fromHeight}..${report.toHeight} (${report.blocks} blocks) in ${(report.ms / 1000).toFixed(2)} s: ${heightsPerSecond(report.blocks, report.ms).toFixed(1)} heights/s`,
    `every app hash matches the source; app hash at ${report.toHeight}: ${report.appHash}`,
    "release segments:",
    ...report.segments.map(
      (s) =>
        `  ${s.release.padEnd(6)} heights ${s.fromHeight}..${s.toHeight} (${s.blocks} blocks${s.enteredBy === undefined ? "" : `, entered by upgrade "${s.enteredBy}"`}) in ${(s.ms / 1000).toFixed(2)} s: ${heightsPerSecond(s.blocks, s.ms).toFixed(1)} heights/s`,
    ),
  ];
  return `${lines.join("\n")}\n`;
}
