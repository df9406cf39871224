// Garbage flood (issue 15, goal 6): a real `chaind start` node with 1 s blocks; a separate process floods its
// consensus RPC with random 100 kB payloads over 30 keep-alive connections (broadcast_tx_async) for 30 s, while
// a wallet broadcasts valid sends. Figure: the mean block interval during the flood; baseline: the mean
// interval of the same node just before, quiet. Target: <= 1.3x, and every valid send commits during the flood.
// Block intervals come from the blocks' own header times.
import { spawn } from "node:child_process";
import { Agent } from "node:http";
import { fileURLToPath } from "node:url";
import { testKey } from "../src/testing/app.ts";
import { accountNumbers, benchKeys, latestHeight, rpcPost, signedSends, startBenchNode } from "./bench-node.ts";
import { type BenchRow, quickMode } from "./harness.ts";

const CONNECTIONS = 30;
const PAYLOAD = 100_000;
const TARGET = 1.3;
const VALID_SENDS = 5;
const client = fileURLToPath(new URL("./flood-client.ts", import.meta.url));

/** Header time (ms) of block `height`. */
async function blockTime(rpc: string, height: bigint): Promise<number> {
  const body = (await (await fetch(`${rpc}/header?height=${height}`)).json()) as {
    result: { header: { time: string } };
  };
  return Date.parse(body.result.header.time);
}

/** Mean interval (ms) between the header times of blocks from..to. */
async function meanInterval(rpc: string, from: bigint, to: bigint): Promise<number> {
  if (to <= from) throw new Error(`too few blocks to measure an interval (${from}..${to})`);
  return ((await blockTime(rpc, to)) - (await blockTime(rpc, from))) / Number(to - from);
}

async function waitForHeight(rpc: string, height: bigint): Promise<void> {
  while ((await latestHeight(rpc)) < height) await new Promise((r) => setTimeout(r, 100));
}

/** Runs the benchmark and returns its row. */
export async function run(): Promise<BenchRow[]> {
  const seconds = quickMode() ? 10 : 30;
  const [wallet] = benchKeys(1, "bench-flood");
  const node = await startBenchNode({ accounts: [wallet] });
  try {
    const [accountNumber] = await accountNumbers(node.rest, [wallet.bech32]);
    const sends = signedSends(wallet, {
      chainId: node.chainId,
      accountNumber,
      from: 0n,
      count: VALID_SENDS,
      to: testKey("bench-flood-recipient").bech32,
    });
    // Quiet: the blocks of the same span before the flood.
    const quietFrom = await latestHeight(node.rpc);
    const quietBlocks = BigInt(Math.max(5, Math.round(seconds / 3)));
    await waitForHeight(node.rpc, quietFrom + quietBlocks);
    const quiet = await meanInterval(node.rpc, quietFrom, quietFrom + quietBlocks);

    const floodFrom = await latestHeight(node.rpc);
    const flooder = spawn(process.execPath, [client, node.rpc, String(CONNECTIONS), String(seconds), String(PAYLOAD)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    flooder.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    const floodDone = new Promise<number | null>((resolve) => flooder.on("close", resolve));
    let floodOver = false;
    void floodDone.then(() => {
      floodOver = true;
    });
    // Valid sends, spread over the first quarter of the flood; each must commit before the flood ends.
    const url = new URL(node.rpc);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const hashes: string[] = [];
    for (const tx of sends) {
      await new Promise((r) => setTimeout(r, (seconds * 1000) / 4 / VALID_SENDS));
      const answer = await rpcPost<{ code: number; hash: string }>(url, agent, "broadcast_tx_sync", {
        tx: Buffer.from(tx).toString("base64"),
      });
      if (answer.result?.code !== 0)
        throw new Error(`a valid send was refused during the flood: ${JSON.stringify(answer)}`);
      hashes.push(Buffer.from(answer.result.hash, "hex").toString("base64"));
    }
    let committedDuringFlood = 0;
    for (const hash of hashes) {
      for (;;) {
        const found = await rpcPost(url, agent, "tx", { hash });
        if (found.result !== undefined) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      if (!floodOver) committedDuringFlood++;
    }
    agent.destroy();
    const code = await floodDone;
    const floodTo = await latestHeight(node.rpc);
    if (code !== 0) throw new Error(`flood client exited with ${code}`);
    const report = JSON.parse(out.trim()) as { sent: number; errors: number };
    const flood = await meanInterval(node.rpc, floodFrom, floodTo);
    const ratio = flood / quiet;
    return [
      {
        name: `block interval under a garbage flood (${CONNECTIONS} conns, ${PAYLOAD / 1000} kB, ${seconds} s, ${report.sent} payloads; valid sends committed during it: ${committedDuringFlood}/${VALID_SENDS})`,
        value: flood,
        baseline: quiet,
        unit: "ms",
        target: `<= ${TARGET}x the quiet interval, every valid send committed during the flood`,
        met: ratio <= TARGET && committedDuringFlood === VALID_SENDS,
        ratio,
      },
    ];
  } finally {
    await node.stop();
  }
}
