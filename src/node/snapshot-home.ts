// What `chaind snapshots ...` does on a home (upstream's snapshots tree), so an operator can take a
// snapshot of a stopped node, move it by hand (dump → load) and restore it on another machine:
// - list: the snapshots under data/snapshots;
// - export [--height]: a snapshot of a committed height (default the latest) of this home's state;
// - dump <height> <format>: one .tar.gz holding the snapshot (and, for an embedded-engine home, the
//   engine state at that height, so the restored home can go on producing blocks);
// - load <archive>: checks an archive's chunks against their hashes and adds it to data/snapshots;
// - restore <height> <format>: rebuilds data/application.db from a local snapshot (a fresh home only)
//   and, when the snapshot carries one, starts the embedded engine's block store at that height;
// - delete <height> <format>.
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { pino } from "pino";
import { create as createTar, extract as extractTar } from "tar";
import { homePaths } from "../config/home.ts";
import { BlockStore } from "../engine/block-store.ts";
import {
  decodeEngineBootstrap,
  type EngineBootstrap,
  encodeEngineBootstrap,
  engineBootstrapAt,
} from "../engine/bootstrap-state.ts";
import { buildChainApp } from "../runtime/build-app.ts";
import { currentChain } from "../runtime/current-chain.ts";
import type { ChainDefinition, Release } from "../runtime/release.ts";
import {
  createSnapshot,
  DEFAULT_CHUNK_SIZE,
  decodeChunks,
  installState,
  SnapshotError,
  type SnapshotInfo,
  SnapshotNotFoundError,
  SnapshotStore,
  snapshotDir,
} from "../snapshots/index.ts";
import { readLastCommittedVersion } from "../store/index.ts";
import { loadNodeSettings } from "./node-settings.ts";

/** The sidecar file carrying the embedded engine's state at the snapshot height. */
export const ENGINE_STATE_FILE = "engine-state.json";
const DESCRIPTOR = "snapshot.json";

/** The snapshots of a home, newest first. */
export async function listHomeSnapshots(home: string): Promise<SnapshotInfo[]> {
  return new SnapshotStore(snapshotDir(home)).list();
}

/**
 * Takes a snapshot of `height` (default: the latest committed height) of a stopped node's state.
 * Fails with the store's DataDirectoryLockedError while the node runs.
 */
export async function exportHomeSnapshot(options: {
  home: string;
  height?: bigint;
  /** The chain (default: the one this process serves) and its release (default: the chain's current). */
  chain?: ChainDefinition;
  release?: Release;
  chunkSize?: number;
}): Promise<SnapshotInfo> {
  const settings = await loadNodeSettings(options.home);
  const chain = await buildChainApp({
    chain: options.chain ?? currentChain(),
    home: settings.home,
    chainId: settings.genesis.chainId,
    logger: pino({ level: "silent" }),
    release: options.release,
    pruning: settings.appConfig.pruning,
  });
  const snapshots = new SnapshotStore(snapshotDir(settings.home));
  let info: SnapshotInfo;
  try {
    const latest = chain.app.lastBlockHeight();
    if (latest === 0n) throw new SnapshotError("nothing is committed in this home yet; there is no state to snapshot");
    const height = options.height ?? latest;
    if (height > latest) {
      throw new SnapshotError(`cannot snapshot height ${height}: the latest committed height is ${latest}`);
    }
    info = await createSnapshot(chain.app.store, snapshots, height, options.chunkSize ?? DEFAULT_CHUNK_SIZE);
  } finally {
    await chain.app.close();
  }
  await attachEngineState(settings.home, snapshots, info);
  return info;
}

/** Writes the engine state at the snapshot's height beside it when this home's block store can give it. */
async function attachEngineState(home: string, snapshots: SnapshotStore, info: SnapshotInfo): Promise<boolean> {
  const target = snapshots.sidecar(info.height, info.format, ENGINE_STATE_FILE);
  if (existsSync(target)) return true;
  const blocksDb = homePaths(home).blocksDb;
  if (!existsSync(blocksDb)) return false;
  let store: BlockStore;
  try {
    store = await BlockStore.open(blocksDb);
  } catch {
    return false; // locked by a running node, or not an engine home: the snapshot is still complete
  }
  try {
    const bootstrap = await engineBootstrapAt(store, info.height);
    if (bootstrap === undefined) return false;
    await writeFile(target, encodeEngineBootstrap(bootstrap));
    return true;
  } finally {
    await store.close();
  }
}

/** Writes snapshot `height`/`format` as a .tar.gz (default `<height>-<format>.tar.gz` in the working directory). */
export async function dumpHomeSnapshot(options: {
  home: string;
  height: bigint;
  format: number;
  out?: string;
}): Promise<{ archive: string; info: SnapshotInfo; engineState: boolean }> {
  const snapshots = new SnapshotStore(snapshotDir(options.home));
  const info = await snapshots.get(options.height, options.format);
  if (info === undefined) throw new SnapshotNotFoundError(options.height, options.format);
  const engineState = await attachEngineState(options.home, snapshots, info);
  const archive = resolve(options.out ?? `${options.height}-${options.format}.tar.gz`);
  const files = [DESCRIPTOR, ...Array.from({ length: info.chunks }, (_, i) => String(i))];
  if (engineState) files.push(ENGINE_STATE_FILE);
  await createTar(
    { gzip: true, file: archive, cwd: snapshots.folder(info.height, info.format), portable: true },
    files,
  );
  return { archive, info, engineState };
}

/** Adds the snapshot in `archive` (made by dump) to this home's snapshots, checking every chunk and the whole hash. */
export async function loadHomeSnapshot(options: { home: string; archive: string }): Promise<SnapshotInfo> {
  const archive = resolve(options.archive);
  if (!existsSync(archive))
    throw new SnapshotError(`${archive}: no such file; expected a .tar.gz written by \`chaind snapshots dump\``);
  const tmp = await mkdtemp(join(tmpdir(), "chaind-snapshot-load-"));
  try {
    try {
      await extractTar({ file: archive, cwd: tmp, strict: true });
    } catch (err) {
      throw new SnapshotError(
        `${basename(archive)} is not a snapshot archive (a .tar.gz from \`chaind snapshots dump\`): ${(err as Error).message}`,
        { cause: err },
      );
    }
    if (!existsSync(join(tmp, DESCRIPTOR))) {
      throw new SnapshotError(
        `${basename(archive)} holds no ${DESCRIPTOR}; expected an archive from \`chaind snapshots dump\``,
      );
    }
    // Read the archive's descriptor through a store rooted at a fake layout: <tmp>/layout/<h>/<f>.
    let described: { height: string; format: number; chunks: number; hash: string; chunk_hashes: string[] };
    try {
      described = JSON.parse(await readFile(join(tmp, DESCRIPTOR), "utf8"));
      BigInt(described.height);
    } catch (err) {
      throw new SnapshotError(
        `the ${DESCRIPTOR} in ${basename(archive)} is not valid JSON: ${(err as Error).message}`,
        { cause: err },
      );
    }
    const height = BigInt(described.height);
    const format = described.format;
    const count = described.chunks;
    if (
      !Number.isSafeInteger(count) ||
      count < 1 ||
      !Array.isArray(described.chunk_hashes) ||
      described.chunk_hashes.length !== count
    ) {
      throw new SnapshotError(
        `the ${DESCRIPTOR} in ${basename(archive)} lists ${described.chunk_hashes?.length} chunk hashes for ${count} chunks`,
      );
    }
    const snapshots = new SnapshotStore(snapshotDir(options.home));
    async function* chunks(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < count; i++) {
        let chunk: Buffer;
        try {
          chunk = await readFile(join(tmp, String(i)));
        } catch {
          throw new SnapshotError(`${basename(archive)} is missing chunk ${i} of ${count}`);
        }
        const digest = createHash("sha256").update(chunk).digest("hex").toUpperCase();
        if (digest !== String(described.chunk_hashes[i]).toUpperCase()) {
          throw new SnapshotError(
            `chunk ${i} in ${basename(archive)} does not match its hash (the archive is damaged)`,
          );
        }
        yield new Uint8Array(chunk);
      }
    }
    const info = await snapshots.save(height, format, chunks());
    if (Buffer.from(info.hash).toString("hex").toUpperCase() !== String(described.hash).toUpperCase()) {
      await snapshots.delete(height, format);
      throw new SnapshotError(`the chunks in ${basename(archive)} do not add up to the snapshot hash it declares`);
    }
    if (existsSync(join(tmp, ENGINE_STATE_FILE))) {
      await copyFile(join(tmp, ENGINE_STATE_FILE), snapshots.sidecar(height, format, ENGINE_STATE_FILE));
    }
    return info;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/**
 * Rebuilds this home's application state from local snapshot `height`/`format`. The home must not
 * have committed state yet (a fresh `chaind init` with the chain's genesis). When the snapshot carries
 * the embedded engine's state and the block store is empty, the block store starts at that height.
 */
export async function restoreHomeSnapshot(options: {
  home: string;
  height: bigint;
  format: number;
  /** The chain (default: the one this process serves) and its release (default: the chain's current). */
  chain?: ChainDefinition;
  release?: Release;
}): Promise<{ info: SnapshotInfo; appHash: Uint8Array; engineBootstrapped: boolean }> {
  const settings = await loadNodeSettings(options.home);
  const paths = homePaths(settings.home);
  const snapshots = new SnapshotStore(snapshotDir(settings.home));
  const info = await snapshots.get(options.height, options.format);
  if (info === undefined) throw new SnapshotNotFoundError(options.height, options.format);
  const committed = await readLastCommittedVersion(paths.applicationDb);
  if (committed > 0n) {
    throw new SnapshotError(
      `this home already has state at height ${committed}; restore into a fresh home (or remove ${paths.applicationDb} and ${paths.blocksDb} first)`,
    );
  }
  const chain = await buildChainApp({
    chain: options.chain ?? currentChain(),
    home: settings.home,
    chainId: settings.genesis.chainId,
    logger: pino({ level: "silent" }),
    release: options.release,
    backend: "memory",
    deferLoad: true,
  });
  let bootstrap: EngineBootstrap | undefined;
  const sidecar = snapshots.sidecar(info.height, info.format, ENGINE_STATE_FILE);
  if (existsSync(sidecar)) bootstrap = decodeEngineBootstrap(await readFile(sidecar, "utf8"));
  const restored = await installState({
    applicationDb: paths.applicationDb,
    height: info.height,
    items: decodeChunks(snapshots.chunks(info)),
    storeNames: chain.moduleManager.storeKeys(),
    expectedAppHash: bootstrap?.state.appHash,
  });
  let engineBootstrapped = false;
  if (bootstrap !== undefined) {
    const store = await BlockStore.open(paths.blocksDb);
    try {
      if (store.state === undefined) {
        await store.bootstrap(bootstrap.state, bootstrap.seenCommit);
        engineBootstrapped = true;
      }
    } finally {
      await store.close();
    }
  }
  return { info, appHash: restored.appHash, engineBootstrapped };
}

/** Deletes local snapshot `height`/`format`. */
export async function deleteHomeSnapshot(options: { home: string; height: bigint; format: number }): Promise<void> {
  await new SnapshotStore(snapshotDir(options.home)).delete(options.height, options.format);
}

/** Names of the files in a snapshot folder (for tests and diagnostics). */
export async function snapshotFiles(home: string, height: bigint, format: number): Promise<string[]> {
  return (await readdir(new SnapshotStore(snapshotDir(home)).folder(height, format))).sort();
}
