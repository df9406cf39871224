// The garbage-flood bench's client, its own process: `connections` keep-alive connections each send random
// `bytes`-byte payloads with broadcast_tx_async back to back for `seconds`, then it prints one JSON line
// {"sent":N,"errors":E}. Usage: node bench/flood-client.ts <rpc-url> <connections> <seconds> <bytes>
import { randomBytes } from "node:crypto";
import { Agent } from "node:http";
import { rpcPost } from "./bench-node.ts";

const [rpcUrl, connections, seconds, bytes] = process.argv.slice(2);
if (rpcUrl === undefined || bytes === undefined) {
  console.error("usage: node bench/flood-client.ts <rpc-url> <connections> <seconds> <bytes>");
  process.exit(2);
}
const url = new URL(rpcUrl);
const until = performance.now() + Number(seconds) * 1000;
let sent = 0;
let errors = 0;
await Promise.all(
  Array.from({ length: Number(connections) }, async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    while (performance.now() < until) {
      try {
        const answer = await rpcPost(url, agent, "broadcast_tx_async", {
          tx: randomBytes(Number(bytes)).toString("base64"),
        });
        if (answer.error !== undefined) errors++;
        sent++;
      } catch {
        errors++;
      }
    }
    agent.destroy();
  }),
);
console.log(JSON.stringify({ sent, errors }));
