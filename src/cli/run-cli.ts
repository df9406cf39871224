// The CLI runner a chain's entry point hands its chain to (chain/cmd/chaind.ts for the reference chain, like
// simapp's simd main.go). It makes `chain` the one this process serves, then runs the lazily loaded command
// tree (src/cli/main.ts); what an error prints is decided in src/cli/report-error.ts alone.
//
// `status` is answered before the command tree is loaded (src/cli/commands/status-command.ts says why), and so
// is a plain `version` (src/cli/commands/version-early.ts). `start` and `dev` relaunch themselves once, before
// anything loads, with the malloc settings of a long-running node (src/cli/node-relaunch.ts).
// A lazy chain (src/runtime/lazy-chain.ts) is loaded only for the commands that use its definition: `version`
// reads the manifest, `keys` serves every chain alike, and `query` reads the module CLIs from the manifest
// (ChainManifest.moduleClis: light refs, each loading its module's CLI and types only when used; src/app/module-cli.ts),
// so their start-up skips every module of the chain.
import { isUserFacing } from "../errors/user-error.ts";
import { currentChainManifest, loadCurrentChain, useChain } from "../runtime/current-chain.ts";
import type { LazyChain } from "../runtime/lazy-chain.ts";
import type { ChainDefinition } from "../runtime/release.ts";
import { commandWord } from "./early-dispatch.ts";
import { armExitBackstop } from "./exit-backstop.ts";
import { relaunchForNode } from "./node-relaunch.ts";
import { reportError } from "./report-error.ts";

/** Commands that never read the chain's definition (only, at most, its manifest). */
const CHAIN_FREE_COMMANDS: ReadonlySet<string> = new Set(["version", "keys", "query", "q", "release"]);

/**
 * Runs the `chaind` command tree for `chain` on `argv` (process.argv shape) and sets `process.exitCode`.
 * `chain` is a definition, or a manifest with a loader of the definition (`lazyChain`) so that light
 * commands start fast.
 *
 * @example
 * // my-chain/cmd/mychaind.ts
 * import { runCli } from "chaind/cli";
 * import { myChain } from "../app.ts";
 * await runCli(myChain);
 */
export async function runCli(chain: ChainDefinition | LazyChain, argv: string[] = process.argv): Promise<void> {
  // The process's own command line: this run is the process's whole job (never for a caller's argv, e.g. a test's).
  const ownProcess = argv === process.argv;
  // `start` and `dev` first replace this process with one that has the node's malloc settings
  // (src/cli/node-relaunch.ts).
  if (ownProcess) await relaunchForNode(commandWord(argv.slice(2)));
  let failed = true;
  try {
    await runCommand(chain, argv);
    failed = Number(process.exitCode ?? 0) !== 0;
  } catch (err) {
    // Making the chain the process's (its identity) and loading a lazy chain's definition happen before the command
    // tree, whose own errors it reports itself: a chain developer's mistake found here (a bad identity, a manifest
    // that disagrees with the definition) is one line too. Anything else is a bug and keeps its stack.
    if (!isUserFacing(err)) throw err;
    process.exitCode = reportError(err, process.stderr);
  } finally {
    // A failed command has closed everything it opened: its process ends now, or within the backstop's grace
    // period naming what a bug left open (src/cli/exit-backstop.ts). Only a failure: a chain's own command may
    // return from its action with a server of its own still listening, and that process must live on.
    if (ownProcess && failed) armExitBackstop();
  }
}

async function runCommand(chain: ChainDefinition | LazyChain, argv: string[]): Promise<void> {
  const word = commandWord(argv.slice(2));
  // The chain names the binary, and so its default home (~/.<name>), which `status` asks the node of.
  useChain(chain);
  if (word === "status") {
    const { runStatusCommand } = await import("./commands/status-command.ts");
    process.exitCode = await runStatusCommand(argv.slice(2));
    return;
  }
  if (word === "version") {
    const { tryPlainVersion } = await import("./commands/version-early.ts");
    if (tryPlainVersion(argv.slice(2), currentChainManifest(), process.stdout)) return;
  }
  if (word === undefined || !CHAIN_FREE_COMMANDS.has(word)) await loadCurrentChain();
  // The parser and command tree load only now, after the early answers (status, a plain version).
  const { runChaind } = await import("./main.ts");
  process.exitCode = await runChaind(argv.slice(2));
}
