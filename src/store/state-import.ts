// Import of an exported state (state-export.ts) into an empty store directory: the trees are
// rebuilt node by node with the exported node versions, so each store's root hash — and the app
// hash over them — comes out exactly as on the exporting machine, and each key's latest row is
// written (write 1) so every read and later commit works as on a store that was never imported.
// No history rows: while a key's only write is its latest row nothing reads its history, and the
// commit that supersedes it writes history row 1 (META.importedAt tells the commits which keys
// those are). The result is a store whose only (and earliest) version is the imported one.

import { join } from "node:path";
import { equalBytes } from "../bytes/compare.ts";
import { toHex } from "../bytes/hex.ts";
import { utf8 } from "../bytes/text.ts";
import { rootHash } from "./avl-tree.ts";
import { putImportedRow } from "./commit-rows.ts";
import { StoreError } from "./errors.ts";
import { EMPTY_HASH } from "./hash.ts";
import { PageSpill } from "./import-page-spill.ts";
import { commitKey, FORMAT_MARKER, META, metaKey, nodeKey } from "./keys.ts";
import { type KVBackend, type KVBatch, openLevelBackend } from "./kv-backend.ts";
import { LeafHasher } from "./leaf-hasher.ts";
import { appHash } from "./merkle.ts";
import { encodeCommit, encodeRegistry, encodeVersion, type StoreCommit, type StoreRegistry } from "./records.ts";
import type { ExportItem } from "./state-export.ts";
import { TreeRebuilder, TreeStreamError } from "./state-import-tree.ts";
import { leafHashOfValueDigest } from "./tree-node.ts";
import type { CommitInfo } from "./types.ts";
import { ValueDigests } from "./value-digests.ts";

/** An exported state that cannot be imported (malformed stream, wrong stores, wrong hash); nothing usable is left. */
export class StateImportError extends StoreError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("STORE_IMPORT_FAILED", message, options);
  }
}

/** Options of {@link importState}. */
export interface ImportStateOptions {
  /** An empty (or missing) LevelDB directory. */
  path: string;
  /** The version the export was taken at. */
  version: bigint;
  /** The export's item batches, in order (as exportState yields them). */
  items: AsyncIterable<ExportItem[]> | Iterable<ExportItem[]>;
  /** The stores the app declares: the export must hold exactly these. */
  storeNames?: string[];
  /** The app hash the result must have (e.g. the one CometBFT's light client verified). */
  expectedAppHash?: Uint8Array;
  /** Rows per intermediate write batch (default 50,000). */
  batchSize?: number;
  /**
   * Hash a large batch's leaves on a worker thread too (default false: on two cores the worker spent ~0.4-0.5 s of
   * CPU per 400,000 pairs for the ~0.15 s it took off this thread, beside LevelDB's busy threads; never on one core).
   */
  leafHashWorker?: boolean;
  /** LevelDB's memtable for the import, bytes (default 64 MiB; the store's own is 8 MiB). */
  writeBufferSize?: number;
}

/** Rows per write batch by default: large enough that LevelDB's per-write cost is spread thin. */
const DEFAULT_BATCH_ROWS = 50_000;
/**
 * The import's memtable: each key's latest row and the tree's pages (with the history rows an import wrote before
 * round 3 session 13, twice the raw pairs' bytes) land in key ranges that all grow at their ends, so every memtable
 * flushed as a small level-0 table overlapped the others and LevelDB's threads compacted the same rows again and again (with 8 MiB they took about as much of a restore's
 * CPU as this thread). A larger one flushes fewer, larger tables; the opened store uses its usual 8 MiB.
 */
const DEFAULT_WRITE_BUFFER = 64 * 1024 * 1024;

/** The file in the import's directory that holds the tree's pages until the latest rows are written. */
const PAGE_SPILL_FILE = "import-pages.tmp";
/** Bytes of pages per write batch when they are written after the rows. */
const PAGE_BATCH_BYTES = 8 * 1024 * 1024;

/**
 * Rebuilds the exported state at `path`. Resolves with the imported version and its app hash;
 * throws StateImportError (naming what was wrong) for a malformed or mismatching export. The
 * metadata that makes the directory a store is written last, so an interrupted import never
 * opens as a store; callers import into a fresh directory and move it into place afterwards.
 *
 * The import streams: each store's tree is rebuilt bottom-up as its nodes arrive (TreeRebuilder; each leaf hashed
 * as it comes, or a batch's leaves on two threads by LeafHasher with `leafHashWorker`), its pages and each key's
 * rows go into a write batch at once,
 * and a full batch is written while the next one fills (one write in flight). Memory stays bounded by one
 * batch of the stream, the write batches and the trees' heights, whatever the state's size.
 */
export async function importState(options: ImportStateOptions): Promise<CommitInfo> {
  if (typeof options.version !== "bigint" || options.version <= 0n) {
    throw new StateImportError(`the version to import must be a positive height, got ${String(options.version)}`);
  }
  const v = Number(options.version);
  const backend: KVBackend = await openLevelBackend(options.path, {
    createIfMissing: true,
    writeBufferSize: options.writeBufferSize ?? DEFAULT_WRITE_BUFFER,
  });
  const writer = new BatchPipeline(backend, options.batchSize ?? DEFAULT_BATCH_ROWS);
  // Without the worker each leaf is hashed as it comes: LeafHasher's job (packing the inputs into shared memory,
  // copying them out again to hash) only pays for itself when another thread takes half of it.
  const hasher = options.leafHashWorker === true ? new LeafHasher(true) : undefined;
  const values = new ValueDigests();
  // The pages wait in a file beside LevelDB's until every latest row is written (import-page-spill.ts says why).
  const spill = new PageSpill(join(options.path, PAGE_SPILL_FILE));
  try {
    for await (const _ of backend.iterate({ limit: 1 })) {
      throw new StateImportError(`cannot import into ${options.path}: the directory already holds data`);
    }
    const stores: StoreCommit[] = [];
    let current: { name: string; sid: number; tree: TreeRebuilder } | undefined;
    const finishStore = () => {
      if (current === undefined) return;
      const { name, sid, tree } = current;
      const root = tree.finish();
      stores.push({ name, sid, root, rootHash: rootHash(root, EMPTY_HASH) });
      current = undefined;
    };
    // A round is one batch of the stream: its leaves are hashed (as they come, or together on two threads with the
    // worker), then its inner nodes (TreeRebuilder.settle).
    const settle = () => {
      hasher?.finish();
      if (current !== undefined) {
        current.tree.settle();
      }
    };
    // A malformed tree names its store: one try around the loop (a closure per item to name it cost more).
    try {
      for await (const batch of options.items) {
        hasher?.begin(batch.length);
        for (let i = 0; i < batch.length; i++) {
          const item = batch[i];
          if (item.kind === "store") {
            settle();
            finishStore();
            hasher?.begin(batch.length - i);
            const previous = stores.at(-1)?.name;
            if (previous !== undefined && !(previous < item.name)) {
              throw new StateImportError(
                `store "${item.name}" follows "${previous}": stores must come once each, sorted by name`,
              );
            }
            const sid = stores.length + 1;
            const tree = new TreeRebuilder(v, (page, bytes) => spill.add(sid, page, bytes));
            current = { name: item.name, sid, tree };
            continue;
          }
          if (current === undefined)
            throw new StateImportError("the export starts with a tree node instead of a store");
          const { sid, tree } = current;
          if (item.kind === "leaf") {
            const leaf = tree.leaf(item.key, item.version);
            if (hasher !== undefined) hasher.add(leaf, item.value);
            else leaf.hash = leafHashOfValueDigest(item.key, values.of(item.value), item.version);
            // Assembled in the commit path's scratch buffer: a fresh small key array per row would cost more in
            // the binding (V8 moves its bytes off the heap when native code asks for them) than the row itself.
            putImportedRow(writer.batch, sid, item.key, item.version, item.value);
            writer.rows += 1;
            if (writer.full()) await writer.flush();
          } else {
            tree.inner(item.version, item.height);
          }
        }
        settle();
        await spill.writeOut();
      }
      finishStore();
    } catch (err) {
      if (err instanceof TreeStreamError) throw new StateImportError(`store "${current?.name}": ${err.message}`);
      throw err;
    }
    const names = stores.map((s) => s.name);
    if (options.storeNames !== undefined) {
      const want = [...options.storeNames].sort();
      const missing = want.filter((n) => !names.includes(n));
      const extra = names.filter((n) => !want.includes(n));
      if (missing.length + extra.length > 0) {
        throw new StateImportError(
          `the snapshot's stores do not match this release's: missing ${missing.join(", ") || "none"}, unexpected ${extra.join(", ") || "none"} (restore it with the release that was running at that height)`,
        );
      }
    }
    const hash = appHash(stores.map((s) => ({ name: s.name, root: s.rootHash })));
    if (options.expectedAppHash !== undefined && !equalBytes(hash, options.expectedAppHash)) {
      throw new StateImportError(
        `the restored state has app hash ${toHex(hash).toUpperCase()}, expected ${toHex(options.expectedAppHash).toUpperCase()}`,
      );
    }
    // The pages after every latest row, in batches of about PAGE_BATCH_BYTES (a page is ~6 KiB where a row is ~100 B).
    let pageBytes = 0;
    await spill.replay((sid, page, bytes) => {
      writer.put(nodeKey(sid, v, page), bytes);
      pageBytes += bytes.length;
      if (pageBytes < PAGE_BATCH_BYTES && !writer.full()) return;
      pageBytes = 0;
      return writer.flush();
    });
    const registry: StoreRegistry = {
      nextSid: stores.length + 1,
      mounted: stores.map((s) => ({ name: s.name, sid: s.sid })),
      deleted: [],
    };
    writer.put(commitKey(v), encodeCommit({ version: v, appHash: hash, stores }));
    writer.put(metaKey(META.stores), encodeRegistry(registry));
    writer.put(metaKey(META.earliest), encodeVersion(v));
    writer.put(metaKey(META.latest), encodeVersion(v));
    // Every key's write 1 is here without its history row: the commits that supersede them write it.
    writer.put(metaKey(META.importedAt), encodeVersion(v));
    await writer.finish();
    // The format marker last: until it is written the directory does not open as a store.
    await backend.write([{ key: metaKey(META.format), value: utf8(FORMAT_MARKER) }], true);
    return { version: options.version, appHash: hash };
  } catch (err) {
    if (err instanceof StoreError) throw err;
    throw new StateImportError(`cannot import the state of version ${v}: ${(err as Error).message}`, { cause: err });
  } finally {
    await spill.close();
    await hasher?.close();
    await writer.abandon();
    await backend.close();
  }
}

/**
 * Write batches with one write in flight: a full batch is written (unsynced) while the next fills, so LevelDB's
 * work on its own thread overlaps the decoding and hashing on this one. A batch copies what it is put at once
 * (KVBatch), so rows may be assembled in scratch memory.
 */
class BatchPipeline {
  private readonly backend: KVBackend;
  private readonly limit: number;
  /** The batch being filled; whoever puts into it directly adds to `rows`. */
  batch: KVBatch;
  rows = 0;
  private inFlight: Promise<void> | undefined;

  constructor(backend: KVBackend, limit: number) {
    this.backend = backend;
    this.limit = Math.max(1, limit);
    this.batch = backend.batch();
  }

  put(key: Uint8Array, value: Uint8Array): void {
    this.batch.put(key, value);
    this.rows++;
  }

  /** Whether the batch holds its limit of rows. */
  full(): boolean {
    return this.rows >= this.limit;
  }

  /** Starts writing the batch once the write before it has finished, and starts a new one. */
  async flush(): Promise<void> {
    await this.inFlight;
    const full = this.batch;
    this.batch = this.backend.batch();
    this.rows = 0;
    this.inFlight = full.write(false);
    // Awaited at the next flush or in finish/abandon; until then a failure must not go unhandled.
    this.inFlight.catch(() => {});
  }

  /** Writes what is left, synced, after the write in flight. */
  async finish(): Promise<void> {
    await this.inFlight;
    this.inFlight = undefined;
    const last = this.batch;
    this.batch = this.backend.batch();
    this.rows = 0;
    await last.write(true);
  }

  /** Waits out a write in flight and drops the unwritten batch (on the way out, after success or failure). */
  async abandon(): Promise<void> {
    await this.inFlight?.catch(() => {});
    this.inFlight = undefined;
    await this.batch.close();
  }
}
