// Helpers for the metrics tests: scrape an endpoint over real HTTP, read one sample out of Prometheus' text
// format, and make a bank send on a dev chain started in process. Not used by the node.
import { create } from "@bufbuild/protobuf";
import { openKeyring } from "../../../src/client/keyring/index.ts";
import { packAny, signTx } from "../../../src/client/tx/index.ts";
import { addressFromBech32 } from "../../../src/crypto/index.ts";
import { MsgSendSchema } from "../../../src/gen/chain/bank/v1beta1/tx_pb.js";
import type { DevHome } from "../../../src/node/dev-chain.ts";
import type { RunningNode } from "../../../src/node/start-node.ts";

/** GET `url`, the body as text; throws on a status other than 200. */
export async function scrape(url: string): Promise<string> {
  const response = await fetch(url);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${url}: ${response.status} ${text}`);
  return text;
}

/**
 * The value of the sample `name` whose labels include `labels` (undefined when there is none).
 *
 * @example sample(text, "cometbft_consensus_height", { chain_id: "dev-1" }) // 12
 */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)/.exec(line);
    if (match === null || match[1] !== name) continue;
    const found = new Map<string, string>();
    for (const pair of (match[3] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      found.set(pair[1] as string, pair[2] as string);
    }
    if (Object.entries(labels).every(([k, v]) => found.get(k) === v)) return Number(match[4]);
  }
  return undefined;
}

/** alice sends `amount` stake to bob through the node's broadcast (sync); returns the tx hash. */
export async function sendFromAlice(node: RunningNode, dev: DevHome, amount: bigint): Promise<string> {
  const alice = dev.keys.find((k) => k.name === "alice");
  const bob = dev.keys.find((k) => k.name === "bob");
  if (alice === undefined || bob === undefined) throw new Error("the dev home has no alice or bob");
  const app = node.chain.app;
  const account = await node.chain.accountKeeper.getAccount(
    await app.createQueryContext(),
    addressFromBech32(alice.address),
  );
  if (account === undefined) throw new Error("alice has no account yet");
  const signed = await signTx({
    messages: [
      packAny(
        MsgSendSchema,
        create(MsgSendSchema, {
          fromAddress: alice.address,
          toAddress: bob.address,
          amount: [{ denom: "stake", amount: amount.toString() }],
        }),
      ),
    ],
    fee: { amount: [], gasLimit: 200_000n },
    chainId: dev.chainId,
    accountNumber: account.accountNumber,
    sequence: account.sequence,
    signer: await openKeyring({ home: dev.home, backend: "test" }).signer("alice"),
  });
  const rpc = node.endpoints.rpc;
  if (rpc === undefined) throw new Error("the node has no consensus RPC");
  const response = await fetch(rpc, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "broadcast_tx_sync",
      params: { tx: Buffer.from(signed.txBytes).toString("base64") },
    }),
  });
  const body = (await response.json()) as { result?: { code: number; log: string; hash: string } };
  if (body.result?.code !== 0) throw new Error(`the send was refused: ${JSON.stringify(body)}`);
  return body.result.hash;
}

/**
 * Resolves once the tx `hash` is in a committed block (the consensus RPC's `/tx` finds it). Tests wait for this,
 * not for a tx counter to move: since readiness, every block from the second carries the proposer's extended commit
 * as a tx of its own, so counters of block txs rise without the test's send.
 */
export async function waitForCommitted(node: RunningNode, hash: string, timeoutMs = 120_000): Promise<void> {
  const rpc = node.endpoints.rpc;
  if (rpc === undefined) throw new Error("the node has no consensus RPC");
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await fetch(`${rpc}/tx?hash=0x${hash}`);
    const body = (await response.json()) as { result?: { height?: string } };
    if (body.result?.height !== undefined) return;
    if (Date.now() > deadline) throw new Error(`tx ${hash} was not committed within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
