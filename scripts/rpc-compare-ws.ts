// The WebSocket half of rpc-compare.ts: the same subscriptions on both nodes' `/websocket` (the four block and tx
// events, plus the error cases: a bad query, a duplicate, unsubscribing what is not subscribed), a fresh tx driven
// through each, and the messages each answered, by name, for the shape diff.
import { isExtendedCommitTx } from "../src/app/extended-commit.ts";
import { waitUntil } from "./testnet/index.ts";

/** Where to connect, and how to put one fresh tx on that chain (resolves once it is broadcast). */
export interface WsTarget {
  rpcUrl: string;
  broadcastFreshTx: () => Promise<void>;
}

type Message = {
  id?: unknown;
  result?: { data?: { type?: string; value?: Record<string, unknown> } };
  error?: unknown;
};

const QUERIES = {
  NewBlock: "tm.event='NewBlock'",
  NewBlockHeader: "tm.event='NewBlockHeader'",
  NewBlockEvents: "tm.event='NewBlockEvents'",
  Tx: "tm.event='Tx'",
} as const;

/** The named messages one node sent: answers to each request and the first event of each kind (blocks with txs). */
export async function wsSession(target: WsTarget): Promise<Record<string, unknown>> {
  const ws = new WebSocket(`${target.rpcUrl.replace(/^http/, "ws")}/websocket`);
  const messages: Message[] = [];
  ws.addEventListener("message", (event) => messages.push(JSON.parse(String(event.data)) as Message));
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener("open", () => resolve(), { once: true });
    ws.addEventListener("error", () => reject(new Error(`WebSocket to ${target.rpcUrl} failed`)), { once: true });
  });
  const request = (id: number, method: string, params: unknown) =>
    ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
  const answer = (id: number) =>
    waitUntil(`the answer to WebSocket request ${id}`, async () => messages.find((m) => m.id === id), {
      timeoutMs: 20_000,
    });
  try {
    const out: Record<string, unknown> = {};
    const names = Object.keys(QUERIES) as (keyof typeof QUERIES)[];
    for (const [i, name] of names.entries()) {
      request(i + 1, "subscribe", { query: QUERIES[name] });
      out[`subscribe ${name}`] = await answer(i + 1);
    }
    request(20, "subscribe", { query: "tm.event=" });
    out["subscribe bad query"] = await answer(20);
    request(21, "subscribe", { query: QUERIES.Tx });
    out["subscribe twice"] = await answer(21);
    request(22, "unsubscribe", { query: "tm.event='Nothing'" });
    out["unsubscribe unknown"] = await answer(22);
    request(23, "subscribe", {});
    out["subscribe no query"] = await answer(23);
    request(24, "health", {});
    out["health over WebSocket"] = await answer(24);

    await target.broadcastFreshTx();
    const withTxs = (m: Message, id: number, test: (value: Record<string, unknown>) => boolean) =>
      m.id === id && m.result?.data?.value !== undefined && test(m.result.data.value);
    const blockHasTxs = (v: Record<string, unknown>) =>
      ((v.block as { data: { txs: unknown[] } }).data.txs ?? []).length > 0;
    out["event NewBlock"] = await waitUntil("a NewBlock event with txs", async () =>
      messages.find((m) => withTxs(m, 1, blockHasTxs)),
    );
    out["event NewBlockHeader"] = await waitUntil("a NewBlockHeader event", async () =>
      messages.find((m) => withTxs(m, 2, () => true)),
    );
    out["event NewBlockEvents"] = await waitUntil("a NewBlockEvents event with txs", async () =>
      messages.find((m) => withTxs(m, 3, (v) => v.num_txs !== "0")),
    );
    // The first Tx event of a user's tx: CometBFT also sends one for each block's extended-commit tx, which the
    // embedded engine does not (docs/COMPATIBILITY.md row 22).
    const userTx = (v: Record<string, unknown>) =>
      !isExtendedCommitTxBase64((v.TxResult as { tx?: string } | undefined)?.tx);
    out["event Tx"] = await waitUntil("a Tx event", async () => messages.find((m) => withTxs(m, 4, userTx)));

    request(30, "unsubscribe", { query: QUERIES.Tx });
    out.unsubscribe = await answer(30);
    request(31, "unsubscribe_all", {});
    out.unsubscribe_all = await answer(31);
    request(32, "unsubscribe_all", {});
    out["unsubscribe_all again"] = await answer(32);
    return out;
  } finally {
    ws.close();
  }
}

/** The first ValidatorSetUpdates event after `change` (a tx that changes a validator's power) is broadcast. */
export async function validatorSetUpdate(rpcUrl: string, change: () => Promise<void>): Promise<unknown> {
  const ws = new WebSocket(`${rpcUrl.replace(/^http/, "ws")}/websocket`);
  const messages: Message[] = [];
  ws.addEventListener("message", (event) => messages.push(JSON.parse(String(event.data)) as Message));
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener("open", () => resolve(), { once: true });
    ws.addEventListener("error", () => reject(new Error(`WebSocket to ${rpcUrl} failed`)), { once: true });
  });
  try {
    ws.send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "subscribe",
        params: { query: "tm.event='ValidatorSetUpdates'" },
      }),
    );
    await waitUntil("the ValidatorSetUpdates subscription", async () => messages.find((m) => m.id === 1));
    await change();
    return await waitUntil("a ValidatorSetUpdates event", async () =>
      messages.find((m) => m.id === 1 && m.result?.data !== undefined),
    );
  } finally {
    ws.close();
  }
}

/** Whether a base64 tx (as the RPC's JSON gives it) is a block's extended-commit tx. */
export function isExtendedCommitTxBase64(tx: string | undefined): boolean {
  return tx !== undefined && isExtendedCommitTx(new Uint8Array(Buffer.from(tx, "base64")));
}
