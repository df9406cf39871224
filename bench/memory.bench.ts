// Memory of a real node under load (issue 15, goal 4): `chaind start` with 1 s blocks; a separate process
// (bench/mixed-load-client.ts) runs REST + gRPC + consensus RPC queries and 200 signed sends/s for 60 s.
// Figures: the node's peak RSS during the load (target <= 256 MiB; baseline: its idle RSS before the load),
// and its RSS 30 s after the load ended (target: within 10% of that idle RSS). RSS from /proc, sampled
// every 100 ms. `--quick`: 15 s of load, 10 s after.
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { testKey } from "../src/testing/app.ts";
import { accountNumbers, benchKeys, signedSends, startBenchNode } from "./bench-node.ts";
import { type BenchRow, quickMode } from "./harness.ts";

const MIB = 1024 * 1024;
const RATE = 200;
const SENDERS = 4;
const PEAK_TARGET = 256 * MIB;
const client = fileURLToPath(new URL("./mixed-load-client.ts", import.meta.url));
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs the benchmark and returns its rows. */
export async function run(): Promise<BenchRow[]> {
  const loadSeconds = quickMode() ? 15 : 60;
  const settleSeconds = quickMode() ? 10 : 30;
  const keys = benchKeys(SENDERS, "bench-memory");
  const dir = await mkdtemp(join(tmpdir(), "chaind-bench-memory-"));
  const node = await startBenchNode({ accounts: keys });
  try {
    const numbers = await accountNumbers(
      node.rest,
      keys.map((k) => k.bech32),
    );
    const perSender = Math.ceil((RATE * loadSeconds) / SENDERS) + 10;
    const recipient = testKey("bench-memory-recipient").bech32;
    const senders = keys.map((key, i) =>
      signedSends(key, {
        chainId: node.chainId,
        accountNumber: numbers[i],
        from: 0n,
        count: perSender,
        to: recipient,
      }).map((t) => Buffer.from(t).toString("base64")),
    );
    const file = join(dir, "txs.json");
    await writeFile(file, JSON.stringify({ senders }));

    // Idle: after a few quiet blocks, the median of 3 s of samples.
    await pause(3000);
    const idleSamples: number[] = [];
    for (let i = 0; i < 30; i++) {
      idleSamples.push(node.rss());
      await pause(100);
    }
    const idle = idleSamples.sort((a, b) => a - b)[Math.floor(idleSamples.length / 2)];

    const child = spawn(
      process.execPath,
      [client, node.rpc, node.rest, node.grpc, String(loadSeconds), String(RATE), file, keys[0].bech32],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    let done = false;
    const exited = new Promise<number | null>((resolve) =>
      child.on("close", (code) => {
        done = true;
        resolve(code);
      }),
    );
    let peak = 0;
    while (!done) {
      peak = Math.max(peak, node.rss());
      await pause(100);
    }
    const code = await exited;
    if (code !== 0) throw new Error(`the load client exited with ${code}`);
    const counts = JSON.parse(out.trim()) as { rest: number; grpc: number; rpc: number; txs: number; refused: number };
    await pause(settleSeconds * 1000);
    const after = node.rss();
    const what = `${loadSeconds} s: ${counts.rest} REST, ${counts.grpc} gRPC, ${counts.rpc} RPC queries, ${counts.txs} sends (${counts.refused} refused)`;
    return [
      {
        name: `node peak RSS under mixed load (${what})`,
        value: peak / MIB,
        baseline: idle / MIB,
        unit: "MiB",
        target: "<= 256 MiB (baseline: idle RSS before the load)",
        met: peak <= PEAK_TARGET,
      },
      {
        name: `node RSS ${settleSeconds} s after the load vs idle RSS before it`,
        value: after / MIB,
        baseline: idle / MIB,
        unit: "MiB",
        target: "<= 1.1x idle",
        met: after <= 1.1 * idle,
      },
    ];
  } finally {
    await node.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
