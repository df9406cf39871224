// The memory bench's load, its own process: for `seconds`, REST queries (balances, current_plan), gRPC unary
// CurrentPlan and consensus RPC queries (status, abci_info), each on a few keep-alive connections in a closed
// loop, plus pre-signed bank sends broadcast with broadcast_tx_sync at a fixed rate. Prints one JSON line
// {"rest":N,"grpc":N,"rpc":N,"txs":N,"refused":N}.
// Usage: node bench/mixed-load-client.ts <rpc-url> <rest-url> <grpc-host:port> <seconds> <tx/s> <txs.json> <address>
import { readFileSync } from "node:fs";
import { Agent } from "node:http";
import { create, toBinary } from "@bufbuild/protobuf";
import { Client, credentials } from "@grpc/grpc-js";
import { QueryCurrentPlanRequestSchema } from "../src/gen/chain/upgrade/v1beta1/query_pb.js";
import { rpcPost } from "./bench-node.ts";

const [rpcUrl, restUrl, grpcAddress, secondsText, rateText, file, address] = process.argv.slice(2);
if (address === undefined) {
  console.error(
    "usage: node bench/mixed-load-client.ts <rpc-url> <rest-url> <grpc-host:port> <seconds> <tx/s> <txs.json> <address>",
  );
  process.exit(2);
}
const end = performance.now() + Number(secondsText) * 1000;
const rate = Number(rateText);
const senders = (JSON.parse(readFileSync(file, "utf8")) as { senders: string[][] }).senders;
const counts = { rest: 0, grpc: 0, rpc: 0, txs: 0, refused: 0 };
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function restLoop(path: string): Promise<void> {
  while (performance.now() < end) {
    const res = await fetch(`${restUrl}${path}`);
    await res.arrayBuffer();
    if (res.ok) counts.rest++;
  }
}

async function grpcLoop(client: Client): Promise<void> {
  const request = Buffer.from(toBinary(QueryCurrentPlanRequestSchema, create(QueryCurrentPlanRequestSchema, {})));
  while (performance.now() < end) {
    await new Promise<void>((resolve, reject) =>
      client.makeUnaryRequest(
        "/chain.upgrade.v1beta1.Query/CurrentPlan",
        (b: Buffer) => b,
        (b: Buffer) => b,
        request,
        (err) => (err ? reject(err) : resolve()),
      ),
    );
    counts.grpc++;
  }
}

async function rpcLoop(method: string): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const url = new URL(rpcUrl);
  while (performance.now() < end) {
    await rpcPost(url, agent, method, {});
    counts.rpc++;
  }
  agent.destroy();
}

// Each sender sends its list in sequence order at rate/senders per second on its own connection, one send in
// flight; a send that falls behind schedule goes at once, so the average rate holds.
async function txLoop(txs: string[], perSecond: number): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const url = new URL(rpcUrl);
  const start = performance.now();
  for (let next = 0; performance.now() < end && next < txs.length; next++) {
    const wait = start + (next * 1000) / perSecond - performance.now();
    if (wait > 0) await pause(wait);
    const answer = await rpcPost<{ code: number }>(url, agent, "broadcast_tx_sync", { tx: txs[next] });
    if (answer.result?.code === 0) counts.txs++;
    else counts.refused++;
  }
  agent.destroy();
}

const grpc = new Client(grpcAddress, credentials.createInsecure());
await Promise.all([
  restLoop(`/chain/bank/v1beta1/balances/${address}`),
  restLoop(`/chain/bank/v1beta1/balances/${address}`),
  restLoop("/chain/upgrade/v1beta1/current_plan"),
  grpcLoop(grpc),
  grpcLoop(grpc),
  rpcLoop("status"),
  rpcLoop("abci_info"),
  ...senders.map((txs) => txLoop(txs, rate / senders.length)),
]);
grpc.close();
console.log(JSON.stringify(counts));
