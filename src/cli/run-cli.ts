// The CLI runner a chain's entry point hands its chain to (chain/cmd/chaind.ts for the reference chain, like
// simapp's simd main.go). It makes `chain` the one this process serves, then runs the lazily loaded command
// tree (src/cli/main.ts); what an error prints is decided in src/cli/report-error.ts alone.
//
// `status` is answered before the command tree is loaded (src/cli/commands/status-command.ts says why).
import { useChain } from "../runtime/current-chain.ts";
import type { ChainDefinition } from "../runtime/release.ts";
import { commandWord } from "./early-dispatch.ts";
import { runChaind } from "./main.ts";

/**
 * Runs the `chaind` command tree for `chain` on `argv` (process.argv shape) and sets `process.exitCode`.
 *
 * @example
 * // my-chain/cmd/mychaind.ts
 * import { runCli } from "chaind/cli";
 * import { myChain } from "../app.ts";
 * await runCli(myChain);
 */
export async function runCli(chain: ChainDefinition, argv: string[] = process.argv): Promise<void> {
  if (commandWord(argv.slice(2)) === "status") {
    const { runStatusCommand } = await import("./commands/status-command.ts");
    process.exitCode = await runStatusCommand(argv.slice(2));
    return;
  }
  useChain(chain);
  process.exitCode = await runChaind(argv.slice(2));
}
