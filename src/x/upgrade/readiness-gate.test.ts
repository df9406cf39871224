// The readiness gate on a real App (LevelDB, real staking and gov, one validator, vote extensions on): params set by a
// passed gov MsgUpdateParams; a plan whose network is not ready is postponed (event, log, stored Plan rewritten, no
// halt), abandoned after the limit, and a ready network halts at the height exactly as without the gate.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { encodeExtendedCommitTx, voteExtensionSignBytes } from "../../app/extended-commit.ts";
import { packAny } from "../../client/tx/any.ts";
import { ed25519KeyPairFromSeed, signEd25519 } from "../../crypto/ed25519.ts";
import { MsgSoftwareUpgradeSchema, MsgUpdateParamsSchema } from "../../gen/chain/upgrade/v1beta1/tx_pb.js";
import {
  ExtendedCommitInfoSchema,
  RequestFinalizeBlockSchema,
  type ResponseFinalizeBlock,
} from "../../gen/tendermint/abci/types_pb.js";
import { BlockIDFlag } from "../../gen/tendermint/types/validator_pb.js";
import { startTestNode, type TestNode, VALIDATOR } from "../../testing/test-node.ts";
import { consAddressOfKey } from "../staking/validator.ts";
import { UpgradeHaltError } from "./errors.ts";
import { getUpgradeParams } from "./params.ts";
import { newPlan } from "./plan.ts";
import { encodeReadinessRecord } from "./readiness-record.ts";

const GOV = "chain10d07y265gmmuvt4z0w9aw880jnsr700j0q8wax";
const seed = new Uint8Array(createHash("sha256").update(VALIDATOR.privateKey).digest());
const validatorKey = ed25519KeyPairFromSeed(seed).publicKey;

let root: string;
let node: TestNode;
before(async () => {
  root = await mkdtemp(join(tmpdir(), "readiness-gate-"));
  node = await startTestNode({ home: join(root, "node"), release: {}, voteExtensionsEnableHeight: 1n });
  await node.nextBlock();
});
after(async () => {
  await node?.close();
  await rm(root, { recursive: true, force: true });
});

const pass = async (messages: Parameters<TestNode["passProposal"]>[0]) =>
  assert.equal((await node.passProposal(messages)).status, 3, "the proposal passed");
const schedule = (name: string, height: bigint) =>
  pass([
    packAny(
      MsgSoftwareUpgradeSchema,
      create(MsgSoftwareUpgradeSchema, { authority: GOV, plan: newPlan({ name, height }) }),
    ),
  ]);
const plan = async () => node.keeper.getUpgradePlan(await node.query());
const attributes = (response: ResponseFinalizeBlock, type: string) =>
  response.events
    .filter((e) => e.type === type)
    .map((e) => Object.fromEntries(e.attributes.filter((a) => a.key !== "mode").map((a) => [a.key, a.value])));

/** Turns the gate on at 0.67 through a gov MsgUpdateParams, with the given postponement settings. */
async function setGateParams(postponeBlocks: bigint, maxPostponements: number): Promise<void> {
  await pass([
    packAny(
      MsgUpdateParamsSchema,
      create(MsgUpdateParamsSchema, {
        authority: GOV,
        params: {
          readinessThreshold: "0.670000000000000000",
          readinessPostponeBlocks: postponeBlocks,
          readinessMaxPostponements: maxPostponements,
        },
      }),
    ),
  ]);
}

/** Runs blocks (without extended commits: nobody signals) until the one before `height`. */
async function blocksUntilBefore(height: bigint): Promise<void> {
  while (node.app.lastBlockHeight() < height - 1n) await node.nextBlock();
}

describe("the readiness gate", () => {
  it("is off by default, and set by a gov MsgUpdateParams", async () => {
    assert.equal((await getUpgradeParams(await node.query(), "upgrade")).readinessThreshold, 0n);
    await setGateParams(5n, 1);
    const params = await getUpgradeParams(await node.query(), "upgrade");
    assert.deepEqual(params, {
      readinessThreshold: 670000000000000000n,
      readinessPostponeBlocks: 5n,
      readinessMaxPostponements: 1,
    });
  });

  it("postpones a plan its network is not ready for, without halting, then abandons it after the limit", async () => {
    const h = node.app.lastBlockHeight() + 30n;
    await schedule("v2", h);
    await blocksUntilBefore(h);
    // What the replay mode asks before it switches releases at h: the gate holds the plan back.
    assert.equal(await node.app.holdsDuePlan(create(RequestFinalizeBlockSchema, { height: h })), true);
    assert.equal(await node.app.holdsDuePlan(create(RequestFinalizeBlockSchema, { height: h - 1n })), false, "not due");
    const atH = await node.nextBlock(); // no UpgradeHaltError: the gate moved the plan
    assert.deepEqual(attributes(atH, "upgrade_postponed"), [
      { name: "v2", height: h.toString(), new_height: (h + 5n).toString(), ready_fraction: "0.000000000000000000" },
    ]);
    assert.equal((await plan())?.height, h + 5n);
    assert.equal((await plan())?.name, "v2");
    assert.ok(
      node.logs.includes(
        `upgrade "v2" postponed to height ${h + 5n}: 0.000000000000000000 of voting power ready, 0.670000000000000000 needed`,
      ),
    );
    await blocksUntilBefore(h + 5n);
    const second = await node.nextBlock();
    assert.deepEqual(attributes(second, "upgrade_abandoned"), [
      { name: "v2", height: (h + 5n).toString(), ready_fraction: "0.000000000000000000" },
    ]);
    assert.equal(await plan(), undefined, "cleared, so governance can decide again");
  });

  it("keeps a plan postponed past the largest int64 height at that height instead of failing the block", async () => {
    const maxInt64 = (1n << 63n) - 1n;
    await setGateParams((1n << 64n) - 1n, 0);
    const h = node.app.lastBlockHeight() + 30n;
    await schedule("v2", h);
    await blocksUntilBefore(h);
    const atH = await node.nextBlock(); // the block commits: a Plan height above int64 could not be stored
    assert.deepEqual(attributes(atH, "upgrade_postponed"), [
      { name: "v2", height: h.toString(), new_height: maxInt64.toString(), ready_fraction: "0.000000000000000000" },
    ]);
    assert.equal((await plan())?.height, maxInt64);
    await node.nextBlock();
    await setGateParams(5n, 1);
  });

  it("halts a ready network at the height exactly as without the gate", async () => {
    const h = node.app.lastBlockHeight() + 30n;
    await schedule("v3", h);
    await blocksUntilBefore(h - 1n);
    // Block h − 1 carries the validator's precommit of h − 2 signalling v3.
    const extension = encodeReadinessRecord({ plan: "v3", binary: false, staged: true });
    const signed = h - 2n;
    const commit = create(ExtendedCommitInfoSchema, {
      round: 0,
      votes: [
        {
          validator: { address: consAddressOfKey(validatorKey), power: 10n },
          voteExtension: extension,
          extensionSignature: signEd25519(seed, voteExtensionSignBytes(extension, signed, 0n, "upgrade-test")),
          blockIdFlag: BlockIDFlag.BLOCK_ID_FLAG_COMMIT,
        },
      ],
    });
    await node.app.finalizeBlock(
      create(RequestFinalizeBlockSchema, {
        height: h - 1n,
        txs: [encodeExtendedCommitTx(commit)],
        time: { seconds: 1_900_000_000n, nanos: 0 },
      }),
    );
    await node.app.commit();
    assert.equal(await node.app.holdsDuePlan(create(RequestFinalizeBlockSchema, { height: h })), false, "ready");
    await assert.rejects(node.nextBlock(), UpgradeHaltError);
    assert.equal((await plan())?.height, h, "the plan did not move");
  });
});
