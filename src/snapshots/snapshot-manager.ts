// Periodic snapshots, as the Cosmos SDK's snapshot manager: after a commit at a multiple of
// app.toml `snapshot-interval` the node starts a snapshot of that height in the background (one
// at a time: a height that comes while one is running is skipped with a log line), then keeps the
// `snapshot-keep-recent` newest. Block production never waits for it.
import type { Logger } from "pino";
import type { CommitMultiStore } from "../store/index.ts";
import { createSnapshot } from "./create-snapshot.ts";
import type { SnapshotInfo, SnapshotStore } from "./snapshot-store.ts";
import { DEFAULT_CHUNK_SIZE } from "./stream-format.ts";

/** Options of {@link SnapshotManager}. */
export interface SnapshotManagerOptions {
  snapshots: SnapshotStore;
  /** The state to read (a function: a state-sync restore replaces the App's store). */
  state: () => CommitMultiStore;
  /** app.toml `snapshot-interval` (0 = off). */
  interval: bigint;
  /** app.toml `snapshot-keep-recent` (0 = keep all). */
  keepRecent: number;
  chunkSize?: number;
  /**
   * Share of the time a background snapshot may keep the event loop busy (default 0.1): the export and the
   * block execution share one thread, and blocks come first.
   */
  duty?: number;
  logger: Logger;
  /** Told of each snapshot's end (metrics): "ok" or "failed" (a cancel is neither), and its seconds. */
  onSnapshot?: (result: "ok" | "failed", seconds: number) => void;
}

/** Takes snapshots every `interval` heights in the background. */
export class SnapshotManager {
  readonly snapshots: SnapshotStore;
  private readonly options: SnapshotManagerOptions;
  private running: Promise<SnapshotInfo | undefined> | undefined;
  /** Cancels the snapshot in progress (a new one per snapshot). */
  private cancel: AbortController | undefined;
  private stopped = false;

  constructor(options: SnapshotManagerOptions) {
    this.options = options;
    this.snapshots = options.snapshots;
  }

  /** Called after each commit: starts a snapshot of `height` when it is due. Never throws, never waits. */
  afterCommit(height: bigint): void {
    const { interval, logger } = this.options;
    if (this.stopped || interval <= 0n || height <= 0n || height % interval !== 0n) return;
    if (this.running !== undefined) {
      logger.info({ height: height.toString() }, "a snapshot is still being written; skipping this height");
      return;
    }
    const started = performance.now();
    const cancel = new AbortController();
    this.cancel = cancel;
    const job = createSnapshot(
      this.options.state(),
      this.snapshots,
      height,
      this.options.chunkSize ?? DEFAULT_CHUNK_SIZE,
      { duty: this.options.duty ?? 0.1, signal: cancel.signal },
    )
      .then(async (info) => {
        logger.info(
          {
            height: height.toString(),
            format: info.format,
            chunks: info.chunks,
            ms: Math.round(performance.now() - started),
          },
          "snapshot created",
        );
        this.options.onSnapshot?.("ok", (performance.now() - started) / 1000);
        // The snapshot stands whatever happens here: a failure to delete old ones is reported as that.
        try {
          const pruned = await this.snapshots.prune(this.options.keepRecent);
          for (const p of pruned)
            logger.info({ height: p.height.toString(), format: p.format }, "old snapshot deleted");
        } catch (err) {
          logger.error({ err, keepRecent: this.options.keepRecent }, "failed to delete old snapshots");
        }
        return info;
      })
      .catch((err: unknown) => {
        if (cancel.signal.aborted) {
          logger.info({ height: height.toString() }, "snapshot cancelled: the node is stopping");
          return undefined;
        }
        logger.error({ err, height: height.toString() }, "failed to create a snapshot");
        this.options.onSnapshot?.("failed", (performance.now() - started) / 1000);
        return undefined;
      })
      .finally(() => {
        this.running = undefined;
        this.cancel = undefined;
      });
    this.running = job;
  }

  /**
   * Cancels the snapshot in progress (its temporary folder is removed; finished snapshots stay) and starts no
   * more; resolves once it has let go of the state. A stopping node calls this: a paced snapshot of a large
   * state takes minutes, longer than a supervisor's grace before it kills the process.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancel?.abort(new Error("the node is stopping"));
    await this.running;
  }

  /** Resolves once the snapshot in progress (if any) is finished. */
  async idle(): Promise<void> {
    await this.running;
  }
}
