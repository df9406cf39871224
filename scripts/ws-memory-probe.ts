// Does a node hand its memory back after WebSocket clients that never read have gone? (issue 39 item 4: "RSS back
// within 1.2x its idle level after the clients leave"). Reproduces round 3's N3 probe on a real node and prints
// idle / peak / after RSS and the after/idle ratio; exit 0 when the ratio is <= 1.2, 1 otherwise.
//
//   node scripts/ws-memory-probe.ts [--txs N] [--hold S]
//
// 1. A real `chaind start` on a dev home with 4 funded senders, 1 s blocks, every port picked at run time
//    (bench/bench-node.ts). `--txs` signed sends (default 1,500) are committed first, so `tx_search` with
//    per_page 100 answers are large (~0.4 MB each).
// 2. Idle RSS: once the sends are committed and a few quiet blocks passed, RSS (VmRSS of /proc/<pid>/status)
//    sampled every 2 s until 10 samples in a row are within 2% of each other (at most 2 minutes).
// 3. Phase a: 4 WebSocket connections each pipeline 2,000 `tx_search` requests (`tx.height>0`, per_page 100) and
//    never read; held for `--hold` seconds (default 30).
// 4. Phase b: 20 connections with 5 subscriptions each (Tx, tx.height>0, NewBlock, NewBlockEvents,
//    tx.hash EXISTS), never reading, while the senders broadcast more sends; held for `--hold` seconds.
// 5. Every client is closed; RSS is sampled by the same rule (at most 10 minutes), and that is "after".
// RSS peak is sampled every 200 ms throughout. /proc/<pid>/smaps_rollup (anonymous vs file-backed) is printed at
// idle, peak and after, to tell a JS heap / malloc high-water mark from mapped files.
// Node options for the node itself (e.g. `--expose-gc`, `--heapsnapshot-signal=SIGUSR2`, `--trace-gc`): set
// CHAIND_BENCH_NODE_OPTIONS. The node's own allocator settings come from its launcher (see src/engine/README.md).

import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { Agent } from "node:http";
import { connect, type Socket } from "node:net";
import { parseArgs } from "node:util";
import { accountNumbers, benchKeys, latestHeight, rpcPost, signedSends, startBenchNode } from "../bench/bench-node.ts";
import { testKey } from "../src/testing/app.ts";

const MIB = 1024 * 1024;
const { values } = parseArgs({
  options: { txs: { type: "string", default: "1500" }, hold: { type: "string", default: "30" } },
});
const PRELOAD = Number(values.txs);
const HOLD_MS = Number(values.hold) * 1000;
const SENDERS = 4;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One masked client frame (RFC 6455 §5.2). */
function clientFrame(opcode: number, payload: Buffer): Buffer {
  const n = payload.length;
  const head = n < 126 ? Buffer.from([0x80 | opcode, 0x80 | n]) : Buffer.alloc(4);
  if (n >= 126) {
    if (n >= 65536) throw new Error("request too large for this probe");
    head[0] = 0x80 | opcode;
    head[1] = 0x80 | 126;
    head.writeUInt16BE(n, 2);
  }
  const mask = randomBytes(4);
  const body = Buffer.from(payload);
  for (let i = 0; i < body.length; i++) body[i] ^= mask[i & 3];
  return Buffer.concat([head, mask, body]);
}

/** Opens a WebSocket to `rpc`/websocket and returns the raw socket after the 101, paused (it never reads again). */
async function openSilent(rpc: string): Promise<Socket> {
  const url = new URL(rpc);
  const socket = connect(Number(url.port), url.hostname);
  await new Promise((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  socket.on("error", () => {});
  const key = randomBytes(16).toString("base64");
  socket.write(
    `GET /websocket HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  const head: Buffer = await new Promise((resolve) => socket.once("data", resolve));
  if (!head.toString().startsWith("HTTP/1.1 101 "))
    throw new Error(`no WebSocket handshake: ${head.toString().split("\r\n")[0]}`);
  socket.pause();
  return socket;
}

const request = (id: number, method: string, params: unknown) =>
  clientFrame(0x1, Buffer.from(JSON.stringify({ jsonrpc: "2.0", id, method, params })));

/** VmRSS of `pid` in bytes. */
function rss(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return Number(kb) * 1024;
}

/** Rss / Anonymous / file-backed of smaps_rollup, in MiB, as one line. */
function rollup(pid: number): string {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, "m").exec(text)?.[1] ?? 0);
  const anon = kb("Anonymous");
  return `Rss ${(kb("Rss") / 1024).toFixed(0)} MiB (anonymous ${(anon / 1024).toFixed(0)}, file ${((kb("Rss") - anon) / 1024).toFixed(0)})`;
}

/**
 * RSS once it has settled: sampled every 2 s until 10 samples in a row are within 2% of each other (or `maxMs`
 * passed); the last sample. The same rule for idle and after, so a GC cycle caught mid-way skews neither.
 */
async function settledRss(pid: number, maxMs: number): Promise<number> {
  const recent: number[] = [];
  const deadline = Date.now() + maxMs;
  for (;;) {
    recent.push(rss(pid));
    if (recent.length > 10) recent.shift();
    const stable = recent.length === 10 && Math.max(...recent) <= 1.02 * Math.min(...recent);
    if (stable || Date.now() > deadline) return recent[recent.length - 1];
    await pause(2000);
  }
}

const mib = (bytes: number) => `${(bytes / MIB).toFixed(0)} MiB`;

/** Broadcasts each sender's list in order over its own keep-alive connection until `stop()` (or the list ends). */
function broadcastLoop(rpc: string, lists: string[][]) {
  let stopped = false;
  let accepted = 0;
  const url = new URL(rpc);
  const done = Promise.all(
    lists.map(async (list) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      for (const tx of list) {
        if (stopped) break;
        const answer = await rpcPost<{ code: number }>(url, agent, "broadcast_tx_sync", { tx });
        if (answer.result?.code === 0) accepted++;
      }
      agent.destroy();
    }),
  );
  return {
    get accepted() {
      return accepted;
    },
    async stop() {
      stopped = true;
      await done;
    },
    done,
  };
}

const keys = benchKeys(SENDERS, "ws-memory-probe");
const node = await startBenchNode({ accounts: keys });
const pid = node.process.child.pid as number;
let peak = 0;
let peakRollup = "";
const sampler = setInterval(() => {
  const now = rss(pid);
  if (now > peak) {
    peak = now;
    peakRollup = rollup(pid);
  }
}, 200);
try {
  const numbers = await accountNumbers(
    node.rest,
    keys.map((k) => k.bech32),
  );
  const perSender = Math.ceil(PRELOAD / SENDERS);
  const recipient = testKey("ws-memory-probe-recipient").bech32;
  // Enough for the preload and for phase b's load (a few thousand more per sender at most).
  const lists = keys.map((key, i) =>
    signedSends(key, {
      chainId: node.chainId,
      accountNumber: numbers[i],
      from: 0n,
      count: perSender + 3000,
      to: recipient,
    }).map((t) => Buffer.from(t).toString("base64")),
  );
  const preload = broadcastLoop(
    node.rpc,
    lists.map((l) => l.slice(0, perSender)),
  );
  await preload.done;
  const committedAt = (await latestHeight(node.rpc)) + 3n;
  while ((await latestHeight(node.rpc)) < committedAt) await pause(500);
  const idle = await settledRss(pid, 120_000);
  const idleRollup = rollup(pid);
  peak = 0;
  console.log(`preloaded ${preload.accepted} sends; idle RSS ${mib(idle)}: ${idleRollup}`);

  // Phase a: pipelined large answers, never read.
  const searchers = await Promise.all(Array.from({ length: 4 }, () => openSilent(node.rpc)));
  for (const socket of searchers) {
    const frames: Buffer[] = [];
    for (let id = 1; id <= 2000; id++) {
      frames.push(request(id, "tx_search", { query: "tx.height>0", per_page: "100", page: "1" }));
    }
    socket.write(Buffer.concat(frames));
  }
  await pause(HOLD_MS);
  console.log(`phase a (4 x 2,000 tx_search, unread): peak RSS so far ${mib(peak)}`);
  for (const socket of searchers) socket.destroy();

  // Phase b: slow subscribers under tx load.
  const queries = [
    "tm.event='Tx'",
    "tx.height>0",
    "tm.event='NewBlock'",
    "tm.event='NewBlockEvents'",
    "tx.hash EXISTS",
  ];
  const load = broadcastLoop(
    node.rpc,
    lists.map((l) => l.slice(perSender)),
  );
  const subscribers = await Promise.all(Array.from({ length: 20 }, () => openSilent(node.rpc)));
  for (const socket of subscribers) {
    socket.write(Buffer.concat(queries.map((query, i) => request(i + 1, "subscribe", { query }))));
  }
  await pause(HOLD_MS);
  for (const socket of subscribers) socket.destroy();
  await load.stop();
  console.log(`phase b (20 x 5 subscriptions, unread, ${load.accepted} sends): peak RSS ${mib(peak)}`);

  // After: until RSS is stable (the same rule as idle), at most 10 minutes.
  const leftAt = Date.now();
  const after = await settledRss(pid, 600_000);
  const ratio = after / idle;
  console.log(`peak: ${peakRollup}`);
  console.log(`after (${((Date.now() - leftAt) / 1000).toFixed(0)} s after the clients left): ${rollup(pid)}`);
  console.log(
    `idle ${mib(idle)}  peak ${mib(peak)}  after ${mib(after)}  after/idle ${ratio.toFixed(2)} (target <= 1.2)`,
  );
  process.exitCode = ratio <= 1.2 ? 0 : 1;
} finally {
  clearInterval(sampler);
  await node.stop();
}
