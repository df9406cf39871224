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
import { readdir, readFile, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { pino } from "pino";
import { create as createTar } from "tar";
import { currentBinaryName, homePaths } from "../config/home.ts";
import { liesWithin } from "../config/path-within.ts";
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
  ENGINE_STATE_FILE,
  installState,
  lockRestore,
  parseDescriptorText,
  SnapshotError,
  SnapshotFormatError,
  type SnapshotInfo,
  SnapshotNotFoundError,
  SnapshotStore,
  snapshotDir,
  unpackSnapshotArchive,
} from "../snapshots/index.ts";
import { readLastCommittedVersion } from "../store/index.ts";
import { loadNodeSettings } from "./node-settings.ts";

export { ENGINE_STATE_FILE };

const DESCRIPTOR = "snapshot.json";

/** The snapshots of a home, newest first. */
export async function listHomeSnapshots(home: string): Promise<SnapshotInfo[]> {
  return (await homeSnapshotStore(home)).list();
}

/**
 * The snapshot store of an existing home. A home that does not exist or is not a folder, or whose data/snapshots is
 * a file, is one line naming it (not the file system's ENOENT/ENOTDIR from deep inside a read); a home without a
 * data/snapshots folder yet simply has no snapshots, and nothing is created here.
 */
async function homeSnapshotStore(home: string): Promise<SnapshotStore> {
  const paths = homePaths(home);
  if (!(await stat(paths.dataDir).catch(() => undefined))?.isDirectory()) throw notAHome(paths.home);
  const dir = snapshotDir(home);
  const folder = await stat(dir).catch(() => undefined);
  if (folder !== undefined && !folder.isDirectory()) {
    throw new SnapshotError(`${dir} is not a folder; expected the home's snapshots folder (data/snapshots)`);
  }
  return new SnapshotStore(dir);
}

function notAHome(home: string): SnapshotError {
  return new SnapshotError(
    `${home} is not a ${currentBinaryName()} home (it has no data/ folder); run \`${currentBinaryName()} init\` first`,
  );
}

/**
 * Takes a snapshot of `height` (default: the latest committed height) of a stopped node's state.
 * Fails with the store's DataDirectoryLockedError while the node runs, and with a SnapshotError (creating nothing) for
 * a home that has committed nothing or when `data/snapshots/<height>/1` holds something that is not a snapshot
 * chaind wrote (left untouched; an earlier snapshot of ours at that height is replaced by the new one).
 */
export async function exportHomeSnapshot(options: {
  home: string;
  height?: bigint;
  /** The chain (default: the one this process serves) and its release (default: the chain's current). */
  chain?: ChainDefinition;
  release?: Release;
  chunkSize?: number;
  /** Called with the height about to be snapshotted (the latest when none was asked), before any is written. */
  onHeight?: (height: bigint) => void;
}): Promise<SnapshotInfo> {
  const settings = await loadNodeSettings(options.home);
  // Read without create-if-missing first: building the app over a home that has committed nothing would leave a new
  // empty data/application.db behind for a command that only reads.
  if ((await readLastCommittedVersion(homePaths(settings.home).applicationDb)) === 0n) throw nothingCommitted();
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
    if (latest === 0n) throw nothingCommitted();
    const height = options.height ?? latest;
    options.onHeight?.(height);
    if (height > latest) {
      throw new SnapshotError(`cannot snapshot height ${height}: the latest committed height is ${latest}`);
    }
    info = await createSnapshot(chain.app.store, snapshots, height, options.chunkSize ?? DEFAULT_CHUNK_SIZE);
  } finally {
    await chain.app.close();
  }
  return attachEngineState(settings.home, snapshots, info);
}

function nothingCommitted(): SnapshotError {
  return new SnapshotError("nothing is committed in this home yet; there is no state to snapshot");
}

/**
 * Makes sure the snapshot carries the engine state at its height, covered by its descriptor, when this home's block
 * store can give it; returns the snapshot's descriptor (with `engineStateHash` when it carries one).
 */
async function attachEngineState(home: string, snapshots: SnapshotStore, info: SnapshotInfo): Promise<SnapshotInfo> {
  const carried = await snapshots.readEngineState(info).catch(() => undefined);
  if (carried !== undefined) return info;
  const bootstrap = await engineStateFromBlockStore(home, info.height);
  if (bootstrap !== undefined) return snapshots.writeEngineState(info, new TextEncoder().encode(bootstrap));
  // A file the descriptor does not cover (or that is damaged) and cannot be rebuilt: it must not travel.
  return snapshots.dropEngineState(info);
}

/** The engine state at `height` as engine-state.json text, when this home's block store can give it. */
async function engineStateFromBlockStore(home: string, height: bigint): Promise<string | undefined> {
  const blocksDb = homePaths(home).blocksDb;
  if (!existsSync(blocksDb)) return undefined;
  let store: BlockStore;
  try {
    store = await BlockStore.open(blocksDb, { createIfMissing: false });
  } catch {
    return undefined; // locked by a running node, or not an engine home: the snapshot is still complete
  }
  try {
    const bootstrap = await engineBootstrapAt(store, height);
    return bootstrap === undefined ? undefined : encodeEngineBootstrap(bootstrap);
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
  const snapshots = await homeSnapshotStore(options.home);
  const found = await snapshots.get(options.height, options.format);
  if (found === undefined) throw new SnapshotNotFoundError(options.height, options.format);
  const archive = resolve(options.out ?? `${options.height}-${options.format}.tar.gz`);
  // Opening the archive truncates it: given a chunk or descriptor of the store (or anything beside them), the dump
  // destroyed the snapshot it was reading and wrote an archive of the damage, with exit status 0.
  if (await liesWithin(archive, snapshots.dir)) {
    throw new SnapshotError(
      `--out ${archive} lies inside ${snapshots.dir}, the local snapshots the dump reads and must not overwrite; write the archive outside data/snapshots`,
    );
  }
  await checkArchiveDestination(archive);
  const info = await attachEngineState(options.home, snapshots, found);
  const engineState = info.engineStateHash !== undefined;
  const files = [DESCRIPTOR, ...Array.from({ length: info.chunks }, (_, i) => String(i))];
  if (engineState) files.push(ENGINE_STATE_FILE);
  // Written beside the destination and renamed over it once whole: a dump that fails half-way (a missing chunk,
  // a full disk) leaves no partial archive, and a file already at --out as it was.
  const partial = join(dirname(archive), `.${basename(archive)}.tmp-${process.pid}-${Date.now()}`);
  try {
    await createTar(
      { gzip: true, file: partial, cwd: snapshots.folder(info.height, info.format), portable: true },
      files,
    );
    await rename(partial, archive);
  } catch (err) {
    await rm(partial, { force: true });
    // The temporary's name means nothing to the operator: a refusal to create it is the folder's.
    const failure = err as NodeJS.ErrnoException;
    const reason =
      failure.path === partial ? `${dirname(archive)} refused a new file (${failure.code})` : failure.message;
    throw new SnapshotError(
      `cannot dump snapshot ${info.height}/${info.format} to ${archive}: ${reason}; nothing was written`,
      { cause: err },
    );
  }
  return { archive, info, engineState };
}

/** The archive's folder must exist and the archive itself must not be a folder: one line naming which, early. */
async function checkArchiveDestination(archive: string): Promise<void> {
  const folder = dirname(archive);
  const parent = await stat(folder).catch(() => undefined);
  if (parent === undefined || !parent.isDirectory()) {
    throw new SnapshotError(
      `cannot write the archive ${archive}: ${folder} ${parent === undefined ? "does not exist" : "is not a folder"}; expected a file path in an existing folder`,
    );
  }
  if ((await stat(archive).catch(() => undefined))?.isDirectory()) {
    throw new SnapshotError(
      `cannot write the archive ${archive}: it is a folder; expected the path of the .tar.gz file to write`,
    );
  }
}

/**
 * Adds the snapshot in `archive` (made by dump) to this home's snapshots. The archive is input: it is unpacked
 * into a work folder inside data/snapshots (removed on every outcome) with each entry's size bounded before it is
 * inflated; its descriptor is checked (height and format as integers, never a path); every chunk, the whole
 * stream and engine-state.json are checked against the descriptor's hashes before the snapshot is put in place.
 * Nothing outside data/snapshots is written or deleted.
 */
export async function loadHomeSnapshot(options: { home: string; archive: string }): Promise<SnapshotInfo> {
  const archive = resolve(options.archive);
  const label = basename(archive);
  const kind = await stat(archive).catch(() => undefined);
  if (kind === undefined || !kind.isFile()) {
    throw new SnapshotError(
      `${archive}: ${kind === undefined ? "no such file" : "not a file"}; expected a .tar.gz written by \`${currentBinaryName()} snapshots dump\``,
    );
  }
  const snapshots = await homeSnapshotStore(options.home);
  const work = await snapshots.workFolder();
  try {
    const found = await unpackSnapshotArchive(archive, work, label);
    if (!found.descriptor) {
      throw new SnapshotError(
        `${label} holds no ${DESCRIPTOR}; expected an archive from \`${currentBinaryName()} snapshots dump\``,
      );
    }
    const described = parseDescriptorText(
      await readFile(join(work, DESCRIPTOR), "utf8"),
      `the ${DESCRIPTOR} in ${label}`,
    );
    for (let i = 0; i < described.chunks; i++) {
      if (!found.chunkIndexes.has(i)) throw new SnapshotError(`${label} is missing chunk ${i} of ${described.chunks}`);
    }
    if (found.chunkIndexes.size !== described.chunks) {
      throw new SnapshotError(`${label} holds chunks its ${DESCRIPTOR} does not list (it lists ${described.chunks})`);
    }
    let engineState: Uint8Array | undefined;
    if (found.engineState) {
      engineState = new Uint8Array(await readFile(join(work, ENGINE_STATE_FILE)));
      if (described.engineStateHash === undefined) {
        throw new SnapshotError(
          `the ${ENGINE_STATE_FILE} in ${label} is not covered by its ${DESCRIPTOR} (no "engine_state_hash"); dump the snapshot again with this ${currentBinaryName()}`,
        );
      }
      if (!sha256(engineState).equals(Buffer.from(described.engineStateHash))) {
        throw new SnapshotError(
          `the ${ENGINE_STATE_FILE} in ${label} does not match its hash (the archive is damaged)`,
        );
      }
    } else if (described.engineStateHash !== undefined) {
      throw new SnapshotError(`${label} is missing the ${ENGINE_STATE_FILE} its ${DESCRIPTOR} records`);
    }
    async function* chunks(): AsyncGenerator<Uint8Array> {
      const whole = createHash("sha256");
      for (let i = 0; i < described.chunks; i++) {
        const chunk = new Uint8Array(await readFile(join(work, String(i))));
        if (!sha256(chunk).equals(Buffer.from(described.chunkHashes[i]))) {
          throw new SnapshotError(`chunk ${i} in ${label} does not match its hash (the archive is damaged)`);
        }
        whole.update(chunk);
        yield chunk;
      }
      // Checked before the snapshot is put in place: a failing save leaves any existing one as it was.
      if (!whole.digest().equals(Buffer.from(described.hash))) {
        throw new SnapshotError(`the chunks in ${label} do not add up to the snapshot hash it declares`);
      }
    }
    const saved = await snapshots.save(described.height, described.format, chunks());
    return engineState === undefined ? saved : await snapshots.writeEngineState(saved, engineState);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * Rebuilds this home's application state from local snapshot `height`/`format`. The home must not have committed
 * state yet (a fresh `chaind init` with the chain's genesis), and one restore runs at a time. Before the home is
 * touched, the snapshot must be of this home's chain: the chain id in its engine state must be genesis.json's, and
 * its app hash must be the one this home's block store (header H+1, or the state at H) and `trustedAppHash` give,
 * when there are any. When the snapshot carries the embedded engine's state and the block store is empty, the
 * block store starts at that height.
 */
export async function restoreHomeSnapshot(options: {
  home: string;
  height: bigint;
  format: number;
  /** The app hash the state at `height` must have (header H+1's app_hash, from a source the operator trusts). */
  trustedAppHash?: Uint8Array;
  /** The chain (default: the one this process serves) and its release (default: the chain's current). */
  chain?: ChainDefinition;
  release?: Release;
}): Promise<{ info: SnapshotInfo; appHash: Uint8Array; engineBootstrapped: boolean }> {
  const settings = await loadNodeSettings(options.home);
  const paths = homePaths(settings.home);
  const snapshots = new SnapshotStore(snapshotDir(settings.home));
  const info = await snapshots.get(options.height, options.format);
  if (info === undefined) throw new SnapshotNotFoundError(options.height, options.format);
  const unlock = await lockRestore(snapshots.dir);
  try {
    const committed = await readLastCommittedVersion(paths.applicationDb);
    if (committed > 0n) {
      throw new SnapshotError(
        `this home already has state at height ${committed}; restore into a fresh home (or remove ${paths.applicationDb} and ${paths.blocksDb} first)`,
      );
    }
    const where = `snapshot ${info.height}/${info.format}`;
    const engineState = await snapshots.readEngineState(info);
    const bootstrap = engineState === undefined ? undefined : decodeSnapshotEngineState(engineState, info);
    const chainId = settings.genesis.chainId;
    if (bootstrap !== undefined && bootstrap.state.chainId !== chainId) {
      throw new SnapshotError(
        `${where} is of chain "${bootstrap.state.chainId}", but this home's genesis.json is of chain "${chainId}"; restore a snapshot of this chain`,
      );
    }
    const anchors = await appHashAnchors(paths.blocksDb, info.height, options.trustedAppHash);
    let expectedAppHash = bootstrap?.state.appHash;
    for (const anchor of anchors) {
      if (expectedAppHash !== undefined && !Buffer.from(expectedAppHash).equals(Buffer.from(anchor.hash))) {
        throw new SnapshotError(
          `${where} has app hash ${hex(expectedAppHash)}, but ${anchor.source} says ${hex(anchor.hash)}; it is not a snapshot of this chain`,
        );
      }
      expectedAppHash = anchor.hash;
    }
    const chain = await buildChainApp({
      chain: options.chain ?? currentChain(),
      home: settings.home,
      chainId,
      logger: pino({ level: "silent" }),
      release: options.release,
      backend: "memory",
      deferLoad: true,
    });
    const restored = await installState({
      applicationDb: paths.applicationDb,
      height: info.height,
      items: decodeChunks(snapshots.chunks(info)),
      storeNames: chain.moduleManager.storeKeys(),
      expectedAppHash,
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
  } finally {
    await unlock();
  }
}

/** The engine state a snapshot carries, checked for the fields restore relies on; one-line errors. */
function decodeSnapshotEngineState(bytes: Uint8Array, info: SnapshotInfo): EngineBootstrap {
  const where = `the ${ENGINE_STATE_FILE} of snapshot ${info.height}/${info.format}`;
  let bootstrap: EngineBootstrap;
  try {
    bootstrap = decodeEngineBootstrap(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (err) {
    throw new SnapshotFormatError(`${where} is not valid: ${(err as Error).message}`, { cause: err });
  }
  const state = (bootstrap as Partial<EngineBootstrap> | null)?.state;
  if (
    state === undefined ||
    state === null ||
    typeof state.chainId !== "string" ||
    !(state.appHash instanceof Uint8Array) ||
    state.lastBlockHeight !== info.height ||
    typeof bootstrap.seenCommit !== "object" ||
    bootstrap.seenCommit === null
  ) {
    throw new SnapshotFormatError(
      `${where} is not valid: expected the engine state after height ${info.height} (chain id, app hash, commit)`,
    );
  }
  return bootstrap;
}

/** The app hashes the state at `height` must have: from this home's block store when it holds them, and the operator's. */
async function appHashAnchors(
  blocksDb: string,
  height: bigint,
  trusted: Uint8Array | undefined,
): Promise<{ hash: Uint8Array; source: string }[]> {
  const anchors: { hash: Uint8Array; source: string }[] = [];
  if (existsSync(blocksDb)) {
    const store = await BlockStore.open(blocksDb, { createIfMissing: false });
    try {
      const next = store.height > height ? await store.blockMeta(height + 1n) : undefined;
      if (next !== undefined) {
        anchors.push({ hash: next.header.appHash, source: `this home's block store (header ${height + 1n})` });
      } else if (store.state !== undefined && store.state.lastBlockHeight === height) {
        anchors.push({ hash: store.state.appHash, source: `this home's block store (state at ${height})` });
      }
    } finally {
      await store.close();
    }
  }
  if (trusted !== undefined) anchors.push({ hash: trusted, source: "--trusted-app-hash" });
  return anchors;
}

function sha256(bytes: Uint8Array): Buffer {
  return createHash("sha256").update(bytes).digest();
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("hex").toUpperCase();
}

/** Deletes local snapshot `height`/`format`. */
export async function deleteHomeSnapshot(options: { home: string; height: bigint; format: number }): Promise<void> {
  await (await homeSnapshotStore(options.home)).delete(options.height, options.format);
}

/** Names of the files in a snapshot folder (for tests and diagnostics). */
export async function snapshotFiles(home: string, height: bigint, format: number): Promise<string[]> {
  return (await readdir(new SnapshotStore(snapshotDir(home)).folder(height, format))).sort();
}
