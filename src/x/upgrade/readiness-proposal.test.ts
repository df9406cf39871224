// The extended commit in a block (src/app/extended-commit.ts, wired by buildChainApp): the proposer puts the previous
// height's extended commit first (PrepareProposal), every node checks it (ProcessProposal) and PreBlock records each
// validator's signal in the upgrade store (0x04 ‖ consensus address). A real App over LevelDB with vote extensions
// on from height 1 and one validator whose consensus key signs the extensions here as CometBFT would.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { clone, create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  decodeExtendedCommitTx,
  encodeExtendedCommitTx,
  isExtendedCommitTx,
  voteExtensionSignBytes,
} from "../../app/extended-commit.ts";
import { gatewayJson } from "../../app/gateway-json.ts";
import { packAny } from "../../client/tx/any.ts";
import { ed25519KeyPairFromSeed, ed25519Signer, signEd25519 } from "../../crypto/ed25519.ts";
import {
  QueryUpgradeReadinessRequestSchema,
  QueryUpgradeReadinessResponseSchema,
} from "../../gen/chain/upgrade/v1beta1/query_pb.js";
import { MsgSoftwareUpgradeSchema } from "../../gen/chain/upgrade/v1beta1/tx_pb.js";
import {
  CommitInfoSchema,
  type ExtendedCommitInfo,
  ExtendedCommitInfoSchema,
  RequestFinalizeBlockSchema,
  RequestPrepareProposalSchema,
  RequestProcessProposalSchema,
  ResponseProcessProposal_ProposalStatus,
} from "../../gen/tendermint/abci/types_pb.js";
import { BlockIDFlag } from "../../gen/tendermint/types/validator_pb.js";
import { startTestNode, type TestNode, VALIDATOR } from "../../testing/test-node.ts";
import { consAddressOfKey } from "../staking/validator.ts";
import { readinessToJson } from "./client/cli.ts";
import { PLAN_KEY, readinessSignalKey } from "./keys.ts";
import { newPlan } from "./plan.ts";
import { encodeReadinessRecord } from "./readiness-record.ts";
import { readinessSignals } from "./readiness-store.ts";

const CHAIN_ID = "upgrade-test";
const { ACCEPT, REJECT } = ResponseProcessProposal_ProposalStatus;
const seed = new Uint8Array(createHash("sha256").update(VALIDATOR.privateKey).digest());
const validatorKey = ed25519KeyPairFromSeed(seed).publicKey;
const validatorAddress = consAddressOfKey(validatorKey);
const stranger = ed25519KeyPairFromSeed(new Uint8Array(32).fill(7));
const POWER = 10n;

let root: string;
let node: TestNode;
before(async () => {
  root = await mkdtemp(join(tmpdir(), "readiness-proposal-"));
  node = await startTestNode({ home: join(root, "node"), release: {}, voteExtensionsEnableHeight: 1n });
  await node.nextBlock(); // block 1: nothing to carry yet (no extensions before height 1)
});
after(async () => {
  await node?.close();
  await rm(root, { recursive: true, force: true });
});

/** One vote as CometBFT gives it, its extension signed over the canonical sign bytes of (height, round 0). */
function vote(extension: Uint8Array, height: bigint, options: { seed?: Uint8Array; pubKey?: Uint8Array } = {}) {
  const pubKey = options.pubKey ?? validatorKey;
  return {
    validator: { address: consAddressOfKey(pubKey), power: POWER },
    voteExtension: extension,
    extensionSignature: signEd25519(options.seed ?? seed, voteExtensionSignBytes(extension, height, 0n, CHAIN_ID)),
    blockIdFlag: BlockIDFlag.BLOCK_ID_FLAG_COMMIT,
  };
}
const extendedCommit = (votes: ReturnType<typeof vote>[]): ExtendedCommitInfo =>
  create(ExtendedCommitInfoSchema, { round: 0, votes });
const lastCommitOf = (commit: ExtendedCommitInfo) =>
  create(CommitInfoSchema, {
    round: commit.round,
    votes: commit.votes.map((v) => ({ validator: v.validator, blockIdFlag: v.blockIdFlag })),
  });

async function process(txs: Uint8Array[], proposed = lastCommitOf(honest())) {
  const height = node.app.lastBlockHeight() + 1n;
  return (
    await node.app.processProposal(create(RequestProcessProposalSchema, { height, txs, proposedLastCommit: proposed }))
  ).status;
}
const ready = encodeReadinessRecord({ plan: "v2", binary: false, staged: true });
const honest = () => extendedCommit([vote(ready, node.app.lastBlockHeight())]);

describe("the extended commit in a block", () => {
  it("goes first in the proposal, within max_tx_bytes", async () => {
    const height = node.app.lastBlockHeight() + 1n;
    const user = new Uint8Array([0x0a, 0x01, 0x02]);
    const prepared = await node.app.prepareProposal(
      create(RequestPrepareProposalSchema, { height, txs: [user], localLastCommit: honest(), maxTxBytes: 1_000_000n }),
    );
    assert.equal(prepared.txs.length, 2);
    assert.ok(isExtendedCommitTx(prepared.txs[0]));
    assert.deepEqual(decodeExtendedCommitTx(prepared.txs[0] as Uint8Array).votes[0]?.voteExtension, ready);
    assert.deepEqual(prepared.txs[1], user);
    assert.equal(await process(prepared.txs), ACCEPT);
  });

  it("rejects a block that leaves it out, forges or alters it, or adds, duplicates or drops validators", async () => {
    const h = node.app.lastBlockHeight();
    const tx = (commit: ExtendedCommitInfo) => encodeExtendedCommitTx(commit);
    const forged = honest();
    forged.votes[0]!.extensionSignature = signEd25519(stranger.privateKey, new Uint8Array([1]));
    const altered = honest();
    altered.votes[0]!.voteExtension = encodeReadinessRecord({ plan: "v3", binary: true, staged: false });
    const strangerVote = vote(ready, h, { seed: new Uint8Array(32).fill(7), pubKey: stranger.publicKey });
    const withStranger = extendedCommit([vote(ready, h), strangerVote]);
    const duplicated = extendedCommit([vote(ready, h), vote(ready, h)]);
    const absent = clone(ExtendedCommitInfoSchema, honest());
    absent.votes[0]!.blockIdFlag = BlockIDFlag.BLOCK_ID_FLAG_ABSENT;
    absent.votes[0]!.voteExtension = new Uint8Array(0);
    absent.votes[0]!.extensionSignature = new Uint8Array(0);
    const morePower = clone(ExtendedCommitInfoSchema, honest());
    morePower.votes[0]!.validator!.power = 99n;
    const malformed = extendedCommit([vote(new Uint8Array([1, 9, 0]), h)]);
    const wrongHeight = extendedCommit([vote(ready, h + 1n)]);

    const cases: [string, Uint8Array[], ReturnType<typeof lastCommitOf>?][] = [
      ["left out", [new Uint8Array([0x0a, 0x00])]],
      ["empty block", []],
      ["not decodable", [new Uint8Array([...tx(honest()).subarray(0, 28), 0xff, 0xff])]],
      ["forged signature", [tx(forged)]],
      ["extension altered after signing", [tx(altered)]],
      ["signed for another height", [tx(wrongHeight)]],
      ["malformed extension", [tx(malformed)]],
      ["a non-validator's vote added", [tx(withStranger)]],
      ["a non-validator in both commits", [tx(withStranger)], lastCommitOf(withStranger)],
      ["a validator twice", [tx(duplicated)], lastCommitOf(duplicated)],
      ["too little power (the only validator absent)", [tx(absent)], lastCommitOf(absent)],
      ["power altered", [tx(morePower)]],
    ];
    for (const [what, txs, proposed] of cases) assert.equal(await process(txs, proposed), REJECT, what);
    assert.equal(await process([tx(honest())]), ACCEPT, "the honest commit still passes");
  });

  it("refuses the same forgeries when this process's own signer made the signatures (known, not verified again)", async () => {
    // The proposer's own extension is signed by its validator's signer in this process; verifyEd25519 then knows
    // that signature by its bytes (src/crypto/own-signatures.ts). Only those exact bytes pass without the curve math.
    const h = node.app.lastBlockHeight();
    const signer = ed25519Signer(seed);
    const ownVote = (extension: Uint8Array, signedHeight: bigint) => ({
      ...vote(extension, h),
      extensionSignature: signer.sign(voteExtensionSignBytes(extension, signedHeight, 0n, CHAIN_ID)),
    });
    const tx = (v: ReturnType<typeof vote>) => encodeExtendedCommitTx(extendedCommit([v]));
    assert.equal(await process([tx(ownVote(ready, h))]), ACCEPT, "its own signature, as it signed it");
    const altered = ownVote(ready, h);
    altered.voteExtension = encodeReadinessRecord({ plan: "v3", binary: true, staged: false });
    const otherHeight = ownVote(ready, h + 1n);
    const flipped = ownVote(ready, h);
    flipped.extensionSignature = Uint8Array.from(flipped.extensionSignature, (b, i) => (i === 0 ? b ^ 1 : b));
    const cases: [string, ReturnType<typeof vote>][] = [
      ["extension altered after signing", altered],
      ["signed for another height", otherHeight],
      ["a bit of the signature flipped", flipped],
    ];
    for (const [what, v] of cases) assert.equal(await process([tx(v)]), REJECT, what);
  });

  it("is recorded in PreBlock as each validator's latest signal, and is no tx", async () => {
    const height = node.app.lastBlockHeight() + 1n;
    const user = new Uint8Array([0x0a, 0x00]);
    const response = await node.app.finalizeBlock(
      create(RequestFinalizeBlockSchema, {
        height,
        txs: [encodeExtendedCommitTx(honest()), user],
        time: { seconds: 1_800_000_000n, nanos: 0 },
      }),
    );
    await node.app.commit();
    assert.equal(response.txResults.length, 2, "one result per tx, the commit's included");
    assert.equal(response.txResults[0]?.code, 0);
    assert.notEqual(response.txResults[1]?.code, 0, "the user's garbage tx is still run (and fails)");
    const signals = await readinessSignals(await node.query());
    assert.deepEqual(
      [...signals],
      [[Buffer.from(validatorAddress).toString("hex").toUpperCase(), { plan: "v2", height: height - 1n }]],
    );
    const raw = await (await node.query()).kvStore("upgrade").get(readinessSignalKey(validatorAddress));
    assert.equal(Buffer.from(raw ?? []).toString("hex"), `${(height - 1n).toString(16).padStart(16, "0")}7632`);
    assert.equal(
      await (await node.query()).kvStore("upgrade").get(PLAN_KEY),
      undefined,
      "the seed's keys are untouched",
    );
  });
});

describe("Query/UpgradeReadiness", () => {
  const readiness = async () => {
    const ctx = await node.query();
    const bytes = await node.app.queryRouter.queryBinary(
      "/chain.upgrade.v1beta1.Query/UpgradeReadiness",
      toBinary(QueryUpgradeReadinessRequestSchema, create(QueryUpgradeReadinessRequestSchema)),
      ctx,
    );
    const response = fromBinary(QueryUpgradeReadinessResponseSchema, bytes);
    const rest = gatewayJson(QueryUpgradeReadinessResponseSchema, response, node.app.typeRegistry);
    assert.deepEqual(readinessToJson(response), rest, "the CLI's -o json is REST's JSON");
    return rest;
  };
  const operator = "chainvaloper";

  it("shows every bonded validator not ready while no plan is scheduled, whatever it signalled", async () => {
    const json = (await readiness()) as Record<string, unknown>;
    const signalled = node.app.lastBlockHeight() - 1n;
    assert.equal(json.plan, null);
    assert.equal(json.height, signalled.toString());
    assert.equal(json.ready_power, "0");
    assert.equal(json.total_power, "10");
    assert.equal(json.ready_fraction, "0.000000000000000000");
    const validators = json.validators as Record<string, unknown>[];
    assert.equal(validators.length, 1);
    assert.ok(String(validators[0]?.operator_address).startsWith(`${operator}1`));
    assert.deepEqual(
      { ...validators[0], operator_address: undefined },
      {
        operator_address: undefined,
        power: "10",
        ready: false,
        last_signal_height: signalled.toString(),
      },
    );
  });

  it("counts a validator ready once the scheduled plan is the one it signalled", async () => {
    const plan = newPlan({ name: "v2", height: 10_000n });
    const msg = create(MsgSoftwareUpgradeSchema, { authority: "chain10d07y265gmmuvt4z0w9aw880jnsr700j0q8wax", plan });
    assert.equal((await node.passProposal([packAny(MsgSoftwareUpgradeSchema, msg)])).status, 3);
    const json = (await readiness()) as Record<string, unknown>;
    assert.deepEqual(json.plan, {
      name: "v2",
      time: "0001-01-01T00:00:00Z",
      height: "10000",
      info: "",
      upgraded_client_state: null,
    });
    assert.equal(json.ready_power, "10");
    assert.equal(json.ready_fraction, "1.000000000000000000");
    assert.equal((json.validators as Record<string, unknown>[])[0]?.ready, true);
  });
});
