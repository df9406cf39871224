// Stepped migrations (issue 32): a migration that rewrites 1,000,000 records, as one upgrade handler (today's way:
// the block at H takes T) and as a stepped migration (x/upgrade: one bounded step a block after H). Both run in this
// process on the real App (the node's builder, real LevelDB, real gov halting at the plan) through the testing kit.
// A block's interval is modelled as its FinalizeBlock + Commit time plus timeout_commit (1 s, CometBFT's default):
// the kit drives blocks back to back, and the engine's own wait is the same for every block, so it is added rather
// than slept. Figures: the longest interval during the stepped migration against the median of the 20 blocks before
// the upgrade (goal ≤ 1.5×), the stepped migration's total wall time (H+1 to its last step, intervals included)
// against T (goal ≤ 2×), and the process's peak RSS (goal ≤ 512 MiB). `--quick`: 100,000 records.
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import type { AppModule } from "../src/app/module.ts";
import { MsgSoftwareUpgradeSchema } from "../src/gen/chain/upgrade/v1beta1/tx_pb.js";
import { packAny } from "../src/testing/app.ts";
import { startTestNode, type TestNode, type TestRelease } from "../src/testing/test-node.ts";
import { closeVerifyPool } from "../src/x/auth/verify-pool.ts";
import { defaultUpgradeAuthority } from "../src/x/upgrade/keeper.ts";
import { newPlan } from "../src/x/upgrade/plan.ts";
import { prefixMigrationStep } from "../src/x/upgrade/prefix-migration.ts";
import type { BenchRow } from "./harness.ts";

const RECORDS = process.env.CHAIND_BENCH_QUICK === "1" ? 100_000 : 1_000_000;
const BUDGET = 10_000;
const TIMEOUT_COMMIT_MS = 1000;
const BLOCKS_BEFORE = 20;
const UPGRADE_HEIGHT = BigInt(BLOCKS_BEFORE + 10);
const STORE = "records";
const PREFIX = new Uint8Array([0x01]);
const encoder = new TextEncoder();

/** `records`: RECORDS keys `0x01 ‖ 4-byte index` → a 32-byte value, written at genesis. */
function recordsModule(): AppModule {
  return {
    name: STORE,
    consensusVersion: 1n,
    storeKeys: [STORE],
    defaultGenesis: () => ({}),
    validateGenesis: () => {},
    async initGenesis(ctx) {
      const store = ctx.kvStore(STORE);
      for (let i = 0; i < RECORDS; i++) store.set(recordKey(i), encoder.encode(`record ${i}`.padEnd(32, ".")));
      return undefined;
    },
    exportGenesis: async () => ({}),
    registerServices: () => {},
  };
}

function recordKey(i: number): Uint8Array {
  const key = new Uint8Array(5);
  key[0] = PREFIX[0];
  new DataView(key.buffer).setUint32(1, i);
  return key;
}

/** The migration both ways do: every record's value rewritten (upper-cased, a new encoding). */
function rewrite(value: Uint8Array): Uint8Array {
  return encoder.encode(new TextDecoder().decode(value).toUpperCase());
}

const v1: TestRelease = { modules: () => [recordsModule()] };
const oneHandler: TestRelease = {
  modules: () => [recordsModule()],
  upgrade: {
    name: "v2",
    handler: async (ctx, _plan, fromVM) => {
      const store = ctx.kvStore(STORE);
      const all: [Uint8Array, Uint8Array][] = [];
      for await (const entry of store.iterate({ prefix: PREFIX })) all.push(entry);
      for (const [key, value] of all) store.set(key, rewrite(value));
      return fromVM;
    },
  },
};
const stepped: TestRelease = {
  modules: () => [recordsModule()],
  upgrade: {
    name: "v2",
    steppedMigrations: [
      {
        module: STORE,
        name: "rewrite",
        budget: BUDGET,
        step: prefixMigrationStep({
          storeKey: STORE,
          prefix: PREFIX,
          rewrite: (_ctx, store, key, value) => store.set(key, rewrite(value)),
          estimateTotal: async () => BigInt(RECORDS),
        }),
      },
    ],
  },
};

/** One block's interval: its FinalizeBlock + Commit time plus timeout_commit. */
async function timedBlock(node: TestNode): Promise<number> {
  const started = performance.now();
  await node.nextBlock();
  return performance.now() - started + TIMEOUT_COMMIT_MS;
}

/** A v1 home with the records, the plan scheduled at UPGRADE_HEIGHT, run to the halt; the last BLOCKS_BEFORE intervals. */
async function prepare(home: string): Promise<number[]> {
  const node = await startTestNode({ home, release: v1 });
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
  const intervals: number[] = [];
  while (node.app.lastBlockHeight() < UPGRADE_HEIGHT - 1n) intervals.push(await timedBlock(node));
  await node.nextBlock().then(
    () => Promise.reject(new Error("v1 did not halt at the plan")),
    () => undefined,
  );
  await node.close();
  return intervals.slice(-BLOCKS_BEFORE);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Runs both ways on copies of one prepared home. */
export async function run(): Promise<BenchRow[]> {
  const dir = await mkdtemp(join(tmpdir(), "chaind-stepped-bench-"));
  try {
    const prepared = join(dir, "prepared");
    const before = await prepare(prepared);
    const medianBefore = median(before);
    const homes = { one: join(dir, "one"), stepped: join(dir, "stepped") };
    await cp(prepared, homes.one, { recursive: true });
    await cp(prepared, homes.stepped, { recursive: true });
    await rm(prepared, { recursive: true, force: true });

    // Today's way: the whole rewrite in the upgrade's block.
    const one = await startTestNode({ home: homes.one, release: oneHandler });
    const blockH = (await timedBlock(one)) - TIMEOUT_COMMIT_MS;
    await one.close();
    await rm(homes.one, { recursive: true, force: true });

    // Stepped: the upgrade's block starts it; one step of BUDGET records a block until done.
    const node = await startTestNode({ home: homes.stepped, release: stepped });
    await timedBlock(node);
    const during: number[] = [];
    for (;;) {
      during.push(await timedBlock(node));
      const [migration] = await node.keeper.getMigrations(await node.query());
      if (migration === undefined || migration.finishedHeight !== 0n) break;
    }
    await node.close();
    const longest = Math.max(...during);
    const total = during.reduce((sum, ms) => sum + ms, 0);
    // The work alone, without the engine's waits: what spreading the migration costs over doing it at once.
    const processing = total - during.length * TIMEOUT_COMMIT_MS;
    const rssMiB = (process.resourceUsage().maxRSS * 1024) / 2 ** 20;
    return [
      {
        name: `stepped migration of ${RECORDS} records (${BUDGET} a block): longest block interval / median before`,
        value: longest,
        baseline: medianBefore,
        unit: "ms",
        target: "<= 1.5x",
        met: longest <= 1.5 * medianBefore,
      },
      {
        name: `stepped migration of ${RECORDS} records: total wall time (${during.length} blocks) / one-handler block T`,
        value: total,
        baseline: blockH,
        unit: "ms",
        target: "<= 2x",
        met: total <= 2 * blockH,
      },
      {
        name: `stepped migration of ${RECORDS} records: processing time of its blocks (no timeout_commit) / T`,
        value: processing,
        baseline: blockH,
        unit: "ms",
        target: "(for reading the one above)",
        met: true,
      },
      {
        name: `migration of ${RECORDS} records, one handler and stepped: peak RSS`,
        value: rssMiB,
        baseline: 512,
        unit: "MiB",
        target: "<= 512 MiB",
        met: rssMiB <= 512,
      },
    ];
  } finally {
    await closeVerifyPool();
    await rm(dir, { recursive: true, force: true });
  }
}
