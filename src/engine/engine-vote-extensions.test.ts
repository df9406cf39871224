// The embedded engine with vote extensions on (genesis `abci.vote_extensions_enable_height`): as CometBFT, it asks the
// app for its validator's extension before FinalizeBlock(H), signs it over the canonical vote-extension sign bytes,
// and hands it to the next proposal's PrepareProposal in `local_last_commit`, also after a restart.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { makeTestChain, type TestChain, waitForHeight } from "../../test/support/engine/fixtures.ts";
import { KvApp } from "../../test/support/engine/kv-app.ts";
import { voteExtensionSignBytes } from "../app/extended-commit.ts";
import { verifyEd25519 } from "../crypto/ed25519.ts";
import {
  type ExtendedCommitInfo,
  type RequestExtendVote,
  type RequestPrepareProposal,
  type ResponseExtendVote,
  ResponseExtendVoteSchema,
  type ResponsePrepareProposal,
} from "../gen/tendermint/abci/types_pb.js";
import { BlockIDFlag } from "../gen/tendermint/types/validator_pb.js";
import { Engine } from "./engine.ts";

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** The KV app with an extension per height, remembering what each proposal was handed. */
class ExtendingKvApp extends KvApp {
  readonly extended: bigint[] = [];
  readonly lastCommits = new Map<bigint, ExtendedCommitInfo>();
  async extendVote(request: RequestExtendVote): Promise<ResponseExtendVote> {
    this.extended.push(request.height);
    return create(ResponseExtendVoteSchema, { voteExtension: new TextEncoder().encode(`ready-at-${request.height}`) });
  }
  override async prepareProposal(request: RequestPrepareProposal): Promise<ResponsePrepareProposal> {
    if (request.localLastCommit !== undefined) this.lastCommits.set(request.height, request.localLastCommit);
    return super.prepareProposal(request);
  }
}

const chains: TestChain[] = [];
after(async () => {
  for (const c of chains) await c.cleanup();
});

async function run(chain: TestChain, app: ExtendingKvApp, until: bigint): Promise<void> {
  const store = await chain.openStore();
  const engine = await Engine.start({
    app,
    store,
    genesis: chain.genesis,
    privValidator: await chain.privValidator(),
    consensus: { timeoutCommitMs: 5, createEmptyBlocks: true, createEmptyBlocksIntervalMs: 0 },
  });
  const running = engine.run();
  await waitForHeight(engine, until);
  await engine.stop();
  await running;
  await engine.store.close();
}

describe("engine: vote extensions", () => {
  it("extends its precommits from the enable height on and hands the signed extension to the next proposal", async () => {
    const chain = await makeTestChain({
      extra: {
        consensus_params: {
          block: { max_bytes: "22020096", max_gas: "-1" },
          evidence: { max_age_num_blocks: "100000", max_age_duration: "172800000000000", max_bytes: "1048576" },
          validator: { pub_key_types: ["ed25519"] },
          version: { app: "0" },
          abci: { vote_extensions_enable_height: "3" },
        },
      },
    });
    chains.push(chain);
    const pv = await chain.privValidator();
    const app = new ExtendingKvApp({ file: chain.appFile });
    await run(chain, app, 6n);
    assert.ok(!app.extended.includes(1n) && !app.extended.includes(2n), "nothing before the enable height");
    assert.deepEqual(app.extended.slice(0, 3), [3n, 4n, 5n]);
    for (const height of [2n, 3n]) {
      assert.equal(app.lastCommits.get(height)?.votes[0]?.voteExtension.length ?? 0, 0, `no extension in ${height}`);
    }
    for (const height of [4n, 5n, 6n]) {
      const vote = app.lastCommits.get(height)?.votes[0];
      assert.ok(vote, `proposal ${height} has the last commit`);
      assert.equal(vote.blockIdFlag, BlockIDFlag.BLOCK_ID_FLAG_COMMIT);
      assert.equal(text(vote.voteExtension), `ready-at-${height - 1n}`);
      const signBytes = voteExtensionSignBytes(vote.voteExtension, height - 1n, 0n, "test-chain");
      assert.ok(verifyEd25519(pv.pubKey, signBytes, vote.extensionSignature), `signature of ${height - 1n}`);
    }

    // After a restart the engine has no extension of its last precommit in memory: it asks the app again.
    const top = app.lastCommits.size + 1;
    const restarted = new ExtendingKvApp({ file: chain.appFile });
    await run(chain, restarted, BigInt(top) + 2n);
    const first = [...restarted.lastCommits.keys()].sort((a, b) => (a < b ? -1 : 1))[0] as bigint;
    const vote = restarted.lastCommits.get(first)?.votes[0];
    assert.ok(vote);
    assert.equal(text(vote.voteExtension), `ready-at-${first - 1n}`);
    const signBytes = voteExtensionSignBytes(vote.voteExtension, first - 1n, 0n, "test-chain");
    assert.ok(verifyEd25519(pv.pubKey, signBytes, vote.extensionSignature));
  });
});
