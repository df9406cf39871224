// Peak RSS of a running node under the memory bench's mixed load (bench/mixed-load-client.ts in its own process:
// REST, gRPC and consensus RPC queries in closed loops plus signed sends at a fixed rate), sampled from /proc every
// 100 ms, and its idle RSS before the load.
import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TestKey } from "../../src/testing/app.ts";
import { testKey } from "../../src/testing/app.ts";
import { accountNumbers, rssOf, signedSends } from "../bench-node.ts";

const RATE = 200;
const client = fileURLToPath(new URL("../mixed-load-client.ts", import.meta.url));
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the load did and the node's RSS in bytes. */
export interface MixedLoadRss {
  idle: number;
  peak: number;
  what: string;
}

/** Runs `seconds` of mixed load against the node at `endpoints` (pid `pid`), sends signed by `senders`. */
export async function mixedLoadRss(
  endpoints: { rpc: string; rest: string; grpc: string; pid: number },
  chainId: string,
  senders: TestKey[],
  seconds: number,
  work: string,
): Promise<MixedLoadRss> {
  const numbers = await accountNumbers(
    endpoints.rest,
    senders.map((k) => k.bech32),
  );
  const perSender = Math.ceil((RATE * seconds) / senders.length) + 10;
  const recipient = testKey("bench-big-state-recipient").bech32;
  const txs = senders.map((key, i) =>
    signedSends(key, { chainId, accountNumber: numbers[i], from: 0n, count: perSender, to: recipient }).map((t) =>
      Buffer.from(t).toString("base64"),
    ),
  );
  const file = join(work, "txs.json");
  await writeFile(file, JSON.stringify({ senders: txs }));
  await pause(3000);
  const idleSamples: number[] = [];
  for (let i = 0; i < 30; i++) {
    idleSamples.push(rssOf(endpoints.pid));
    await pause(100);
  }
  const idle = idleSamples.sort((a, b) => a - b)[Math.floor(idleSamples.length / 2)];
  const child = spawn(
    process.execPath,
    [client, endpoints.rpc, endpoints.rest, endpoints.grpc, String(seconds), String(RATE), file, senders[0].bech32],
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
    peak = Math.max(peak, rssOf(endpoints.pid));
    await pause(100);
  }
  const code = await exited;
  if (code !== 0) throw new Error(`the load client exited with ${code}`);
  const counts = JSON.parse(out.trim()) as { rest: number; grpc: number; rpc: number; txs: number; refused: number };
  const what = `${seconds} s: ${counts.rest} REST, ${counts.grpc} gRPC, ${counts.rpc} RPC queries, ${counts.txs} sends`;
  return { idle, peak, what };
}
