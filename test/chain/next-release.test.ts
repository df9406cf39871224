// The release line: the reference chain gains a release by one file. test/chain/v3-release.ts (v3, naming only the
// upgrade it adds) joins chain/'s v1 and v2 (in place of chain/'s own v3, a stepped migration tested elsewhere) and a v2 chain upgrades to it through real gov on a real LevelDB home:
// v3 started early is refused as an early binary (not as a downgrade: it keeps v2's handler, derived from its
// line), v2 halts at the plan's height, v3 applies the store addition and the migration, and v2 is refused on the
// upgraded state with the downgrade message.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { MsgSoftwareUpgradeSchema } from "chaind/gen/chain/upgrade/v1beta1/tx_pb.js";
import { type ChainDefinition, defineChain, upgradeHistory } from "chaind/runtime";
import { packAny, startTestNode, type TestNode, tempDir } from "chaind/testing";
import { defaultUpgradeAuthority, UpgradeHaltError } from "chaind/x/upgrade";
import { referenceChain } from "../../chain/app.ts";
import { v1, v2 } from "../../chain/releases.ts";
import { v3 } from "./v3-release.ts";

/** The reference chain as it stood before its own v3 (chain/releases/v3.ts): v1 and v2. */
const beforeV3: ChainDefinition = defineChain({
  ...referenceChain,
  releases: referenceChain.releases.filter((release) => release.name !== "v3"),
});
/** That chain with the test-only v3 in place of chain/'s own: its definition plus one release. */
const chain: ChainDefinition = defineChain({ ...beforeV3, releases: [...beforeV3.releases, v3] });
const decoder = new TextDecoder();

const schedule = (name: string, height: bigint) =>
  packAny(
    MsgSoftwareUpgradeSchema,
    create(MsgSoftwareUpgradeSchema, { authority: defaultUpgradeAuthority(), plan: { name, height } }),
  );

async function scheduled(node: TestNode, name: string, blocksAhead: bigint): Promise<bigint> {
  const height = node.app.lastBlockHeight() + blocksAhead;
  const proposal = await node.passProposal([schedule(name, height)]);
  assert.equal(proposal.failedReason, "", `the proposal scheduling ${name} passes`);
  return height;
}

async function haltsFor(node: TestNode, name: string, height: bigint): Promise<void> {
  while (node.app.lastBlockHeight() < height - 1n) await node.nextBlock();
  await assert.rejects(node.nextBlock(), (err: unknown) => {
    assert.ok(err instanceof UpgradeHaltError, String(err));
    assert.equal(err.kind, "needed");
    assert.match(err.message, new RegExp(`^UPGRADE "${name}" NEEDED at height: ${height}`));
    return true;
  });
  await node.close();
}

async function refused(release: typeof v1, home: string, message: string): Promise<void> {
  await assert.rejects(startTestNode({ home, chain, release }), (err: unknown) => {
    assert.ok(err instanceof UpgradeHaltError, String(err));
    assert.equal(err.exitCode, 21);
    assert.equal(err.message, message);
    return true;
  });
}

describe("the next release is one file", () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  before(async () => {
    dir = await tempDir("next-release-");
  });
  after(async () => {
    await dir?.remove();
  });

  it("v3 names one upgrade; the handlers it keeps come from its line", () => {
    assert.deepEqual(
      upgradeHistory(chain, v3).map((u) => u.name),
      ["v2", "v3"],
    );
    assert.deepEqual(
      upgradeHistory(referenceChain, v2).map((u) => u.name),
      ["v2"],
    );
    assert.deepEqual(upgradeHistory(referenceChain, v1), []);
  });

  it("a test node refuses a release that is not one of the chain it is given", async () => {
    await assert.rejects(startTestNode({ home: `${dir.path}/refused`, chain: beforeV3, release: v3 }), {
      message: 'startTestNode: release "v3" is not one of chain "chaind"\'s releases (v1, v2)',
    });
  });

  it("a v2 chain upgrades to v3: early v3 refused, v2 halts, v3 migrates, v2 refused afterwards", async () => {
    const home = `${dir.path}/home`;
    let node = await startTestNode({ home, chain, release: v1 });
    await node.nextBlock();
    const v2Height = await scheduled(node, "v2", 6n);
    await haltsFor(node, "v2", v2Height);

    node = await startTestNode({ home, chain, release: v2 });
    await node.nextBlock();
    assert.equal(await node.keeper.getDoneHeight(await node.query(), "v2"), v2Height);
    const v3Height = await scheduled(node, "v3", 6n);
    await node.close();

    // An early v3 is an early binary, not a downgrade: it has the handler of v2, the chain's last applied upgrade.
    await refused(
      v3,
      home,
      'BINARY UPDATED BEFORE TRIGGER! UPGRADE "v3" - in binary but not executed on chain. Downgrade your binary',
    );

    node = await startTestNode({ home, chain, release: v2 });
    await haltsFor(node, "v3", v3Height);

    node = await startTestNode({ home, chain, release: v3 });
    assert.equal(node.storeLoaderInstalled, true, "v3 opens the state with the `ledger` store added");
    await node.nextBlock();
    const ctx = await node.query();
    assert.equal(await node.keeper.getDoneHeight(ctx, "v3"), v3Height);
    assert.equal(await node.keeper.getProtocolVersion(ctx), 2n);
    const versions = Object.fromEntries((await node.keeper.getModuleVersions(ctx)).map((m) => [m.name, m.version]));
    assert.equal(versions.notes, 2n);
    assert.equal(versions.ledger, 1n);
    assert.equal(versions.bank, 2n);
    const note = async (store: string, key: string) =>
      decoder.decode((await ctx.kvStore(store).get(new TextEncoder().encode(key))) ?? new Uint8Array());
    assert.equal(await note("notes", "migrated-by"), "v3", "notes' migration 1 → 2 ran");
    assert.equal(await note("ledger", "opened-by"), "v3", "ledger's default genesis was written");
    await node.nextBlock();
    await node.close();

    await refused(v2, home, "wrong app version 2, upgrade handler is missing for v3 upgrade plan");
  });
});
