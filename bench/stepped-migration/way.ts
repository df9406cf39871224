// One way of the stepped-migration bench, run as its own process so that its peak RSS is its own:
//   node bench/stepped-migration/way.ts prepare <home> <records>           v1 home with the records, the plan at H,
//                                                                            run to the halt
//   node bench/stepped-migration/way.ts one <home> <records> <clock>        v2 as one handler: block H
//   node bench/stepped-migration/way.ts one-iterating <home> <records> <clock>
//                                                                            the same, writing while it iterates
//   node bench/stepped-migration/way.ts stepped <home> <records> <clock> <budget>
//                                                                            v2 stepped: block H and every step's block
// Prints one JSON line (WayResult) on stdout. <clock> is the prepared chain's last block time (ms), so the restarted
// node's blocks keep a monotonic clock. A block's time is its work beside the engine's wait (`timed`).
import { governHeap } from "../../src/node/heap-governor.ts";
import { peakRssBytes } from "../../src/node/peak-rss.ts";
import { startTestNode, type TestNode, type TestRelease } from "../../src/testing/test-node.ts";
import { closeVerifyPool } from "../../src/x/auth/verify-pool.ts";
import { oneHandler, oneHandlerIterating, stepped, TIMEOUT_COMMIT_MS } from "../../test/support/records-chain/chain.ts";
import { KIT_CLOCK_START, prepareRecordsHome } from "../../test/support/records-chain/prepare.ts";

/** What a way prints. */
export interface WayResult {
  /** FinalizeBlock + Commit of each block it ran, in ms, in order (prepare: the blocks after the proposal). */
  blocks: number[];
  /** The work behind each block's commit, during timeout_commit (pages, steps done ahead), in ms. */
  behind: number[];
  /** prepare: the last block's time, for the next process's clock. */
  clock?: number;
  /** The process's peak RSS, MiB. */
  maxRssMiB: number;
}

/**
 * One block's work, in ms: its FinalizeBlock + Commit, plus whatever of the work the node does behind the commit,
 * while the engine waits timeout_commit, outlasts timeout_commit: its tree pages' write (on this thread), the next
 * block's migration steps done ahead (x/upgrade migration-lookahead.ts) and a garbage collection when one is due
 * (src/app/idle-collection.ts): `App.settledAfterCommit`. A block whose work behind the commit takes
 * longer than the wait delays the next block by that much. `behind` collects that work's time, block by block.
 */
async function timed(node: TestNode, behind: number[], advanceMs?: number): Promise<number> {
  const started = performance.now();
  await node.nextBlock(advanceMs === undefined ? {} : { advanceMs });
  const committed = performance.now();
  await node.app.settledAfterCommit();
  const after = performance.now() - committed;
  behind.push(after);
  return committed - started + Math.max(0, after - TIMEOUT_COMMIT_MS);
}

async function prepare(home: string, records: number): Promise<WayResult> {
  const blocks: number[] = [];
  const behind: number[] = [];
  const clock = await prepareRecordsHome(home, records, async (node) => blocks.push(await timed(node, behind)));
  return { blocks, behind, clock, maxRssMiB: maxRssMiB() };
}

/** Block H on `release`; with `untilMigrated`, then one block a step until its stepped migration is done. */
async function upgrade(home: string, release: TestRelease, clock: number, untilMigrated = false): Promise<WayResult> {
  const node = await startTestNode({ home, release });
  // This process's kit clock starts over: the first block steps past the prepared chain's last time.
  const behind: number[] = [];
  const blocks = [await timed(node, behind, clock - KIT_CLOCK_START + 1000)];
  if (untilMigrated) {
    for (;;) {
      const [migration] = await node.keeper.getMigrations(await node.query());
      if (migration === undefined) throw new Error("the upgrade's block started no stepped migration");
      if (migration.finishedHeight !== 0n) break;
      blocks.push(await timed(node, behind));
    }
  }
  await node.close();
  return { blocks, behind, maxRssMiB: maxRssMiB() };
}

/** This process's own peak RSS (getrusage's would include the bench process that started it: src/node/peak-rss.ts). */
function maxRssMiB(): number {
  return peakRssBytes() / 2 ** 20;
}

const [way, home, records, clock, budget] = process.argv.slice(2);
const count = Number(records);
// The process that runs a node runs the heap governor, as `chaind start` does (src/node/heap-governor.ts: the young
// generation capped at 32 MiB, the old generation's next full collection at ~1.5x what the last one left): the
// figures are the node's, not those of V8's defaults (whose 128 MiB young generation and up-to-4x old generation
// made this process's peak RSS ~1.1 GiB where the governed one stays below 700 MiB).
const governor = governHeap();
let result: WayResult;
if (way === "prepare") result = await prepare(home, count);
else if (way === "one") result = await upgrade(home, oneHandler(count), Number(clock));
else if (way === "one-iterating") result = await upgrade(home, oneHandlerIterating(count), Number(clock));
else if (way === "stepped") result = await upgrade(home, stepped(count, Number(budget)), Number(clock), true);
else throw new Error(`way "${way}": expected prepare, one, one-iterating or stepped`);
await closeVerifyPool();
governor.stop();
process.stdout.write(`${JSON.stringify(result)}\n`);
