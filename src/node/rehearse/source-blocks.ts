// The source home's blocks, read from a temporary copy of its data/blocks.db (opening LevelDB takes its lock and
// may write its log files, and the source is never written): the header of H+1 gives the upgrade block its time
// and proposer, and `--follow` re-executes the blocks after H with their recorded results to compare against.
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { toProtoTimestamp } from "../../engine/block-execution.ts";
import { BlockStore } from "../../engine/block-store.ts";
import {
  type RequestFinalizeBlock,
  RequestFinalizeBlockSchema,
  type ResponseFinalizeBlock,
} from "../../gen/tendermint/abci/types_pb.js";
import { copyLevelDb } from "./level-copy.ts";

/** The source's blocks, or none (a snapshot, or a CometBFT home whose blocks live in CometBFT's own store). */
export interface SourceBlocks {
  /** The highest height the source holds a block of (0 when it holds none). */
  readonly tip: bigint;
  /** FinalizeBlock's request for block `height` as the source's engine sent it; undefined when not held. */
  request(height: bigint): Promise<RequestFinalizeBlock | undefined>;
  /** What the source's app answered for block `height`; undefined when not held. */
  results(height: bigint): Promise<ResponseFinalizeBlock | undefined>;
  /** Closes the copy and removes it. */
  close(): Promise<void>;
}

const NONE: SourceBlocks = {
  tip: 0n,
  request: async () => undefined,
  results: async () => undefined,
  close: async () => undefined,
};

/** Opens a copy (in `workDir`) of `blocksDb` when there is one. */
export async function openSourceBlocks(blocksDb: string | undefined, workDir: string): Promise<SourceBlocks> {
  if (blocksDb === undefined || !existsSync(join(blocksDb, "CURRENT"))) return NONE;
  const copy = join(workDir, "source-blocks.db");
  await copyLevelDb(blocksDb, copy);
  const store = await BlockStore.open(copy, { createIfMissing: false });
  return {
    tip: store.height,
    async request(height) {
      if (height > store.height || height < store.base) return undefined;
      const stored = await store.block(height);
      if (stored === undefined) return undefined;
      const { block, blockId } = stored;
      return create(RequestFinalizeBlockSchema, {
        txs: block.txs,
        misbehavior: [],
        hash: blockId.hash,
        height: block.header.height,
        time: toProtoTimestamp(block.header.time),
        nextValidatorsHash: block.header.nextValidatorsHash,
        proposerAddress: block.header.proposerAddress,
      });
    },
    async results(height) {
      if (height > store.height || height < store.base) return undefined;
      return store.results(height);
    },
    async close() {
      await store.close();
      rmSync(copy, { recursive: true, force: true }); // a few files: one call, not a trip per file
    },
  };
}

/** The time of block `height` as the engine state in `blocksDb` records it (a restored snapshot's), if it does. */
export async function recordedBlockTime(blocksDb: string, height: bigint): Promise<Timestamp | undefined> {
  if (!existsSync(join(blocksDb, "CURRENT"))) return undefined;
  const store = await BlockStore.open(blocksDb, { createIfMissing: false });
  try {
    const state = store.state;
    return state !== undefined && state.lastBlockHeight === height ? toProtoTimestamp(state.lastBlockTime) : undefined;
  } finally {
    await store.close();
  }
}
