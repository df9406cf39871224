// A big state (issue 38, goal 3): 1,000,000 accounts with balances, written through the store by the bench chain's
// own module (bench/big-state/chain.ts: 50,000 accounts in each block's EndBlock), not through genesis JSON.
// Figures, each against a baseline measured in the same run:
// - restart of the stopped node to its first new block (a new process launched on the home until its RPC reports a
//   height above the stopped one), median of 3, against the same on a 1,000-account state: <= 2x, and <= 2 s;
// - snapshot creation and restore of the whole state (state sync's work without CometBFT: export, chunks on disk,
//   import into a fresh directory checked against the app hash) against a raw classic-level load of the same
//   key/value pairs: restore >= 0.5x the raw load's rate (the CPU of each printed beside: on a busy machine the
//   wall times follow the share of the cores the process got); creation printed beside it;
// - the block interval of a block loop over the restored copy while the node's background snapshot of the whole
//   state runs, against the median interval before: <= 1.1x (big-state/snapshot-interval.ts);
// - node RSS serving the state under the memory bench's mixed load: <= 512 MiB.
// `--quick`: 100,000 accounts, 15 s of load, the snapshot-time interval over at most 90 s (else 180 s).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { homePaths } from "../src/config/index.ts";
import { openMultiStore, readCommittedStoreNames } from "../src/store/index.ts";
import { benchKeys } from "./bench-node.ts";
import { lastFillHeight } from "./big-state/chain.ts";
import { mixedLoadRss } from "./big-state/mixed-load-rss.ts";
import {
  type BigStateHome,
  makeHome,
  restartMs,
  setTimeoutCommit,
  startNode,
  stopNode,
  waitForHeight,
} from "./big-state/node.ts";
import { snapshotFigures } from "./big-state/snapshot-figures.ts";
import { snapshotInterval } from "./big-state/snapshot-interval.ts";
import { type BenchRow, quickMode } from "./harness.ts";
import { median } from "./store-workloads.ts";

const MIB = 2 ** 20;
const SMALL = 1_000;
const RESTARTS = 3;

/** Runs the home's node until its module has written every account, then stops it. */
async function fill(home: BigStateHome): Promise<void> {
  const node = await startNode(home);
  try {
    // Block by block, each within 10 minutes: a fill on a busy machine is slow (1M accounts took over 30 minutes at
    // load 20-28 on two cores) but never stands still.
    const last = lastFillHeight(home.accounts) + 1n;
    for (let h = 2n; h <= last; h = (await waitForHeight(node.rpc, h, 10 * 60_000)) + 1n) {
      // next height
    }
  } finally {
    await stopNode(node);
  }
  // Every account has an account record and a balance (and the denom's owner index): check the count, so a figure
  // is never taken on a state smaller than it says.
  const db = homePaths(home.home).applicationDb;
  const names = await readCommittedStoreNames(db);
  const store = await openMultiStore({ path: db, storeNames: names });
  try {
    const view = await store.view();
    const keys = names.reduce((sum, name) => sum + (view.keyCount?.(name) ?? 0), 0);
    if (keys < 2 * home.accounts) throw new Error(`the state holds ${keys} keys, fewer than ${home.accounts} accounts`);
  } finally {
    await store.close();
  }
}

/** Runs the benchmark. */
export async function run(): Promise<BenchRow[]> {
  const accounts = quickMode() ? 100_000 : 1_000_000;
  const loadSeconds = quickMode() ? 15 : 60;
  const label = accounts.toLocaleString("en-US");
  const work = await mkdtemp(join(tmpdir(), "chaind-big-state-bench-"));
  try {
    const senders = benchKeys(4, "bench-big-state");
    const small = await makeHome(join(work, "small"), SMALL, senders, "100ms");
    const big = await makeHome(join(work, "big"), accounts, senders, "100ms");
    await fill(small);
    await fill(big);
    // Blocks as the memory bench runs them from here on.
    await setTimeoutCommit(small.home, "1s");
    await setTimeoutCommit(big.home, "1s");
    const smallMs: number[] = [];
    const bigMs: number[] = [];
    const bigListening: number[] = [];
    for (let i = 0; i < RESTARTS; i++) {
      smallMs.push((await restartMs(small)).firstBlock);
      const times = await restartMs(big);
      bigMs.push(times.firstBlock);
      bigListening.push(times.listening);
    }
    const snap = await snapshotFigures(homePaths(big.home).applicationDb, join(work, "snapshot"));
    const interval = await snapshotInterval(snap.restoredDb, join(work, "snapshot"), quickMode() ? 90_000 : 180_000);
    const node = await startNode(big);
    let rss: Awaited<ReturnType<typeof mixedLoadRss>>;
    try {
      rss = await mixedLoadRss(node, big.chainId, senders, loadSeconds, work);
    } finally {
      await stopNode(node);
    }
    const restartBig = median(bigMs);
    const restartSmall = median(smallMs);
    const pairs = snap.pairs.toLocaleString("en-US");
    return [
      {
        name: `restart of a stopped node to its first new block, ${label}-account state (median of ${RESTARTS} runs: ${bigMs.map((m) => m.toFixed(0)).join(", ")} ms; its endpoints printed after ${bigListening.map((m) => m.toFixed(0)).join(", ")} ms) vs a ${SMALL.toLocaleString("en-US")}-account state`,
        value: restartBig,
        baseline: restartSmall,
        unit: "ms",
        target: "<= 2x the small state, and <= 2,000 ms",
        met: restartBig <= 2 * restartSmall && restartBig <= 2000,
      },
      {
        name: `snapshot restore of the ${label}-account state (${pairs} pairs at height ${snap.height}; process CPU ${snap.restoreCpuMs.toFixed(0)} ms vs ${snap.rawLoadCpuMs.toFixed(0)} ms) vs a raw classic-level batch load of the same pairs`,
        value: (snap.pairs * 1000) / snap.restoreMs,
        baseline: (snap.pairs * 1000) / snap.rawLoadMs,
        unit: "pairs/s",
        target: ">= 0.5x the raw load",
        met: snap.rawLoadMs >= 0.5 * snap.restoreMs,
      },
      {
        name: `snapshot creation of the ${label}-account state (${pairs} pairs) vs its restore`,
        value: snap.createMs,
        baseline: snap.restoreMs,
        unit: "ms",
        target: "printed",
        met: true,
      },
      {
        name: `block interval over the ${label}-account state while the node's background snapshot of it runs (${interval.blocks} blocks, ${interval.finished ? "the whole snapshot" : "cancelled"} after ${(interval.snapshotMs / 1000).toFixed(0)} s; mean) vs the median before`,
        value: interval.duringMs,
        baseline: interval.beforeMs,
        unit: "ms",
        target: "<= 1.1x",
        met: interval.blocks > 0 && interval.duringMs <= 1.1 * interval.beforeMs,
      },
      {
        name: `node peak RSS serving the ${label}-account state under mixed load (${rss.what}) vs its idle RSS`,
        value: rss.peak / MIB,
        baseline: rss.idle / MIB,
        unit: "MiB",
        target: "<= 512 MiB",
        met: rss.peak <= 512 * MIB,
      },
    ];
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
