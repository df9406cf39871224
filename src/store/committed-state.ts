// What a state store holds on disk about its committed versions, read before (or without) mounting its stores:
// the format marker, the latest and earliest versions, the latest commit info, the store registry and the stores
// waiting to be reclaimed. The multistore reads it when it opens; the node, the upgrade guards and replay read the
// last version and the store names of a home without opening the store for writing.
import { existsSync } from "node:fs";
import { fromUtf8 } from "../bytes/text.ts";
import { DataDirectoryCorruptError, DataDirectoryMissingError } from "./errors.ts";
import { readAt } from "./flat-state.ts";
import { commitKey, FORMAT_MARKER, META, metaKey } from "./keys.ts";
import { type KVBackend, openLevelBackend } from "./kv-backend.ts";
import {
  type CommitRecord,
  decodeCommit,
  decodeRegistry,
  decodeSidList,
  decodeVersion,
  type StoreRegistry,
} from "./records.ts";

/** What a store's backend holds about its committed versions (a fresh, empty one when nothing was committed). */
export interface CommittedState {
  fresh: boolean;
  latest: number;
  earliest: number;
  /** The version an imported state was written at (META.importedAt), 0 for a store that was never imported. */
  importedAt: number;
  record: CommitRecord;
  registry: StoreRegistry;
  reclaim: number[];
}

/** Reads the committed state of `backend`; fails with DataDirectoryCorruptError when it cannot be read. */
export async function readCommittedState(backend: KVBackend): Promise<CommittedState> {
  const corrupt = (reason: string, cause?: unknown): never => {
    throw new DataDirectoryCorruptError(backend.location, reason, cause === undefined ? undefined : { cause });
  };
  const format = backend.getSync(metaKey(META.format));
  if (format === undefined) {
    for await (const _ of backend.iterate({ limit: 1 })) {
      corrupt("it holds data but no chaind format marker");
    }
    return {
      fresh: true,
      latest: 0,
      earliest: 0,
      importedAt: 0,
      record: { version: 0, appHash: new Uint8Array(0), stores: [] },
      registry: { nextSid: 1, mounted: [], deleted: [] },
      reclaim: [],
    };
  }
  let marker: string;
  try {
    marker = fromUtf8(format);
  } catch (err) {
    return corrupt("its format marker is not text", err);
  }
  if (marker !== FORMAT_MARKER) corrupt(`its format is "${marker}", expected "${FORMAT_MARKER}"`);
  try {
    const latestBytes = backend.getSync(metaKey(META.latest));
    const earliestBytes = backend.getSync(metaKey(META.earliest));
    const registryBytes = backend.getSync(metaKey(META.stores));
    if (latestBytes === undefined || earliestBytes === undefined || registryBytes === undefined) {
      return corrupt("its version metadata is missing");
    }
    const latest = decodeVersion(latestBytes);
    const commitBytes = backend.getSync(commitKey(latest));
    if (commitBytes === undefined) return corrupt(`the commit info of its latest version ${latest} is missing`);
    const record = decodeCommit(commitBytes);
    if (record.version !== latest) return corrupt(`commit info ${latest} says it is version ${record.version}`);
    const reclaimBytes = backend.getSync(metaKey(META.reclaim));
    const importedBytes = backend.getSync(metaKey(META.importedAt));
    return {
      fresh: false,
      latest,
      earliest: decodeVersion(earliestBytes),
      importedAt: importedBytes === undefined ? 0 : decodeVersion(importedBytes),
      record,
      registry: decodeRegistry(registryBytes),
      reclaim: reclaimBytes === undefined ? [] : decodeSidList(reclaimBytes),
    };
  } catch (err) {
    if (err instanceof DataDirectoryCorruptError) throw err;
    return corrupt("its metadata cannot be decoded", err);
  }
}

/**
 * The last committed version of the LevelDB store at `path` without mounting it (0n when the
 * directory does not exist or nothing was committed). Fails with DataDirectoryLockedError while
 * another process has the store open.
 */
export async function readLastCommittedVersion(path: string): Promise<bigint> {
  if (!existsSync(path)) return 0n;
  let backend: KVBackend;
  try {
    backend = await openLevelBackend(path, { createIfMissing: false });
  } catch (err) {
    // An existing but empty directory: nothing committed yet.
    if (err instanceof DataDirectoryMissingError) return 0n;
    throw err;
  }
  try {
    const latest = backend.getSync(metaKey(META.latest));
    return latest === undefined ? 0n : BigInt(decodeVersion(latest));
  } finally {
    await backend.close();
  }
}

/**
 * The names of the stores the LevelDB state at `path` has at its last committed version, read without
 * mounting them (empty when nothing was committed). The upgrade module reads its own records with this set
 * before the app mounts its declared stores, which may differ after an upgrade renamed or deleted some.
 */
export async function readCommittedStoreNames(path: string): Promise<string[]> {
  if (!existsSync(path)) return [];
  let backend: KVBackend;
  try {
    backend = await openLevelBackend(path, { createIfMissing: false });
  } catch (err) {
    if (err instanceof DataDirectoryMissingError) return [];
    throw err;
  }
  try {
    const state = await readCommittedState(backend);
    return state.record.stores.map((s) => s.name).sort();
  } finally {
    await backend.close();
  }
}

/**
 * The value of `key` in store `storeName` at the last committed version of the LevelDB store at `path`, read with one
 * open of the backend and without mounting anything (undefined when the store or the key is absent, or nothing was
 * committed). The upgrade guards ask for one record of a home's state before anything may open it for writing.
 */
export async function readCommittedValue(
  path: string,
  storeName: string,
  key: Uint8Array,
): Promise<Uint8Array | undefined> {
  return (await readCommittedVersionAndValue(path, storeName, key)).value;
}

/**
 * The last committed version and the committed value of `key` in store `storeName` at it, in one open of the
 * LevelDB store at `path` (each open of a large store costs tens of milliseconds; the rehearsal needs both).
 */
export async function readCommittedVersionAndValue(
  path: string,
  storeName: string,
  key: Uint8Array,
): Promise<{ latest: bigint; value: Uint8Array | undefined }> {
  if (!existsSync(path)) return { latest: 0n, value: undefined };
  let backend: KVBackend;
  try {
    backend = await openLevelBackend(path, { createIfMissing: false });
  } catch (err) {
    if (err instanceof DataDirectoryMissingError) return { latest: 0n, value: undefined };
    throw err;
  }
  try {
    const state = await readCommittedState(backend);
    const store = state.record.stores.find((s) => s.name === storeName);
    const value = store === undefined ? undefined : await readAt(backend, store.sid, key, state.latest, true);
    return { latest: BigInt(state.latest), value };
  } finally {
    await backend.close();
  }
}
