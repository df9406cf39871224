// The source home's blocks: the header of H+1 gives the upgrade block its time and proposer, block H's time the
// fallback, and `--follow` re-executes the blocks after H with their recorded results to compare against. The
// source is never written, and opening LevelDB writes (its lock, its log replayed into a new table, a new MANIFEST
// and CURRENT, four syncs), so the store is read from its files where they lie (BlockStore.readFiles,
// src/store/level-files.ts) when no process holds it; a store in use by a running node, or one that reader does not
// read exactly as LevelDB would (damage among it), is read as before from a temporary copy of it opened through
// LevelDB — and so is any read that fails on the files, so every error is the one the copy gives.
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
import { levelLockHeldAsync } from "../../store/level-lock-probe.ts";
import { copyLevelDb } from "./level-copy.ts";

/** The source's blocks, or none (a snapshot, or a CometBFT home whose blocks live in CometBFT's own store). */
export interface SourceBlocks {
  /** The highest height the source holds a block of (0 when it holds none). */
  readonly tip: bigint;
  /** FinalizeBlock's request for block `height` as the source's engine sent it; undefined when not held. */
  request(height: bigint): Promise<RequestFinalizeBlock | undefined>;
  /** What the source's app answered for block `height`; undefined when not held. */
  results(height: bigint): Promise<ResponseFinalizeBlock | undefined>;
  /** Closes the store, and removes its copy when one was made. */
  close(): Promise<void>;
}

const NONE: SourceBlocks = {
  tip: 0n,
  request: async () => undefined,
  results: async () => undefined,
  close: async () => undefined,
};

/** Opens `blocksDb` when there is one: read where it lies, or from a copy in `workDir` (see the file comment). */
export async function openSourceBlocks(blocksDb: string | undefined, workDir: string): Promise<SourceBlocks> {
  if (blocksDb === undefined || !existsSync(join(blocksDb, "CURRENT"))) return NONE;
  const copied = () => openCopy(blocksDb, workDir);
  // Asked in the thread pool: the lock table's read waits milliseconds off the CPU, while the rehearsal makes the
  // state's work copy (level-lock-probe.ts).
  if ((await levelLockHeldAsync(blocksDb)) === true) return sourceOf(await copied());
  const files = await BlockStore.readFiles(blocksDb).catch(() => undefined);
  return files === undefined ? sourceOf(await copied()) : withFallback(files, copied);
}

/** A copy of `blocksDb` in `workDir`, opened through LevelDB; removed when closed. */
async function openCopy(blocksDb: string, workDir: string): Promise<{ store: BlockStore; remove: () => void }> {
  const copy = join(workDir, "source-blocks.db");
  await copyLevelDb(blocksDb, copy);
  const store = await BlockStore.open(copy, { createIfMissing: false });
  return { store, remove: () => rmSync(copy, { recursive: true, force: true }) }; // a few files: one call
}

/** The source's blocks served by `store`. */
function sourceOf({ store, remove }: { store: BlockStore; remove?: () => void }): SourceBlocks {
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
      remove?.();
    },
  };
}

/**
 * The blocks read from the store's files (`files`), until a read fails there: from then on (that read again
 * included) they are read from the copy `copied` opens, which fails, or not, as the rehearsal always did.
 */
function withFallback(
  files: BlockStore,
  copied: () => Promise<{ store: BlockStore; remove: () => void }>,
): SourceBlocks {
  const direct = sourceOf({ store: files });
  let fallback: Promise<SourceBlocks> | undefined;
  const viaCopy = (): Promise<SourceBlocks> => {
    fallback ??= files.close().then(async () => sourceOf(await copied()));
    return fallback;
  };
  async function read<T>(call: (source: SourceBlocks) => Promise<T>): Promise<T> {
    if (fallback === undefined) {
      try {
        return await call(direct);
      } catch {
        // the copy answers instead (below)
      }
    }
    return call(await viaCopy());
  }
  return {
    tip: direct.tip,
    request: (height) => read((source) => source.request(height)),
    results: (height) => read((source) => source.results(height)),
    async close() {
      if (fallback === undefined) await files.close();
      else await (await fallback).close();
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
