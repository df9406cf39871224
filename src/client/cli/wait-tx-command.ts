// `chaind query wait-tx [hash] [--timeout 15s]` (upstream v0.50.6+): waits until a tx is in a block and prints its
// TxResponse as `query tx` does. The hash comes from the argument or, as upstream reads it, from a tx command's
// output piped in (`chaind tx … | chaind query wait-tx`), JSON or YAML, through its `txhash`.
import { Command } from "commander";
import { DURATION_EXPECTED, parseDurationMs } from "../../config/duration.ts";
import { TxResponseSchema } from "../../gen/chain/base/abci/v1beta1/abci_pb.js";
import { CliError } from "./errors.ts";
import { addQueryFlags } from "./flags.ts";
import type { ClientSession } from "./session.ts";
import { readAll } from "./tx-commands.ts";
import { waitForTx } from "./tx-sender.ts";

const DEFAULT_TIMEOUT = "15s";

export function queryWaitTxCommand(session: ClientSession): Command {
  return addQueryFlags(
    new Command("wait-tx")
      .description("Wait for a tx (by hash, or a tx command's output piped in) to be included in a block and print it")
      .argument("[hash]", "the tx hash (hex); read from a tx command's output on standard input when absent")
      .option("--timeout <duration>", "the longest time to wait for the tx to be included", DEFAULT_TIMEOUT),
  ).action(async (hashArg: string | undefined, options: { timeout: string }, command: Command) => {
    const ctx = session.open(command.optsWithGlobals());
    const timeoutMs = parseDurationMs(options.timeout);
    if (timeoutMs === undefined || timeoutMs <= 0) {
      throw new CliError(`invalid --timeout "${options.timeout}": expected ${DURATION_EXPECTED}`);
    }
    const hash =
      hashArg === undefined ? hashFromTxOutput(await readAll(ctx.io.stdin ?? process.stdin)) : checkedHash(hashArg);
    // Upstream's words when the wait runs out (its ErrLogic text).
    const timedOut = `timed out waiting for transaction ${hash} to be included in a block`;
    ctx.printMessage(TxResponseSchema, await waitForTx(ctx, hash, timeoutMs, timedOut));
  });
}

/** The upper-case hex hash of a tx hash argument (64 hex digits, either case). */
function checkedHash(text: string): string {
  if (!/^[0-9a-fA-F]{64}$/.test(text)) {
    throw new CliError(`invalid tx hash "${text}": expected 64 hexadecimal digits`);
  }
  return text.toUpperCase();
}

/** The `txhash` of a tx command's output: its JSON, else a YAML `txhash:` line (upstream reads both). */
export function hashFromTxOutput(text: string): string {
  let fromJson: unknown;
  try {
    fromJson = (JSON.parse(text) as { txhash?: unknown }).txhash;
  } catch {
    // Not JSON: the YAML of text output.
  }
  if (typeof fromJson === "string" && fromJson !== "") return checkedHash(fromJson);
  const line = text.split("\n").find((l) => l.startsWith("txhash:"));
  if (line !== undefined)
    return checkedHash(
      line
        .slice("txhash:".length)
        .trim()
        .replace(/^"(.*)"$/, "$1"),
    );
  throw new CliError(
    "no tx hash given: pass it as an argument, or pipe a tx command's output (with its txhash) to standard input",
  );
}
