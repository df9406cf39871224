// The end-to-end bench's client, run as its own process (so its CPU is not the node's): reads pre-signed txs,
// one list per sender, and has every sender broadcast its list in order with broadcast_tx_sync over its own
// keep-alive connection, all senders at once (through RawHttpPoster: requests built before the clock starts, so
// the client takes as little of the machine's CPU as it can). Then it waits until each sender's last tx is in a committed
// block (a later sequence cannot commit before an earlier one) and prints one JSON line:
// {"txs":N,"seconds":S,"refused":R,"firstRefusal":"...","cpuSeconds":C} (C: this process's CPU time).
// Usage: node bench/send-client.ts <rpc-url> <txs.json>
import { readFileSync } from "node:fs";
import { Agent } from "node:http";
import { type RpcAnswer, rpcPost } from "./bench-node.ts";
import { RawHttpPoster } from "./raw-http-poster.ts";

const [rpcUrl, file] = process.argv.slice(2);
if (rpcUrl === undefined || file === undefined) {
  console.error("usage: node bench/send-client.ts <rpc-url> <txs.json>");
  process.exit(2);
}
const url = new URL(rpcUrl);
const senders = (JSON.parse(readFileSync(file, "utf8")) as { senders: string[][] }).senders;
let refused = 0;
let firstRefusal = "";

// Connections opened and every request's bytes built before the clock starts.
const posters = await Promise.all(senders.map(() => RawHttpPoster.open(url)));
const requests = senders.map((txs, s) =>
  txs.map((tx, i) =>
    posters[s].request(JSON.stringify({ jsonrpc: "2.0", id: i, method: "broadcast_tx_sync", params: { tx } })),
  ),
);

const start = performance.now();
const lastHashes = await Promise.all(
  requests.map(async (list, s) => {
    let hash = "";
    for (const request of list) {
      const answer = JSON.parse(await posters[s].send(request)) as RpcAnswer<{ code: number; hash: string }>;
      if (answer.result?.code !== 0) {
        refused++;
        if (firstRefusal === "") firstRefusal = JSON.stringify(answer).slice(0, 300);
      } else {
        hash = answer.result.hash;
      }
    }
    posters[s].close();
    return hash;
  }),
);
const sent = performance.now();
// Wait for every sender's last accepted tx to be committed (polling the tx index).
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
for (const hash of lastHashes) {
  if (hash === "") continue;
  for (;;) {
    const answer = await rpcPost<{ height: string }>(url, agent, "tx", {
      hash: Buffer.from(hash, "hex").toString("base64"),
    });
    if (answer.result !== undefined) break;
    await new Promise((r) => setTimeout(r, 20));
  }
}
const end = performance.now();
agent.destroy();
const txs = senders.reduce((n, s) => n + s.length, 0) - refused;
console.log(
  JSON.stringify({
    txs,
    seconds: (end - start) / 1000,
    broadcastSeconds: (sent - start) / 1000,
    refused,
    firstRefusal,
    cpuSeconds: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
  }),
);
