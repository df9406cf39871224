// A home of the records chain (chain.ts) ready for its upgrade: v1 with the records at genesis, a plan for v2 passed
// by governance, run to the halt at the plan's height, its LevelDB settled. Shared by the stepped-migration bench
// (bench/stepped-migration/way.ts, which times the blocks before the halt) and the large upgrade's kill test
// (test/e2e/large-upgrade-kill.test.ts, through its child process).
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { ClassicLevel } from "classic-level";
import { MsgSoftwareUpgradeSchema } from "../../../src/gen/chain/upgrade/v1beta1/tx_pb.js";
import { packAny } from "../../../src/testing/app.ts";
import { startTestNode, type TestNode } from "../../../src/testing/test-node.ts";
import { defaultUpgradeAuthority } from "../../../src/x/upgrade/keeper.ts";
import { newPlan } from "../../../src/x/upgrade/plan.ts";
import { v1 } from "./chain.ts";

/** The height of the plan: far enough after the proposal that 20 quiet blocks come before it. */
export const UPGRADE_HEIGHT = 30n;
/** The testing kit's first block time, which a restarted process starts from again. */
export const KIT_CLOCK_START = 1_700_000_000_000;

/**
 * Prepares `home` with `records` records; `nextBlock` runs each block between the proposal and the one before the
 * plan's height (the bench times them). Returns the last block's time (ms), for the next process's clock.
 */
export async function prepareRecordsHome(
  home: string,
  records: number,
  nextBlock: (node: TestNode) => Promise<unknown> = (node) => node.nextBlock(),
): Promise<number> {
  const node = await startTestNode({ home, release: v1(records) });
  await node.nextBlock();
  await node.passProposal([
    packAny(
      MsgSoftwareUpgradeSchema,
      create(MsgSoftwareUpgradeSchema, {
        authority: defaultUpgradeAuthority(),
        plan: newPlan({ name: "v2", height: UPGRADE_HEIGHT }),
      }),
    ),
  ]);
  while (node.app.lastBlockHeight() < UPGRADE_HEIGHT - 1n) await nextBlock(node);
  const halted = await node.nextBlock().then(
    () => false,
    () => true,
  );
  if (!halted) throw new Error("v1 did not halt at the plan");
  const clock = timestampMs((await node.query()).blockTime);
  await node.close();
  await settleDatabase(join(home, "data", "application.db"));
  return clock;
}

/**
 * Settles the home's LevelDB as a node that has run for a while finds it: opening it replays the genesis commit's
 * write-ahead log (~90 MB at 1M records: the whole state in one batch) into table files, and a full compaction moves
 * them out of level 0. Left as genesis wrote it, the next process would replay the log when it opens the home (a
 * memtable of the whole genesis, ~170 MiB of RSS) and compact level 0 beside its first blocks: setup counted in the
 * bench's figure.
 */
async function settleDatabase(path: string): Promise<void> {
  const db = new ClassicLevel<Uint8Array, Uint8Array>(path, { keyEncoding: "view", valueEncoding: "view" });
  await db.open();
  await db.compactRange(new Uint8Array([0]), new Uint8Array(64).fill(0xff));
  await db.close();
}
