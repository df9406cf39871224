// State sync over ABCI: serving this node's snapshots to peers (ListSnapshots, LoadSnapshotChunk)
// and restoring one a peer offers (OfferSnapshot, ApplySnapshotChunk), with upstream's answers:
// - OfferSnapshot: REJECT_FORMAT for a format other than ours; REJECT for a snapshot whose
//   metadata is not a chunk-hash list matching its chunk count; ACCEPT otherwise (a new offer
//   replaces a restore in progress, as the SDK's manager does).
// - ApplySnapshotChunk: a chunk whose sha256 differs from the metadata's is answered RETRY with
//   that chunk in refetch_chunks and its sender in reject_senders (CometBFT refetches it from
//   another peer); ABORT without an accepted offer; after the last chunk the state is imported,
//   its app hash checked against the one CometBFT's light client verified (REJECT_SNAPSHOT on a
//   mismatch or a malformed stream, and the node's state is left untouched), swapped into
//   data/application.db and the App reopened at the snapshot height.
import { createHash } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import type { Logger } from "pino";
import type { AbciSnapshotHandler } from "../abci/snapshot-handler.ts";
import {
  type RequestApplySnapshotChunk,
  type RequestLoadSnapshotChunk,
  type RequestOfferSnapshot,
  type ResponseApplySnapshotChunk,
  ResponseApplySnapshotChunk_Result,
  ResponseApplySnapshotChunkSchema,
  type ResponseListSnapshots,
  ResponseListSnapshotsSchema,
  type ResponseLoadSnapshotChunk,
  ResponseLoadSnapshotChunkSchema,
  type ResponseOfferSnapshot,
  ResponseOfferSnapshot_Result,
  ResponseOfferSnapshotSchema,
  SnapshotSchema,
} from "../gen/tendermint/abci/types_pb.js";
import type { CommitInfo } from "../store/index.ts";
import { ChunkFeed } from "./chunk-feed.ts";
import { installState } from "./install-state.ts";
import { decodeMetadata } from "./metadata.ts";
import { metadataOf, type SnapshotStore } from "./snapshot-store.ts";
import { decodeChunks, SNAPSHOT_FORMAT } from "./stream-format.ts";

/** The App as state sync needs it. */
export interface RestorableApp {
  /** The stores the release declares. */
  storeNames(): string[];
  /** Closes the App's store (before its directory is replaced). */
  close(): Promise<void>;
  /** Opens the (replaced) store again. */
  reload(): Promise<void>;
}

/** Options of {@link StateSync}. */
export interface StateSyncOptions {
  snapshots: SnapshotStore;
  app: RestorableApp;
  /** `<home>/data/application.db`. */
  applicationDb: string;
  logger: Logger;
  /** Told of each restore's end (metrics): "ok" or "failed", and the seconds since the snapshot was accepted. */
  onRestore?: (result: "ok" | "failed", seconds: number) => void;
}

interface Restore {
  height: bigint;
  format: number;
  appHash: Uint8Array;
  chunkHashes: Uint8Array[];
  /** The next chunk index the import needs. */
  next: number;
  /** Verified chunks that arrived ahead of their turn. */
  early: Map<number, Uint8Array>;
  /** Chunks on their way to the import, which runs as they arrive. */
  feed: ChunkFeed;
  /** The import (into a directory beside the App's; swapped in at the end). Never rejects: see `error`. */
  importing: Promise<CommitInfo | undefined>;
  error: unknown;
  started: number;
}

/** Counters of the last completed restore (for logs and tests). */
export interface RestoreReport {
  height: bigint;
  chunks: number;
  refetched: number;
  ms: number;
}

/** The ABCI snapshot methods over a home's snapshot store and App. */
export class StateSync implements AbciSnapshotHandler {
  private readonly options: StateSyncOptions;
  private restore: Restore | undefined;
  private refetched = 0;
  /** Set once a restore has completed. */
  lastRestore: RestoreReport | undefined;

  constructor(options: StateSyncOptions) {
    this.options = options;
  }

  async listSnapshots(): Promise<ResponseListSnapshots> {
    const snapshots = (await this.options.snapshots.list()).map((info) =>
      create(SnapshotSchema, {
        height: info.height,
        format: info.format,
        chunks: info.chunks,
        hash: info.hash,
        metadata: metadataOf(info),
      }),
    );
    return create(ResponseListSnapshotsSchema, { snapshots });
  }

  async loadSnapshotChunk(request: RequestLoadSnapshotChunk): Promise<ResponseLoadSnapshotChunk> {
    const chunk = await this.options.snapshots.loadChunk(request.height, request.format, request.chunk);
    return create(ResponseLoadSnapshotChunkSchema, { chunk: chunk ?? new Uint8Array() });
  }

  async offerSnapshot(request: RequestOfferSnapshot): Promise<ResponseOfferSnapshot> {
    const answer = (result: ResponseOfferSnapshot_Result) => create(ResponseOfferSnapshotSchema, { result });
    const { logger } = this.options;
    const s = request.snapshot;
    if (s === undefined) return answer(ResponseOfferSnapshot_Result.REJECT);
    const where = { height: s.height.toString(), format: s.format, chunks: s.chunks };
    if (s.format !== SNAPSHOT_FORMAT) {
      logger.info(
        { ...where, supported: SNAPSHOT_FORMAT },
        "snapshot offered in an unknown format; rejecting the format",
      );
      return answer(ResponseOfferSnapshot_Result.REJECT_FORMAT);
    }
    let chunkHashes: Uint8Array[];
    try {
      chunkHashes = decodeMetadata(s.metadata);
    } catch (err) {
      logger.info({ ...where, err }, "snapshot offered with invalid metadata; rejecting it");
      return answer(ResponseOfferSnapshot_Result.REJECT);
    }
    if (s.height <= 0n || s.chunks === 0 || chunkHashes.length !== s.chunks || request.appHash.length === 0) {
      logger.info(
        { ...where, hashes: chunkHashes.length },
        "snapshot offered with an inconsistent chunk count or no app hash; rejecting it",
      );
      return answer(ResponseOfferSnapshot_Result.REJECT);
    }
    if (this.restore !== undefined) {
      logger.info({ height: this.restore.height.toString() }, "abandoning the restore in progress for a new offer");
      await this.abandon(this.restore);
    }
    this.restore = this.startRestore(s.height, s.format, request.appHash, chunkHashes);
    this.refetched = 0;
    logger.info(where, "snapshot accepted; restoring");
    return answer(ResponseOfferSnapshot_Result.ACCEPT);
  }

  async applySnapshotChunk(request: RequestApplySnapshotChunk): Promise<ResponseApplySnapshotChunk> {
    const answer = (
      result: ResponseApplySnapshotChunk_Result,
      extra: { refetchChunks?: number[]; rejectSenders?: string[] } = {},
    ) => create(ResponseApplySnapshotChunkSchema, { result, ...extra });
    const { logger } = this.options;
    const restore = this.restore;
    if (restore === undefined) {
      logger.error(
        { index: request.index },
        "snapshot chunk received without an accepted snapshot; aborting state sync",
      );
      return answer(ResponseApplySnapshotChunk_Result.ABORT);
    }
    const count = restore.chunkHashes.length;
    if (request.index >= count) {
      logger.error(
        { index: request.index, chunks: count },
        "snapshot chunk index out of range; rejecting the snapshot",
      );
      await this.abandon(restore);
      return answer(ResponseApplySnapshotChunk_Result.REJECT_SNAPSHOT);
    }
    const digest = createHash("sha256").update(request.chunk).digest();
    if (!digest.equals(Buffer.from(restore.chunkHashes[request.index]))) {
      this.refetched++;
      logger.warn(
        { index: request.index, sender: request.sender },
        "snapshot chunk does not match its hash; refetching it and rejecting its sender",
      );
      return answer(ResponseApplySnapshotChunk_Result.RETRY, {
        refetchChunks: [request.index],
        rejectSenders: request.sender === "" ? [] : [request.sender],
      });
    }
    if (request.index >= restore.next) restore.early.set(request.index, request.chunk);
    for (let chunk = restore.early.get(restore.next); chunk !== undefined; chunk = restore.early.get(restore.next)) {
      restore.early.delete(restore.next);
      restore.feed.push(chunk);
      restore.next++;
    }
    if (restore.next < count) {
      // Back-pressure: answer once the import has taken the chunk, so memory holds about one chunk at a time.
      await Promise.race([restore.feed.drained(), restore.importing]);
      if (restore.error === undefined) return answer(ResponseApplySnapshotChunk_Result.ACCEPT);
    } else {
      restore.feed.end();
    }
    const info = await restore.importing;
    this.restore = undefined;
    const { app } = this.options;
    if (info === undefined) {
      logger.error(
        { err: restore.error, height: restore.height.toString() },
        "the snapshot cannot be restored; rejecting it",
      );
      this.options.onRestore?.("failed", (performance.now() - restore.started) / 1000);
      // The App's store may have been closed just before a failed swap: reopen whatever is in place.
      await app.reload().catch((e: unknown) => logger.error({ err: e }, "cannot reopen the state store"));
      return answer(ResponseApplySnapshotChunk_Result.REJECT_SNAPSHOT);
    }
    try {
      await app.reload();
    } catch (err) {
      logger.error({ err }, "the restored state cannot be opened; rejecting the snapshot");
      this.options.onRestore?.("failed", (performance.now() - restore.started) / 1000);
      return answer(ResponseApplySnapshotChunk_Result.REJECT_SNAPSHOT);
    }
    const report: RestoreReport = {
      height: info.version,
      chunks: count,
      refetched: this.refetched,
      ms: Math.round(performance.now() - restore.started),
    };
    this.lastRestore = report;
    this.options.onRestore?.("ok", report.ms / 1000);
    logger.info(
      { height: report.height.toString(), chunks: report.chunks, refetched: report.refetched, ms: report.ms },
      "state restored from a snapshot",
    );
    return answer(ResponseApplySnapshotChunk_Result.ACCEPT);
  }

  /** Starts the import of an accepted snapshot, fed chunk by chunk. */
  private startRestore(height: bigint, format: number, appHash: Uint8Array, chunkHashes: Uint8Array[]): Restore {
    const { app, applicationDb } = this.options;
    const feed = new ChunkFeed();
    const restore: Restore = {
      height,
      format,
      appHash,
      chunkHashes,
      next: 0,
      early: new Map(),
      feed,
      importing: Promise.resolve(undefined),
      error: undefined,
      started: performance.now(),
    };
    restore.importing = installState({
      applicationDb,
      height,
      items: decodeChunks(feed),
      storeNames: app.storeNames(),
      expectedAppHash: appHash,
      beforeSwap: () => app.close(),
    }).catch((err: unknown) => {
      restore.error = err;
      return undefined;
    });
    return restore;
  }

  /** Stops a restore in progress and waits until its import has cleaned up. */
  private async abandon(restore: Restore): Promise<void> {
    if (this.restore === restore) this.restore = undefined;
    restore.feed.fail(new Error("the restore was abandoned"));
    await restore.importing;
  }
}
