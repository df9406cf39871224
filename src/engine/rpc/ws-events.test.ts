// The events a block publishes on the WebSocket: a Tx event per user tx, none for the proposer's extended commit
// (the block's first tx when vote extensions are on), as the tx index leaves it out too.
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { makeTestChain, type TestChain } from "../../../test/support/engine/fixtures.ts";
import { encodeExtendedCommitTx } from "../../app/extended-commit.ts";
import {
  ExecTxResultSchema,
  ExtendedCommitInfoSchema,
  ResponseFinalizeBlockSchema,
  ResponseInitChainSchema,
} from "../../gen/tendermint/abci/types_pb.js";
import { emptyCommit, genesisState, makeBlock } from "../block-execution.ts";
import { eventsOfBlock } from "./ws-events.ts";

const chains: TestChain[] = [];
after(async () => {
  for (const chain of chains) await chain.cleanup();
});

test("no Tx event for a block's extended-commit tx; the user txs keep their positions", async () => {
  const chain = await makeTestChain();
  chains.push(chain);
  const pv = await chain.privValidator();
  const state = genesisState(chain.genesis, create(ResponseInitChainSchema, {}), 0n);
  const extended = encodeExtendedCommitTx(create(ExtendedCommitInfoSchema, { round: 0 }));
  const user = new TextEncoder().encode("k=v");
  const time = { seconds: state.lastBlockTime.seconds + 1n, nanos: 0 };
  const { block, blockId } = makeBlock(state, [extended, user], emptyCommit(), time, pv.address);
  const results = create(ResponseFinalizeBlockSchema, {
    txResults: [
      create(ExecTxResultSchema, { log: "the previous height's extended commit" }),
      create(ExecTxResultSchema),
    ],
  });
  const published = eventsOfBlock({ block, blockId, results });
  const txEvents = published.filter((event) => event.events["tm.event"]?.includes("Tx"));
  assert.equal(txEvents.length, 1);
  const txResult = (txEvents[0].data as unknown as { value: { TxResult: { index?: number; tx?: string } } }).value
    .TxResult;
  assert.equal(txResult.index, 1);
  assert.equal(txResult.tx, Buffer.from(user).toString("base64"));
  // The block events still count both (the block holds both).
  const blockEvents = published.find((event) => event.events["tm.event"]?.includes("NewBlockEvents"));
  assert.ok(blockEvents !== undefined);
  assert.equal((blockEvents.data as unknown as { value: { num_txs: string } }).value.num_txs, "2");
});
