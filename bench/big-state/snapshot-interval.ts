// The block interval of a big state while a node's background snapshot runs (issue 38: <= 1.1x the interval
// before). A block loop over the restored copy of the state (the same state at the same height, so the bench's home
// is left as it was): each block writes WRITES_PER_BLOCK keys, stages, commits and waits BLOCK_TIME_MS as the
// engine waits timeout_commit. After BEFORE_BLOCKS blocks a SnapshotManager (the node's, with its default duty) is
// told of a commit at its interval and snapshots the whole state in the background while blocks go on; the figure
// is the mean interval of the blocks committed while it runs (a stall shows in a mean, not in a median) against
// the median before. A snapshot still running after `capMs` is cancelled (the node's stop does the same): the
// figure is then over the part it ran.
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pino } from "pino";
import { SnapshotManager } from "../../src/snapshots/snapshot-manager.ts";
import { SnapshotStore } from "../../src/snapshots/snapshot-store.ts";
import { openMultiStore, readCommittedStoreNames } from "../../src/store/index.ts";
import { median } from "../store-workloads.ts";

const WRITES_PER_BLOCK = 500;
const BLOCK_TIME_MS = 200;
const BEFORE_BLOCKS = 20;

/** What one run measured. */
export interface SnapshotInterval {
  /** Median ms between commits before the snapshot. */
  beforeMs: number;
  /** Mean ms between commits while it ran. */
  duringMs: number;
  /** Blocks committed while it ran. */
  blocks: number;
  /** Whether it finished within the cap (else it was cancelled). */
  finished: boolean;
  /** How long it ran, ms. */
  snapshotMs: number;
}

/** Runs the block loop on the store at `applicationDb` (changed by it: pass a copy), snapshots into `work`. */
export async function snapshotInterval(applicationDb: string, work: string, capMs: number): Promise<SnapshotInterval> {
  const storeNames = await readCommittedStoreNames(applicationDb);
  const store = await openMultiStore({ path: applicationDb, storeNames });
  const written = storeNames.includes("bank") ? "bank" : storeNames[0];
  const encoder = new TextEncoder();
  let seed = 1;
  let lastCommit = performance.now();
  const block = async (): Promise<{ height: bigint; ms: number }> => {
    const branch = store.branch();
    for (let i = 0; i < WRITES_PER_BLOCK; i++) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      branch.store(written).set(encoder.encode(`bench-interval/${seed % 100_000}`), encoder.encode(`${seed}`));
    }
    await store.stage(branch);
    const info = await store.commit();
    const now = performance.now();
    const ms = now - lastCommit;
    lastCommit = now;
    return { height: info.version, ms };
  };
  try {
    await block();
    await sleep(BLOCK_TIME_MS);
    const before: number[] = [];
    let height = 0n;
    for (let b = 0; b < BEFORE_BLOCKS; b++) {
      const done = await block();
      before.push(done.ms);
      height = done.height;
      await sleep(BLOCK_TIME_MS);
    }
    const manager = new SnapshotManager({
      snapshots: new SnapshotStore(join(work, "interval-snapshots")),
      state: () => store,
      interval: height + 1n,
      keepRecent: 1,
      logger: pino({ level: "silent" }),
    });
    let running = true;
    const during: number[] = [];
    const started = performance.now();
    let finishedAt = 0;
    for (;;) {
      const done = await block();
      if (done.height === height + 1n) {
        manager.afterCommit(done.height);
        void manager.idle().then(() => {
          running = false;
          finishedAt = performance.now();
        });
      } else if (running) {
        during.push(done.ms);
      }
      if (!running || performance.now() - started > capMs) break;
      await sleep(BLOCK_TIME_MS);
    }
    const finished = !running;
    await manager.stop();
    const snapshotMs = (finished ? finishedAt : performance.now()) - started;
    const mean = during.length === 0 ? 0 : during.reduce((a, b) => a + b, 0) / during.length;
    return { beforeMs: median(before), duringMs: mean, blocks: during.length, finished, snapshotMs };
  } finally {
    await store.close();
  }
}
