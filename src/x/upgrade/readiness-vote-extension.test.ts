// The readiness signal through the App's ExtendVote and VerifyVoteExtension (readiness-vote-extension.ts wired by
// buildChainApp): a real App over LevelDB, a plan scheduled by a passed gov proposal, a release staged on disk the
// way a supervisor stages it.
import assert from "node:assert/strict";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { packAny } from "../../client/tx/any.ts";
import { MsgSoftwareUpgradeSchema } from "../../gen/chain/upgrade/v1beta1/tx_pb.js";
import {
  RequestExtendVoteSchema,
  RequestVerifyVoteExtensionSchema,
  ResponseVerifyVoteExtension_VerifyStatus,
} from "../../gen/tendermint/abci/types_pb.js";
import { startTestNode, type TestNode } from "../../testing/test-node.ts";
import { stagedReleasePath } from "./local-readiness.ts";
import { newPlan } from "./plan.ts";
import { encodeReadinessRecord, READINESS_RECORD_MAX_BYTES } from "./readiness-record.ts";

const GOV = "chain10d07y265gmmuvt4z0w9aw880jnsr700j0q8wax";
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

let root: string;
let node: TestNode;
before(async () => {
  root = await mkdtemp(join(tmpdir(), "readiness-vote-extension-"));
  node = await startTestNode({ home: join(root, "node"), release: {} });
});
after(async () => {
  await node?.close();
  await rm(root, { recursive: true, force: true });
});

const extend = async () =>
  hex(
    (await node.app.extendVote(create(RequestExtendVoteSchema, { height: node.app.lastBlockHeight() + 1n })))
      .voteExtension,
  );
const verify = async (extension: Uint8Array) =>
  (await node.app.verifyVoteExtension(create(RequestVerifyVoteExtensionSchema, { voteExtension: extension }))).status;

describe("readiness vote extension", () => {
  it("signals nothing without a plan, then the staged release once a supervisor has it", async () => {
    await node.nextBlock();
    assert.equal(await extend(), "", "no plan: an empty extension");

    const plan = newPlan({ name: "v2", height: 1000n });
    const passed = await node.passProposal([
      packAny(MsgSoftwareUpgradeSchema, create(MsgSoftwareUpgradeSchema, { authority: GOV, plan })),
    ]);
    assert.equal(passed.status, 3, "the proposal passed");
    assert.equal((await node.keeper.getUpgradePlan(await node.query()))?.name, "v2");
    assert.equal(await extend(), "", "a plan, but nothing makes this node ready");

    const env = { DAEMON_HOME: join(root, "visor"), DAEMON_NAME: "chaind" };
    const path = stagedReleasePath("v2", env) as string;
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, "#!/bin/sh\n");
    await chmod(path, 0o755);
    assert.equal(await extend(), "", "staged, but this node does not run under a supervisor");
    Object.assign(process.env, env);
    try {
      assert.equal(await extend(), hex(encodeReadinessRecord({ plan: "v2", binary: false, staged: true })));
    } finally {
      delete process.env.DAEMON_HOME;
      delete process.env.DAEMON_NAME;
    }
  });

  it("accepts empty and well-formed records, refuses malformed and oversized ones", async () => {
    const { ACCEPT, REJECT } = ResponseVerifyVoteExtension_VerifyStatus;
    assert.equal(await verify(new Uint8Array(0)), ACCEPT);
    assert.equal(await verify(encodeReadinessRecord({ plan: "v2", binary: true, staged: false })), ACCEPT);
    assert.equal(await verify(new Uint8Array([0x01, 0x07, 0x00])), REJECT);
    assert.equal(await verify(new Uint8Array(READINESS_RECORD_MAX_BYTES + 1).fill(1)), REJECT);
  });
});
