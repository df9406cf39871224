// `chaind upgrade rehearse <name>` (issue 33; docs/UPGRADING.md "Rehearsing an upgrade") and its hidden second-run
// helper `upgrade rehearse-child`. Thin: src/node/rehearse does the work; rehearse-report.ts prints the report.
// A rehearsal whose checks fail prints its report on stdout and exits 1 with one line on stderr naming the failure.
import { type Command, InvalidArgumentError } from "commander";
import { CliError } from "../../client/cli/errors.ts";
import { currentBinaryName } from "../../config/home.ts";
import { parseRfc3339, type Timestamp } from "../../config/index.ts";
import { releaseForUpgrade } from "../../node/dry-run.ts";
import { secondRunMain } from "../../node/rehearse/determinism.ts";
import { rehearseUpgrade } from "../../node/rehearse/rehearse.ts";
import { currentChain } from "../../runtime/current-chain.ts";
import type { CliIo } from "../io.ts";
import { globalFlags } from "./cli-support.ts";
import { rehearsalJson, rehearsalText } from "./rehearse-report.ts";

/** Adds `rehearse` and the hidden `rehearse-child` to the node-side `upgrade` command. */
export function addRehearseCommands(upgrade: Command, io: CliIo): void {
  upgrade
    .command("rehearse")
    .description(
      "Rehearse upgrade <name> on a work copy of real state (--home at --height, or --snapshot): store loader, handler and migrations as at H+1, the chain's invariants and the upgrade's checks, a determinism check in a second process (other time zone, locale, wall clock, Math.random), and with --follow N the source's next blocks under the new rules; exit 0 when every check passed, 1 when one failed. The source is never written",
    )
    .argument("<name>", "the upgrade plan name, e.g. v2 (a release in this binary must perform it)")
    .option(
      "--height <h>",
      "the state height to start from (default: the latest; any height whose state is still kept)",
      positive,
    )
    .option(
      "--snapshot <file>",
      `a snapshot archive (\`${currentBinaryName()} snapshots dump\`) to rehearse on; --home gives the chain's genesis`,
    )
    .option("--follow <n>", "execute the source's blocks H+1 … H+n on the upgraded state (those it holds)", whole)
    .option(
      "--block-time <rfc3339>",
      "block H+1's time, e.g. 2026-11-29T09:40:00.5Z (default: the source's, else one second after block H); the app hash depends on it",
      blockTime,
    )
    .option(
      "--proposer <hex>",
      "block H+1's proposer address, 40 hex digits (default: the source's, else none)",
      proposer,
    )
    .option(
      "--block <file>",
      "block H+1 as CometBFT's RPC /block?height=H+1 returns it (JSON): its time, proposer, hash and txs (with the extended commit) run instead of a built empty block, to reproduce the network's app hash",
    )
    .option("--no-determinism", "skip the second, perturbed run")
    .action(
      async (
        name: string,
        flags: {
          height?: bigint;
          snapshot?: string;
          follow?: bigint;
          blockTime?: Timestamp;
          proposer?: Uint8Array;
          block?: string;
          determinism: boolean;
        },
        command: Command,
      ) => {
        const { home, output } = globalFlags(command);
        const report = await rehearseUpgrade({
          home,
          name,
          height: flags.height,
          snapshot: flags.snapshot,
          follow: flags.follow === undefined ? 0 : Number(flags.follow),
          blockTime: flags.blockTime,
          proposer: flags.proposer,
          blockFile: flags.block,
          determinism: flags.determinism,
        });
        io.stdout.write(output === "json" ? `${JSON.stringify(rehearsalJson(report))}\n` : rehearsalText(report));
        if (!report.passed) {
          const more = report.failures.length > 1 ? ` (and ${report.failures.length - 1} more, in the report)` : "";
          throw new CliError(`the rehearsal of upgrade "${name}" failed: ${report.failures[0]}${more}`);
        }
      },
    );
  upgrade
    .command("rehearse-child", { hidden: true })
    .description("The rehearsal's second run (internal): run the upgrade on a work home in a perturbed environment")
    .argument("<name>")
    .requiredOption("--block <file>")
    .requiredOption("--chain-id <id>")
    .requiredOption("--clock-offset <ms>")
    .requiredOption("--random-seed <n>")
    .action(
      async (
        name: string,
        flags: { block: string; chainId: string; clockOffset: string; randomSeed: string },
        command: Command,
      ) => {
        const { home } = globalFlags(command);
        const chain = currentChain();
        const line = await secondRunMain({
          home,
          name,
          blockFile: flags.block,
          chainId: flags.chainId,
          clockOffsetMs: Number(flags.clockOffset),
          randomSeed: Number(flags.randomSeed),
          chain,
          release: releaseForUpgrade(name, chain),
        });
        io.stdout.write(`${line}\n`);
      },
    );
}

function positive(text: string): bigint {
  if (!/^[0-9]+$/.test(text) || BigInt(text) < 1n) throw new InvalidArgumentError("expected a positive whole number");
  return BigInt(text);
}

function whole(text: string): bigint {
  if (!/^[0-9]+$/.test(text) || BigInt(text) > 100_000n) {
    throw new InvalidArgumentError("expected a whole number of blocks (0 to 100000)");
  }
  return BigInt(text);
}

function blockTime(text: string): Timestamp {
  const time = parseRfc3339(text);
  if (time === undefined) throw new InvalidArgumentError("expected an RFC 3339 time, e.g. 2026-11-29T09:40:00.5Z");
  return time;
}

function proposer(text: string): Uint8Array {
  if (!/^[0-9a-fA-F]{40}$/.test(text)) throw new InvalidArgumentError("expected an address of 40 hex digits");
  return Uint8Array.from(Buffer.from(text, "hex"));
}
