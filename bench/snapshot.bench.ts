// Block interval with periodic state-sync snapshots on vs off (issue 18: at most 1.1x).
//
// A block loop over a real LevelDB multistore holding 100,000 keys: each block writes 500 keys, stages and commits,
// then waits the block time (as the engine waits timeout_commit) before the next. With snapshots on, a
// SnapshotManager is told of every commit and snapshots every 10th height in the background (the whole state, each
// time) while blocks go on. The figure is the mean interval between commits over the same number of blocks, on
// against off, in the same run.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pino } from "pino";
import { SnapshotManager } from "../src/snapshots/snapshot-manager.ts";
import { SnapshotStore } from "../src/snapshots/snapshot-store.ts";
import { type MultiStore, openMultiStore } from "../src/store/index.ts";
import type { BenchRow } from "./harness.ts";

const KEYS = 100_000;
const WRITES_PER_BLOCK = 500;
const BLOCKS = 60;
const BLOCK_TIME_MS = 200;
const INTERVAL = 20n;

const encoder = new TextEncoder();

async function fill(store: MultiStore): Promise<void> {
  for (let from = 0; from < KEYS; from += 20_000) {
    const block = store.branch();
    for (let i = from; i < from + 20_000; i++)
      block.store("bank").set(encoder.encode(`key/${i}`), encoder.encode(`value ${i}`));
    await store.stage(block);
    await store.commit();
  }
}

/** Mean ms between commits over BLOCKS blocks. */
async function blockLoop(store: MultiStore, manager: SnapshotManager | undefined): Promise<number> {
  let seed = 1;
  const started = performance.now();
  for (let b = 0; b < BLOCKS; b++) {
    const block = store.branch();
    for (let i = 0; i < WRITES_PER_BLOCK; i++) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      block.store("bank").set(encoder.encode(`key/${seed % KEYS}`), encoder.encode(`b${b} ${i}`));
    }
    await store.stage(block);
    const info = await store.commit();
    manager?.afterCommit(info.version);
    await sleep(BLOCK_TIME_MS);
  }
  const elapsed = performance.now() - started;
  await manager?.idle();
  return elapsed / BLOCKS;
}

/** Runs the benchmark. */
export async function run(): Promise<BenchRow[]> {
  const work = await mkdtemp(join(tmpdir(), "chaind-snapshot-bench-"));
  try {
    const measure = async (withSnapshots: boolean): Promise<{ ms: number; snapshots: number }> => {
      const dir = join(work, withSnapshots ? "on" : "off");
      const store = await openMultiStore({
        path: join(dir, "app.db"),
        storeNames: ["bank", "auth"],
        pruning: { strategy: "custom", keepRecent: 20n, interval: 10n },
      });
      try {
        await fill(store);
        const snapshots = new SnapshotStore(join(dir, "snapshots"));
        const manager = withSnapshots
          ? new SnapshotManager({
              snapshots,
              state: () => store,
              interval: INTERVAL,
              keepRecent: 2,
              logger: pino({ level: "silent" }),
            })
          : undefined;
        const ms = await blockLoop(store, manager);
        return { ms, snapshots: (await snapshots.list()).length };
      } finally {
        await store.close();
      }
    };
    const off = await measure(false);
    const on = await measure(true);
    const ratio = on.ms / off.ms;
    return [
      {
        name: `block interval with snapshots every ${INTERVAL} heights (100k keys, ${BLOCK_TIME_MS} ms block time) vs off`,
        value: on.ms,
        baseline: off.ms,
        unit: "ms",
        target: "<= 1.1x snapshots off",
        met: ratio <= 1.1 && on.snapshots > 0,
        ratio,
      },
    ];
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
