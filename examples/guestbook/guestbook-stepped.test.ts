// Upgrade v3's stepped migration with the testing kit, in process over a real LevelDB store: a guestbook at v2 with
// five signatures schedules v3, halts at the plan, restarts as v3, and the migration rewrites two entries a block
// from the block after the upgrade's (three steps), visible in the Migrations query; a restart in the middle resumes
// it. Imports only `chaind/...` and Node's built-ins, as a chain outside this repository would.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { MsgSoftwareUpgradeSchema } from "chaind/gen/chain/upgrade/v1beta1/tx_pb.js";
import { PlanSchema } from "chaind/gen/chain/upgrade/v1beta1/upgrade_pb.js";
import type { Release } from "chaind/runtime";
import { packAny, startTestNode, type TestNode, tempDir } from "chaind/testing";
import { defaultUpgradeAuthority, UPGRADE_EXIT_CODES } from "chaind/x/upgrade";
import { v2, v3 } from "./app.ts";

const SIGNATURES = ["ada", "brian", "carla", "dmitri", "eve"].map((name) => ({ name, message: `hello from ${name}` }));
const decoder = new TextDecoder();

// The test chain's genesis is every module's default one: here, five signatures.
const withSignatures = (release: Release): Release => ({
  ...release,
  modules: (keepers) =>
    (release.modules?.(keepers) ?? []).map((m) =>
      m.name === "guestbook" ? { ...m, defaultGenesis: () => ({ signatures: SIGNATURES }) } : m,
    ),
});

let dir: Awaited<ReturnType<typeof tempDir>>;
before(async () => {
  dir = await tempDir("guestbook-stepped-");
});
after(async () => {
  await dir?.remove();
});

async function entries(node: TestNode): Promise<Record<string, { message: string; characters?: number }>> {
  const out: Record<string, { message: string; characters?: number }> = {};
  for await (const [key, value] of (await node.query()).kvStore("guestbook").iterate()) {
    out[decoder.decode(key)] = JSON.parse(decoder.decode(value));
  }
  return out;
}

test("upgrade v3 counts every entry's characters across blocks, two a block, and resumes after a restart", async () => {
  const home = join(dir.path, "node");
  let node = await startTestNode({ home, release: withSignatures(v2) });
  await node.nextBlock();
  const upgradeHeight = 10n;
  const plan = create(PlanSchema, { name: "v3", height: upgradeHeight });
  await node.passProposal([
    packAny(MsgSoftwareUpgradeSchema, create(MsgSoftwareUpgradeSchema, { authority: defaultUpgradeAuthority(), plan })),
  ]);
  let halt: (Error & { exitCode?: number }) | undefined;
  while (halt === undefined && node.app.lastBlockHeight() < upgradeHeight) {
    await node.nextBlock().catch((err: Error) => {
      halt = err;
    });
  }
  assert.equal(halt?.exitCode, UPGRADE_EXIT_CODES.needed, String(halt));
  await node.close();

  node = await startTestNode({ home, release: withSignatures(v3) });
  await node.nextBlock(); // H: the handler starts the migration
  await node.nextBlock(); // H+1: step 1 (ada, brian)
  const counted = Object.values(await entries(node)).filter((e) => e.characters !== undefined);
  assert.equal(counted.length, 2);
  // A restart in the middle: the cursor is in the upgrade store.
  await node.close();
  node = await startTestNode({ home, release: withSignatures(v3) });
  try {
    await node.nextBlock(); // H+2: step 2 (carla, dmitri)
    await node.nextBlock(); // H+3: step 3 (eve), fewer than the budget: done
    const all = await entries(node);
    assert.deepEqual(
      Object.entries(all).map(([name, e]) => [name, e.characters]),
      SIGNATURES.map((s) => [s.name, s.message.length]),
    );
    const [migration] = await node.keeper.getMigrations(await node.query());
    assert.deepEqual(
      [migration?.upgrade, migration?.module, migration?.name, migration?.startedHeight, migration?.finishedHeight],
      ["v3", "guestbook", "count-characters", upgradeHeight, upgradeHeight + 3n],
    );
    assert.equal(migration?.steps, 3n);
  } finally {
    await node.close();
  }
});
