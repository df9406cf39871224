// Asking a testnet's processes and waiting on them: CometBFT RPC results and heights, an ABCI Echo, a log's tail,
// and the one polling loop (`waitUntil`) that gives up when a watched process exits or the time is up.
import { readFileSync } from "node:fs";
import { type NodeProcess, type Testnet, TestnetError, type TestnetNode } from "./types.ts";

/** The last `bytes` of a log file, for error messages. */
export function logTail(file: string, bytes = 3000): string {
  try {
    const text = readFileSync(file, "utf8");
    return text.slice(-bytes);
  } catch {
    return "(no log)";
  }
}

async function sleep(ms: number): Promise<void> {
  await new Promise((done) => setTimeout(done, ms));
}

/** Polls `probe` until it gives a value, the process `watched` exits, or `timeoutMs` passes. */
export async function waitUntil<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  options: { timeoutMs?: number; watched?: NodeProcess[] } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    const dead = options.watched?.find((p) => p.hasExited());
    if (dead !== undefined) {
      throw new TestnetError(
        `${dead.kind} (pid ${dead.pid}) exited while waiting for ${what}:\n${logTail(dead.logFile)}`,
      );
    }
    if (Date.now() > deadline) throw new TestnetError(`timed out waiting for ${what}`, { cause: lastError });
    await sleep(200);
  }
}

/** Whether an ABCI server answers Echo on 127.0.0.1:`port` (resolves true, or throws). */
export async function abciAnswers(port: number): Promise<true | undefined> {
  // Loaded on first use: the generated ABCI types are large, and the command line's error paths never need them.
  const { AbciClient } = await import("../../src/abci/client.ts");
  const client = await AbciClient.connect(`tcp://127.0.0.1:${port}`);
  try {
    await client.call("echo", { message: "testnet" });
    return true;
  } finally {
    await client.close();
  }
}

/** GETs a CometBFT RPC endpoint of `node` and returns its `result` (a JSON-RPC error is thrown). */
export async function rpcResult(node: TestnetNode, pathAndQuery: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${node.rpcUrl}${pathAndQuery}`, { signal: AbortSignal.timeout(5_000) });
  const body = (await response.json()) as { result?: Record<string, unknown>; error?: unknown };
  if (body.error !== undefined || body.result === undefined) {
    throw new TestnetError(`${node.moniker} RPC ${pathAndQuery} failed: ${JSON.stringify(body.error)}`);
  }
  return body.result;
}

/** The latest height `node`'s CometBFT reports. */
export async function latestHeight(node: TestnetNode): Promise<number> {
  const status = await rpcResult(node, "/status");
  return Number((status.sync_info as { latest_block_height: string }).latest_block_height);
}

/**
 * The height of the last block `node`'s CometBFT has stored, from `/blockchain`, which reads only the block store.
 * `/status` also reads the validator set under the consensus lock, so it hangs while consensus waits on a stopped app
 * (the moment a test that kills the app mid-block needs to see).
 */
export async function storedHeight(node: TestnetNode): Promise<number> {
  const info = await rpcResult(node, "/blockchain");
  return Number(info.last_height);
}

/** Waits until each of `nodes` (default: all) reports at least `height`. */
export async function waitForHeight(
  net: Testnet,
  height: number,
  options: { nodes?: TestnetNode[]; timeoutMs?: number } = {},
): Promise<void> {
  const nodes = options.nodes ?? net.nodes;
  await waitUntil(
    `height ${height} on ${nodes.map((n) => n.moniker).join(", ")}`,
    async () => {
      const heights = await Promise.all(nodes.map((n) => latestHeight(n)));
      return heights.every((h) => h >= height) ? true : undefined;
    },
    {
      timeoutMs: options.timeoutMs ?? 60_000,
      watched: nodes.flatMap((n) => [n.chaind, n.cometbft].filter((p): p is NodeProcess => p !== undefined)),
    },
  );
}
