// Snapshots as a running node uses them: periodic snapshots after commits (app.toml [state-sync])
// and the ABCI snapshot methods for CometBFT state sync, over `<home>/data/snapshots`.
import { join } from "node:path";
import type { Logger } from "pino";
import type { App } from "../app/base-app.ts";
import type { StateSyncConfig } from "../config/app-config.ts";
import { homePaths } from "../config/home.ts";
import { SnapshotManager, type SnapshotManagerOptions } from "./snapshot-manager.ts";
import { SnapshotStore } from "./snapshot-store.ts";
import { StateSync, type StateSyncOptions } from "./state-sync.ts";

/** The snapshot folder of a home. */
export function snapshotDir(home: string): string {
  return join(homePaths(home).dataDir, "snapshots");
}

/**
 * The chunk size for new snapshots: `CHAIND_SNAPSHOT_CHUNK_BYTES` when set (a tuning and testing knob: small chunks
 * make even a small state travel in several chunks), else the format's default. A bad value is reported through
 * `warn` and ignored: it must not keep a validator from starting.
 */
export function chunkSizeFromEnv(
  warn: (message: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): number | undefined {
  const text = env.CHAIND_SNAPSHOT_CHUNK_BYTES;
  if (text === undefined || text === "") return undefined;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1024 || n > 16_000_000) {
    warn(
      `CHAIND_SNAPSHOT_CHUNK_BYTES=${text} ignored: expected a whole number of bytes from 1024 to 16000000 (CometBFT's chunk limit is 16 MB)`,
    );
    return undefined;
  }
  return n;
}

/** What {@link attachSnapshots} set up. */
export interface NodeSnapshots {
  store: SnapshotStore;
  /** Present when app.toml's snapshot-interval is above 0. */
  manager: SnapshotManager | undefined;
  /** The ABCI snapshot handler (CometBFT mode). */
  stateSync: StateSync;
}

/**
 * Hooks periodic snapshots onto `app`'s commits (when `config.snapshotInterval` > 0) and builds the
 * ABCI state-sync handler for it. Call before the node starts producing or receiving blocks.
 */
export function attachSnapshots(options: {
  app: App;
  home: string;
  config: StateSyncConfig;
  logger: Logger;
  chunkSize?: number;
  /** Metrics hooks: each snapshot created and each state-sync restore, with its result and seconds. */
  observer?: {
    onSnapshot?: SnapshotManagerOptions["onSnapshot"];
    onRestore?: StateSyncOptions["onRestore"];
  };
}): NodeSnapshots {
  const { app, config } = options;
  const logger = options.logger.child({ module: "snapshots" });
  const store = new SnapshotStore(snapshotDir(options.home));
  let manager: SnapshotManager | undefined;
  if (config.snapshotInterval > 0n) {
    const m = new SnapshotManager({
      snapshots: store,
      state: () => app.store,
      interval: config.snapshotInterval,
      keepRecent: config.snapshotKeepRecent,
      chunkSize: options.chunkSize ?? chunkSizeFromEnv((message) => logger.warn(message)),
      logger,
      onSnapshot: options.observer?.onSnapshot,
    });
    app.onCommit((height) => m.afterCommit(height));
    manager = m;
  }
  const stateSync = new StateSync({
    snapshots: store,
    app: {
      storeNames: () => app.moduleManager.storeKeys(),
      close: () => app.close(),
      reload: () => app.reload(),
    },
    applicationDb: homePaths(options.home).applicationDb,
    logger,
    onRestore: options.observer?.onRestore,
  });
  return { store, manager, stateSync };
}
