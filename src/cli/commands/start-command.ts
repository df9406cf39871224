// `chaind start`: run the node in the foreground until a signal, a halt or a fault, and exit with the
// node's status (0 on SIGINT/SIGTERM and on app.toml's halt-height/halt-time; the upgrade halt's own
// status, see `chaind start --help`; 1 on errors). Thin: flags → src/node/start-node.ts.

import { Command, Option } from "commander";
import type { Logger } from "pino";
import { CliError } from "../../client/cli/errors.ts";
import { governHeap } from "../../node/heap-governor.ts";
import { mallocTrimProblem } from "../../node/malloc-trim.ts";
import { checkOverrides, type NodeOverrides } from "../../node/node-settings.ts";
import { type NodeEndpoints, type RunningNode, startNode } from "../../node/start-node.ts";
import { currentChainIdentity } from "../../runtime/current-chain.ts";
import { UPGRADE_EXIT_CODES } from "../../x/upgrade/errors.ts";
import { parseSkipUpgradeHeights } from "../../x/upgrade/keeper.ts";
import { armExitBackstop } from "../exit-backstop.ts";
import type { CliIo } from "../io.ts";
import { globalFlags } from "./cli-support.ts";
import { nodeLogger } from "./node-logger.ts";

/** Flags shared by `start` and `dev`. */
export interface NodeFlags {
  "rpc.laddr"?: string;
  "api.address"?: string;
  "grpc.address"?: string;
  minimumGasPrices?: string;
  haltHeight?: string;
  haltTime?: string;
  /** Every `--unsafe-skip-upgrades` value given, in order (the flag may be repeated). */
  unsafeSkipUpgrades?: string[];
}

const EXIT_STATUS_HELP = `
Exit status:
  0   stopped by SIGINT/SIGTERM (after finishing the block in progress), or app.toml's halt-height/halt-time reached
  1   an error (bad configuration, a port in use, a fault)
  ${UPGRADE_EXIT_CODES.needed}  halted for an upgrade this binary has no handler for; data/upgrade-info.json names it
      (chainvisor switches to the new release and restarts)
  ${UPGRADE_EXIT_CODES.wrongBinary}  this binary does not fit the chain (an upgrade binary started before its height, or a downgrade)
  ${UPGRADE_EXIT_CODES.upgradeFailed}  this binary's upgrade handler or a migration failed at the upgrade height
`;

/** Adds the listener/config override flags to a command. */
export function addNodeFlags(command: Command): Command {
  return command
    .option("--rpc.laddr <address>", "consensus RPC listen address (config.toml rpc.laddr), e.g. tcp://127.0.0.1:26657")
    .option("--api.address <address>", "REST gateway address (app.toml api.address), e.g. tcp://localhost:1317")
    .option("--grpc.address <address>", "gRPC server address (app.toml grpc.address), e.g. localhost:9090")
    .option(
      "--minimum-gas-prices <prices>",
      `minimum gas prices a tx must pay (app.toml), e.g. "0.025${currentChainIdentity().denom}"`,
    )
    .option("--halt-height <height>", "stop after committing this height (app.toml halt-height; 0 = off)")
    .option(
      "--halt-time <unix-seconds>",
      "stop after the first block at or past this time (app.toml halt-time; 0 = off)",
    )
    .option(
      "--unsafe-skip-upgrades <heights>",
      "comma-separated heights (positive integers) whose upgrade plans are skipped instead of halting; may be repeated",
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    );
}

/** The overrides and skip heights the node flags give. */
export function nodeOptionsOf(flags: NodeFlags): { overrides: NodeOverrides; skipUpgradeHeights: bigint[] } {
  // Before anything starts: a malformed value is a one-line error naming the flag and the bad item.
  // `dev` creates a whole home (keys, genesis) before starting, so the flags are checked here, not at the start.
  const skipUpgradeHeights = parseSkipUpgradeHeights(flags.unsafeSkipUpgrades ?? []);
  const overrides: NodeOverrides = {
    rpcLaddr: flags["rpc.laddr"],
    apiAddress: flags["api.address"],
    grpcAddress: flags["grpc.address"],
    minimumGasPrices: flags.minimumGasPrices,
    haltHeight: flags.haltHeight,
    haltTime: flags.haltTime,
  };
  checkOverrides(overrides);
  return { overrides, skipUpgradeHeights };
}

/** The endpoint lines of the start banner. */
export function endpointLines(endpoints: NodeEndpoints): string[] {
  const rows: [string, string | undefined][] = [
    ["consensus RPC", endpoints.rpc],
    ["ABCI (CometBFT)", endpoints.abci],
    ["REST", endpoints.rest],
    ["gRPC", endpoints.grpc],
    ["Swagger", endpoints.swagger],
    ["metrics", endpoints.metrics],
    ["app metrics", endpoints.appMetrics],
    ["Upgrade page", endpoints.upgradePage],
  ];
  return rows
    .filter((row): row is [string, string] => row[1] !== undefined)
    .map(([name, url]) => `  ${name.padEnd(16)}${url}`);
}

/**
 * Waits for the node to stop, stopping it gracefully on SIGINT/SIGTERM (a second signal kills the
 * process the default way), and turns a non-zero exit into a CliError carrying that status.
 * `announce` (the banner) runs once the signal handlers are in place: whoever reads the banner may signal at
 * once (a supervisor, a test), and a signal before the handlers would kill the node the default way.
 * `logger` hears (at debug level) why the heap governor has no malloc_trim, when it has none.
 */
export async function runUntilStopped(node: RunningNode, announce?: () => void, logger?: Logger): Promise<void> {
  // The handler stays installed until the node is down: a supervisor that signals the whole
  // process group (Ctrl-C, systemd, chainvisor forwarding) sends the same signal twice, and the
  // second must not kill a node that is closing its stores.
  let stopping = false;
  const onSignal = () => {
    if (stopping) return;
    stopping = true;
    void node.stop();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  announce?.();
  // This process runs the node for its whole life: keep its V8 heap near what the node needs
  // (src/node/heap-governor.ts). CHAIND_HEAP_GOVERNOR=off leaves V8 to itself (for comparisons).
  const governor = process.env.CHAIND_HEAP_GOVERNOR === "off" ? undefined : governHeap();
  // After its reductions the governor gives glibc's free memory back when the addon loads (built by `npm run
  // build`); without it the node runs the same, holding that memory (src/node/malloc-trim.ts).
  const trimProblem = governor === undefined ? undefined : mallocTrimProblem();
  if (trimProblem !== undefined) logger?.debug({ reason: trimProblem }, "no malloc_trim after heap reductions");
  let exit: Awaited<RunningNode["done"]>;
  try {
    exit = await node.done;
  } finally {
    governor?.stop();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    // Everything is closed by now; should a stray handle still hold the event loop, do not hang a supervisor
    // (src/cli/exit-backstop.ts; runCli arms it too once the command is over, whatever way it ended).
    armExitBackstop();
  }
  if (exit.exitCode !== 0) {
    throw new CliError(exit.error?.message ?? `the node stopped (${exit.reason})`, {
      cause: exit.error,
      exitCode: exit.exitCode,
    });
  }
}

/** The banner's first line; in replay mode it names the binary's release and the one whose rules run now. */
function startBanner(node: RunningNode, home: string): string {
  const chainId = node.settings.genesis.chainId;
  const name = node.chain.chain.name;
  const running = node.chain.release;
  const binary = node.replay?.binaryRelease;
  if (binary === undefined)
    return `${name} ${running.version} (release ${running.name}) running chain "${chainId}" from ${home}`;
  return `${name} ${binary.version} (release ${binary.name}, in-place upgrades: rules of release ${running.name}, active on chain) running chain "${chainId}" from ${home}`;
}

/** `start`. */
export function startCommand(io: CliIo): Command {
  const command = new Command("start")
    .description(
      "Run the node: the embedded single-validator engine (default) or, with --abci, the ABCI server for CometBFT; plus the gRPC server and REST gateway",
    )
    .addOption(new Option("--abci", "serve the app to CometBFT over ABCI at config.toml's proxy_app"))
    .addOption(
      new Option(
        "--in-place-upgrades",
        "in-place upgrades (app.toml in-place-upgrades): run the rules of the release active on chain and apply the upgrades this binary's releases know in process, without halting; start the next release ahead of an upgrade's height with it (docs/UPGRADING.md)",
      ),
    )
    .addOption(new Option("--replay-releases", "the older name of --in-place-upgrades (same meaning)"))
    .addHelpText("after", EXIT_STATUS_HELP);
  addNodeFlags(command).action(
    async (
      flags: NodeFlags & { abci?: boolean; inPlaceUpgrades?: boolean; replayReleases?: boolean },
      cmd: Command,
    ) => {
      const { home } = globalFlags(cmd);
      const logger = nodeLogger(cmd, home);
      const { overrides, skipUpgradeHeights } = nodeOptionsOf(flags);
      const node = await startNode({
        home,
        logger,
        abci: flags.abci,
        overrides,
        skipUpgradeHeights,
        // Either flag turns the mode on; without one, app.toml decides.
        inPlaceUpgrades: flags.inPlaceUpgrades || flags.replayReleases ? true : undefined,
      });
      await runUntilStopped(
        node,
        () => io.stdout.write([startBanner(node, home), ...endpointLines(node.endpoints), ""].join("\n")),
        logger,
      );
    },
  );
  return command;
}
