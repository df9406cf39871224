// The floor under the snapshot restore's figure: the bench's raw batch load (snapshot-figures.ts) run over the rows a
// restore writes — every row of a restored store, read back — and over the raw pairs it is compared with, alternating
// in one process. Same loader, same batches, same LevelDB options: the difference is only the rows (each key's latest
// and history rows plus the tree's pages against one row a pair), so no importer can beat this ratio without
// writing other rows. Prints each load's wall time, process CPU and this thread's CPU, then the medians.
//   KEEP=1 node bench/big-state/restore-profile.ts 100000     # builds a state, snapshots and restores it; names the folder
//   node bench/big-state/rows-floor.ts <that folder> [rounds, default 3]
import { rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { ClassicLevel } from "classic-level";
import { openMultiStore, readCommittedStoreNames } from "../../src/store/index.ts";
import { levelOptions } from "../../src/store/kv-backend.ts";
import { type Pairs, prefixedPairs, rawBatchLoad } from "./snapshot-figures.ts";

/** Every store's keys and values at the latest version, the store's name in front (as snapshot-figures.ts). */
async function rawPairs(path: string): Promise<Pairs> {
  const storeNames = await readCommittedStoreNames(path);
  const store = await openMultiStore({ path, storeNames });
  const pairs: Pairs = [];
  try {
    await prefixedPairs(await store.view(store.lastCommit().version), storeNames, pairs);
  } finally {
    await store.close();
  }
  return pairs;
}

/** Every row of a LevelDB directory. */
async function allRows(path: string): Promise<Pairs> {
  const db = new ClassicLevel<Uint8Array, Uint8Array>(path, { keyEncoding: "view", valueEncoding: "view" });
  await db.open();
  const rows: Pairs = [];
  try {
    for await (const [k, v] of db.iterator()) rows.push([k, v]);
  } finally {
    await db.close();
  }
  return rows;
}

/** The bench's raw load (snapshot-figures.ts) of `pairs` into a fresh directory: wall, process CPU, thread CPU. */
async function load(path: string, pairs: Pairs): Promise<number[]> {
  await rm(path, { recursive: true, force: true });
  const raw = new ClassicLevel<Uint8Array, Uint8Array>(path, levelOptions());
  await raw.open();
  try {
    const cpu = process.cpuUsage();
    const main = process.threadCpuUsage();
    const started = performance.now();
    await rawBatchLoad(raw, pairs);
    const wall = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const mainUsed = process.threadCpuUsage(main);
    return [wall, (used.user + used.system) / 1000, (mainUsed.user + mainUsed.system) / 1000];
  } finally {
    await raw.close();
  }
}

const work = resolve(process.argv[2] ?? "");
const rounds = Number(process.argv[3] ?? 3);
const inputs = [
  { name: "raw pairs", rows: await rawPairs(join(work, "state.db")), runs: [] as number[][] },
  { name: "restored rows", rows: await allRows(join(work, "snap", "restored.db")), runs: [] as number[][] },
];
const bytes = (rows: Pairs) => rows.reduce((sum, [k, v]) => sum + k.length + v.length, 0);
for (const input of inputs) console.log(`${input.name}: ${input.rows.length} rows, ${bytes(input.rows)} bytes`);
for (let round = 0; round < rounds; round++) {
  for (const input of round % 2 === 0 ? inputs : [...inputs].reverse()) {
    const loadAvg = (await import("node:fs")).readFileSync("/proc/loadavg", "utf8").split(" ")[0];
    const run = await load(join(work, "rows-floor.db"), input.rows);
    input.runs.push(run);
    console.log(
      `${input.name}: wall ${run[0].toFixed(0)} ms, CPU ${run[1].toFixed(0)} ms, main thread ${run[2].toFixed(0)} ms (load ${loadAvg})`,
    );
  }
}
await rm(join(work, "rows-floor.db"), { recursive: true, force: true });
const median = (xs: number[]) => [...xs].sort((p, q) => p - q)[Math.floor(xs.length / 2)];
const [raw, rows] = inputs;
const at = (i: number) =>
  `${median(raw.runs.map((r) => r[i])).toFixed(0)} vs ${median(rows.runs.map((r) => r[i])).toFixed(0)}`;
console.log(
  `medians, raw pairs vs restored rows: wall ${at(0)} ms (raw/rows ${(median(raw.runs.map((r) => r[0])) / median(rows.runs.map((r) => r[0]))).toFixed(3)}), CPU ${at(1)} ms, main thread ${at(2)} ms`,
);
