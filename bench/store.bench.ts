// State store benchmarks (docs/CONTRACT.md §11), each a ratio against a baseline measured in this run:
// - commit of 10,000 writes per version vs a raw classic-level batch of the same bytes (sync both), printed: the
//   goal for the commit is against IAVL now (iavl.bench.ts);
// - a read at the latest version vs a raw classic-level get of the same key;
// - a read 1,000 versions back vs a read at the latest version;
// - rename and delete of a store with 1M keys vs one with 1k keys;
// - resident memory of a process serving a 1M-key store vs 1 GiB.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { cpSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ClassicLevel } from "classic-level";
import { levelOptions } from "../src/store/kv-backend.ts";
import { type MultiStore, openMultiStore } from "../src/store/multistore.ts";
import type { PruningOptions, StoreUpgrades } from "../src/store/types.ts";
import type { BenchRow } from "./harness.ts";

const KEEP_ALL: PruningOptions = { strategy: "nothing", keepRecent: 0n, interval: 0n };
const WRITES = 10_000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function keys(count: number, size = 32): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < count; i++) out.push(new Uint8Array(randomBytes(size)));
  return out;
}

/** Commits `entries` into `name` in blocks of `blockSize`. */
async function load(
  store: MultiStore,
  name: string,
  entries: Uint8Array[],
  value: (i: number) => Uint8Array,
  blockSize: number,
): Promise<void> {
  for (let from = 0; from < entries.length; from += blockSize) {
    const block = store.branch();
    const s = block.store(name);
    const to = Math.min(entries.length, from + blockSize);
    for (let i = from; i < to; i++) s.set(entries[i], value(i));
    await store.stage(block);
    await store.commit();
  }
}

/** Commit throughput: stage + commit of 10k random updates vs raw batches of the same pairs. */
async function commitFigure(dir: string, populationSize: number): Promise<BenchRow> {
  const population = keys(populationSize);
  const path = join(dir, `commit-${populationSize}`);
  const store = await openMultiStore({ path, storeNames: ["bank"], pruning: KEEP_ALL });
  await load(store, "bank", population, () => new Uint8Array(randomBytes(100)), 20_000);
  const raw = new ClassicLevel<Uint8Array, Uint8Array>(`${path}-raw`, levelOptions());
  await raw.open();
  // The raw baseline starts from the same population, so both write into a DB of that size.
  for (let from = 0; from < population.length; from += 20_000) {
    const batch = raw.batch();
    for (let i = from; i < Math.min(population.length, from + 20_000); i++) {
      batch.put(population[i], new Uint8Array(randomBytes(100)));
    }
    await batch.write();
  }
  const ours: number[] = [];
  const base: number[] = [];
  for (let round = 0; round < 9; round++) {
    const picks =
      populationSize === WRITES
        ? population
        : Array.from({ length: WRITES }, () => population[Math.floor(Math.random() * population.length)]);
    const values = Array.from({ length: WRITES }, () => new Uint8Array(randomBytes(100)));
    let t = performance.now();
    const batch = raw.batch();
    for (let i = 0; i < WRITES; i++) batch.put(picks[i], values[i]);
    await batch.write({ sync: true } as Parameters<typeof batch.write>[0]);
    base.push(performance.now() - t);
    t = performance.now();
    const block = store.branch();
    const bank = block.store("bank");
    for (let i = 0; i < WRITES; i++) bank.set(picks[i], values[i]);
    await store.stage(block);
    await store.commit();
    ours.push(performance.now() - t);
    // The commit's tree pages are encoded and written after it resolves: let them land before the next raw batch is
    // timed, so the baseline never shares the disk with our write.
    await store.idle();
  }
  await store.close();
  await raw.close();
  const oursPerSec = (WRITES * 1000) / median(ours);
  const basePerSec = (WRITES * 1000) / median(base);
  const what =
    populationSize === WRITES ? "every key of a 10k-key store" : `random keys of a ${populationSize / 1000}k-key store`;
  return {
    name: `store commit of 10k writes/version (${what}), sync`,
    value: oursPerSec,
    baseline: basePerSec,
    unit: "writes/s",
    // Issue 38 moved this goal to IAVL, the store chains actually run (iavl.bench.ts: >= 2x its commit rate); the ratio
    // against a raw batch is printed for the record (docs/PERFORMANCE.md, "Replaced: the store commit's raw-LevelDB anchor").
    target: "printed (was >= 0.3x raw classic-level batch; replaced by >= 2x IAVL)",
    met: true,
  };
}

/**
 * Microseconds per read for each reader, measured in interleaved rounds (so a burst of load on
 * the machine hits every candidate alike), median of the rounds.
 */
async function timeReads(
  keysToRead: Uint8Array[],
  readers: ((k: Uint8Array) => Promise<unknown>)[],
  rounds = 5,
): Promise<number[]> {
  const per: number[][] = readers.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < readers.length; i++) {
      const t = performance.now();
      for (const k of keysToRead) await readers[i](k);
      per[i].push(((performance.now() - t) * 1000) / keysToRead.length);
    }
  }
  return per.map(median);
}

/** Reads: latest vs raw get, and 1,000 versions back vs latest. */
async function readFigures(dir: string): Promise<BenchRow[]> {
  const population = keys(20_000);
  const store = await openMultiStore({
    path: join(dir, "reads"),
    storeNames: ["bank"],
    pruning: KEEP_ALL,
    sync: false,
  });
  await load(store, "bank", population, () => new Uint8Array(randomBytes(100)), 20_000);
  // 1,001 more versions of 40 random updates each, plus one key written in every version.
  const hot = population[0];
  for (let v = 0; v < 1001; v++) {
    const block = store.branch();
    const bank = block.store("bank");
    for (let i = 0; i < 40; i++)
      bank.set(population[Math.floor(Math.random() * population.length)], new Uint8Array(randomBytes(100)));
    bank.set(hot, new Uint8Array(randomBytes(100)));
    await store.stage(block);
    await store.commit();
  }
  const latest = store.lastCommit().version;
  const raw = new ClassicLevel<Uint8Array, Uint8Array>(join(dir, "reads-raw"), levelOptions());
  await raw.open();
  for (let from = 0; from < population.length; from += 10_000) {
    const batch = raw.batch();
    for (let i = from; i < from + 10_000; i++) batch.put(population[i], new Uint8Array(randomBytes(100)));
    await batch.write();
  }
  // Let both LevelDBs settle (finish background compaction) before timing reads.
  await store.compact();
  await raw.compactRange(new Uint8Array([0]), new Uint8Array([0xff, 0xff]));
  const sample = Array.from({ length: 20_000 }, () => population[Math.floor(Math.random() * population.length)]);
  sample[0] = hot;
  const now = (await store.view(latest)).store("bank");
  const back = (await store.view(latest - 1000n)).store("bank");
  const [rawGet, rawGetSync, oursLatest, oursBack] = await timeReads(sample, [
    (k) => raw.get(k),
    async (k) => raw.getSync(k),
    (k) => now.get(k),
    (k) => back.get(k),
  ]);
  const [hotLatest, hotBack] = await timeReads(Array(4000).fill(hot), [(k) => now.get(k), (k) => back.get(k)]);
  await store.close();
  await raw.close();
  return [
    {
      name: "store read at latest vs raw classic-level get()",
      value: 1e6 / oursLatest,
      baseline: 1e6 / rawGet,
      unit: "reads/s",
      target: ">= 0.5x raw get",
      met: oursLatest <= 2 * rawGet,
    },
    {
      name: "store read at latest vs raw classic-level getSync() (stricter)",
      value: 1e6 / oursLatest,
      baseline: 1e6 / rawGetSync,
      unit: "reads/s",
      target: ">= 0.5x raw getSync",
      met: oursLatest <= 2 * rawGetSync,
    },
    {
      name: "store read 1,000 versions back (random keys) vs read at latest",
      value: oursBack,
      baseline: oursLatest,
      unit: "us/read",
      target: "<= 3x latency of latest",
      met: oursBack <= 3 * oursLatest,
    },
    {
      name: "store read 1,000 versions back (key written every version) vs latest",
      value: hotBack,
      baseline: hotLatest,
      unit: "us/read",
      target: "<= 3x latency of latest",
      met: hotBack <= 3 * hotLatest,
    },
  ];
}

/** Time of the commit that applies `upgrades` (stage + commit, on a store opened with them). */
async function upgradeMs(path: string, before: string[], after: string[], upgrades: StoreUpgrades): Promise<number> {
  // Finish what earlier upgrades left to do in the background (reclaiming a deleted store's
  // rows), so each measurement times its own upgrade only.
  const settle = await openMultiStore({ path, storeNames: before, pruning: KEEP_ALL });
  await settle.idle();
  await settle.close();
  const store = await openMultiStore({ path, storeNames: after, pruning: KEEP_ALL, upgrades });
  // The upgrade's cost: the commit that applies it (opening LevelDB is the same for any upgrade).
  const t = performance.now();
  await store.stage(store.branch());
  await store.commit();
  const ms = performance.now() - t;
  await store.close();
  return ms;
}

const NO_UPGRADES: StoreUpgrades = { added: [], renamed: [], deleted: [] };

/** Builds a store with a 1k-key and a 1M-key store (1M keys through ordinary commits). */
async function buildUpgradeStore(path: string): Promise<void> {
  const store = await openMultiStore({ path, storeNames: ["small", "big"], pruning: KEEP_ALL, sync: false });
  const value = new Uint8Array(100);
  await load(store, "small", keys(1000), () => value, 1000);
  await load(store, "big", keys(1_000_000), () => value, 50_000);
  await store.close();
}

/**
 * Resident memory of a fresh process that opens the 1M-key store and works like a node: blocks of
 * 1,000 updates, point reads and a paginated scan.
 */
async function probeRss(path: string): Promise<number> {
  const child = spawn(process.execPath, ["--expose-gc", fileURLToPath(import.meta.url), RSS_PROBE_FLAG, path], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  for await (const chunk of child.stdout) out += String(chunk);
  const [code] = (await once(child, "close")) as [number | null];
  const mib = Number(out.trim().split("\n").pop());
  if (code !== 0 || !Number.isFinite(mib)) throw new Error(`memory probe failed (exit ${code}): ${out}`);
  return mib;
}

const RSS_PROBE_FLAG = "--store-rss-probe";

/** The child side of probeRss: prints its resident memory in MiB. */
async function rssProbe(path: string): Promise<void> {
  const store = await openMultiStore({ path, storeNames: ["small", "big"], pruning: KEEP_ALL });
  const sample: Uint8Array[] = [];
  for await (const [k] of (await store.view()).store("big").iterate({ limit: 50_000 })) sample.push(k);
  for (let block = 0; block < 30; block++) {
    const branch = store.branch();
    const big = branch.store("big");
    for (let i = 0; i < 1000; i++)
      big.set(sample[Math.floor(Math.random() * sample.length)], new Uint8Array(randomBytes(100)));
    await store.stage(branch);
    await store.commit();
  }
  const view = (await store.view()).store("big");
  for (let i = 0; i < 20_000; i++) await view.get(sample[Math.floor(Math.random() * sample.length)]);
  for await (const _ of view.iterate({ start: sample[100], limit: 10_000 })) {
    // scanning, as a paginated query does
  }
  global.gc?.();
  const rss = process.memoryUsage().rss / 2 ** 20;
  await store.close();
  process.stdout.write(`${rss.toFixed(1)}\n`);
}

/** Rename and delete of a 1M-key store vs a 1k-key store, and resident memory at 1M keys. */
async function upgradeFigures(dir: string): Promise<BenchRow[]> {
  const path = join(dir, "upgrades");
  await buildUpgradeStore(path);
  const rssMiB = await probeRss(path);
  // One plain commit first, so LevelDB's caches are equally warm for every measurement.
  await upgradeMs(path, ["small", "big"], ["small", "big"], NO_UPGRADES);
  // Each figure is a few milliseconds, so take the median of several, alternating the stores.
  const renameSmall: number[] = [];
  const renameBig: number[] = [];
  let names = { small: "small", big: "big" };
  for (let i = 0; i < 7; i++) {
    const nextSmall = names.small === "small" ? "small2" : "small";
    renameSmall.push(
      await upgradeMs(path, [names.small, names.big], [nextSmall, names.big], {
        ...NO_UPGRADES,
        renamed: [{ oldKey: names.small, newKey: nextSmall }],
      }),
    );
    names = { ...names, small: nextSmall };
    const nextBig = names.big === "big" ? "big2" : "big";
    renameBig.push(
      await upgradeMs(path, [names.small, names.big], [names.small, nextBig], {
        ...NO_UPGRADES,
        renamed: [{ oldKey: names.big, newKey: nextBig }],
      }),
    );
    names = { ...names, big: nextBig };
  }
  // A deleted store is gone, so every delete sample runs on a fresh copy of the directory, and deletes only one
  // store: a second delete on the same copy met the first one's LevelDB aftermath (its reclaimed rows'
  // compaction) and took 5-12 ms where a first delete takes ~1-2 ms, whichever the store. Five samples each, the
  // two stores taking turns at going first.
  const deleteSmall: number[] = [];
  const deleteBig: number[] = [];
  const deleteOnCopy = async (copyName: string, deleted: string, kept: string): Promise<number> => {
    const copy = join(dir, copyName);
    cpSync(path, copy, { recursive: true });
    try {
      return await upgradeMs(copy, [names.small, names.big], [kept], { ...NO_UPGRADES, deleted: [deleted] });
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  };
  for (let i = 0; i < 5; i++) {
    if (i % 2 === 0) deleteSmall.push(await deleteOnCopy(`upgrades-copy-${i}-small`, names.small, names.big));
    deleteBig.push(await deleteOnCopy(`upgrades-copy-${i}-big`, names.big, names.small));
    if (i % 2 === 1) deleteSmall.push(await deleteOnCopy(`upgrades-copy-${i}-small`, names.small, names.big));
  }
  const rename1k = median(renameSmall);
  const rename1m = median(renameBig);
  const delete1k = median(deleteSmall);
  const delete1m = median(deleteBig);
  return [
    {
      name: "store rename at an upgrade: 1M-key store vs 1k-key store",
      value: rename1m,
      baseline: rename1k,
      unit: "ms",
      target: "within 2x (independent of key count)",
      met: rename1m <= 2 * rename1k,
    },
    {
      name: "store delete at an upgrade: 1M-key store vs 1k-key store",
      value: delete1m,
      baseline: delete1k,
      unit: "ms",
      target: "within 2x (independent of key count)",
      met: delete1m <= 2 * delete1k,
    },
    {
      name: "resident memory of a node process serving a 1M-key store",
      value: rssMiB,
      baseline: 1024,
      unit: "MiB",
      target: "< 1 GiB",
      met: rssMiB < 1024,
    },
  ];
}

/** Runs every store figure in a temporary directory. */
export async function run(): Promise<BenchRow[]> {
  const dir = await mkdtemp(join(tmpdir(), "chaind-store-bench-"));
  try {
    const rows: BenchRow[] = [];
    rows.push(await commitFigure(dir, WRITES));
    rows.push(await commitFigure(dir, 100_000));
    rows.push(...(await readFigures(dir)));
    rows.push(...(await upgradeFigures(dir)));
    return rows;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Development shortcut: `node bench/store.bench.ts --commit-only` prints just the two commit figures. */
async function commitOnly(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "chaind-store-bench-"));
  try {
    for (const population of [WRITES, 100_000]) {
      const before = loadavg()[0];
      const row = await commitFigure(dir, population);
      const ratio = row.value / row.baseline;
      process.stdout.write(
        `${row.name}: ${ratio.toFixed(3)}x (${((WRITES / row.value) * 1000).toFixed(1)} ms vs ${((WRITES / row.baseline) * 1000).toFixed(1)} ms raw; load ${before.toFixed(2)} -> ${loadavg()[0].toFixed(2)})\n`,
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Development shortcut: `node bench/store.bench.ts --reads-only` prints just the read figures. */
async function readsOnly(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "chaind-store-bench-"));
  try {
    const before = loadavg()[0];
    for (const row of await readFigures(dir)) {
      process.stdout.write(
        `${row.name}: ${(row.value / row.baseline).toFixed(3)}x (${row.value.toFixed(2)} vs ${row.baseline.toFixed(2)} ${row.unit}; target ${row.target}; load ${before.toFixed(2)} -> ${loadavg()[0].toFixed(2)})\n`,
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv[2] === RSS_PROBE_FLAG) await rssProbe(process.argv[3]);
  else if (process.argv[2] === "--commit-only") await commitOnly();
  else if (process.argv[2] === "--reads-only") await readsOnly();
}
