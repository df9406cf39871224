// Import of an exported state (state-export.ts) into an empty store directory: the trees are
// rebuilt node by node with the exported node versions, so each store's root hash — and the app
// hash over them — comes out exactly as on the exporting machine, and the flat rows (latest and
// history) are written so every read and later commit works as on a store that was never
// imported. The result is a store whose only (and earliest) version is the imported one.

import { compareBytes, equalBytes } from "../bytes/compare.ts";
import { toHex } from "../bytes/hex.ts";
import { sha256 } from "../bytes/sha256.ts";
import { utf8 } from "../bytes/text.ts";
import { persistTree, rootHash } from "./avl-tree.ts";
import { Arena } from "./byte-records.ts";
import { StoreError } from "./errors.ts";
import { encodeHistoryRow, encodeLatestRow } from "./flat-state.ts";
import { EMPTY_HASH } from "./hash.ts";
import { commitKey, FORMAT_MARKER, historyKey, META, metaKey, nodeKey, storeKey, TABLE } from "./keys.ts";
import { type BatchOp, type KVBackend, openLevelBackend } from "./kv-backend.ts";
import { appHash } from "./merkle.ts";
import { encodeCommit, encodeRegistry, encodeVersion, type StoreCommit, type StoreRegistry } from "./records.ts";
import type { ExportItem } from "./state-export.ts";
import {
  encodePage,
  heightOf,
  type InnerNode,
  keyPrefix,
  type LeafNode,
  leafHash,
  PAGE_NODES,
  sizeOf,
  type TreeNode,
} from "./tree-node.ts";
import type { CommitInfo } from "./types.ts";

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
  /** Rows per intermediate write batch (default 10,000). */
  batchSize?: number;
}

interface Pending {
  node: TreeNode;
  minKey: Uint8Array;
  maxKey: Uint8Array;
}

/**
 * Rebuilds the exported state at `path`. Resolves with the imported version and its app hash;
 * throws StateImportError (naming what was wrong) for a malformed or mismatching export. The
 * metadata that makes the directory a store is written last, so an interrupted import never
 * opens as a store; callers import into a fresh directory and move it into place afterwards.
 */
export async function importState(options: ImportStateOptions): Promise<CommitInfo> {
  if (typeof options.version !== "bigint" || options.version <= 0n) {
    throw new StateImportError(`the version to import must be a positive height, got ${String(options.version)}`);
  }
  const v = Number(options.version);
  const backend: KVBackend = await openLevelBackend(options.path, { createIfMissing: true });
  try {
    for await (const _ of backend.iterate({ limit: 1 })) {
      throw new StateImportError(`cannot import into ${options.path}: the directory already holds data`);
    }
    const batchSize = options.batchSize ?? 10_000;
    let ops: BatchOp[] = [];
    let arena = new Arena();
    const flush = async (force: boolean) => {
      if (ops.length === 0 || (!force && ops.length < batchSize)) return;
      await backend.write(ops, false);
      ops = [];
      arena = new Arena();
    };
    const stores: StoreCommit[] = [];
    let current: { name: string; sid: number; stack: Pending[]; lastKey: Uint8Array | undefined } | undefined;
    const finishStore = async () => {
      if (current === undefined) return;
      const { stack, name, sid } = current;
      if (stack.length > 1) throw new StateImportError(`store "${name}": the exported tree has ${stack.length} roots`);
      const tree = persistTree(stack[0]?.node, v);
      for (let from = 0, page = 0; from < tree.nodes.length; from += PAGE_NODES, page++) {
        const to = Math.min(tree.nodes.length, from + PAGE_NODES);
        ops.push({ key: nodeKey(sid, v, page), value: encodePage(tree.nodes, from, to, arena) });
      }
      stores.push({ name, sid, root: tree.root, rootHash: rootHash(tree.root, EMPTY_HASH) });
      current = undefined;
      await flush(false);
    };
    for await (const batch of options.items)
      for (const item of batch) {
        if (item.kind === "store") {
          await finishStore();
          const previous = stores.at(-1)?.name;
          if (previous !== undefined && !(previous < item.name)) {
            throw new StateImportError(
              `store "${item.name}" follows "${previous}": stores must come once each, sorted by name`,
            );
          }
          current = { name: item.name, sid: stores.length + 1, stack: [], lastKey: undefined };
          continue;
        }
        if (current === undefined) throw new StateImportError("the export starts with a tree node instead of a store");
        if (item.kind === "leaf") {
          if (item.version <= 0 || item.version > v) {
            throw new StateImportError(`store "${current.name}": a leaf has version ${item.version}, outside 1..${v}`);
          }
          if (current.lastKey !== undefined && compareBytes(current.lastKey, item.key) >= 0) {
            throw new StateImportError(
              `store "${current.name}": leaf keys are not in increasing order at ${toHex(item.key)}`,
            );
          }
          current.lastKey = item.key;
          const leaf: LeafNode = {
            kind: 0,
            key: item.key,
            version: item.version,
            writeNo: 1,
            hash: leafHash(item.key, sha256(item.value), item.version),
          };
          current.stack.push({ node: leaf, minKey: item.key, maxKey: item.key });
          // The key's only write as far as this store knows: write number 1 at the leaf's version.
          ops.push({
            key: storeKey(TABLE.latest, current.sid, item.key),
            value: encodeLatestRow(1, item.version, 0, item.value, arena),
          });
          ops.push({
            key: historyKey(current.sid, item.key, 1),
            value: encodeHistoryRow(item.version, 0, item.value, arena),
          });
        } else {
          const right = current.stack.pop();
          const left = current.stack.pop();
          if (left === undefined || right === undefined) {
            throw new StateImportError(`store "${current.name}": an inner node comes before its two children`);
          }
          const height = 1 + Math.max(heightOf(left.node), heightOf(right.node));
          if (height !== item.height || item.version <= 0 || item.version > v) {
            throw new StateImportError(
              `store "${current.name}": an inner node says height ${item.height} version ${item.version}, expected height ${height} and a version in 1..${v}`,
            );
          }
          const inner: InnerNode = {
            kind: 1,
            height,
            size: sizeOf(left.node) + sizeOf(right.node),
            version: item.version,
            key: right.minKey,
            kp: keyPrefix(right.minKey),
            left: left.node,
            right: right.node,
            hash: undefined,
            ref: -1,
          };
          current.stack.push({ node: inner, minKey: left.minKey, maxKey: right.maxKey });
        }
        await flush(false);
      }
    await finishStore();
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
    const registry: StoreRegistry = {
      nextSid: stores.length + 1,
      mounted: stores.map((s) => ({ name: s.name, sid: s.sid })),
      deleted: [],
    };
    ops.push({ key: commitKey(v), value: encodeCommit({ version: v, appHash: hash, stores }) });
    ops.push({ key: metaKey(META.stores), value: encodeRegistry(registry) });
    ops.push({ key: metaKey(META.earliest), value: encodeVersion(v) });
    ops.push({ key: metaKey(META.latest), value: encodeVersion(v) });
    // The format marker last: until it is written the directory does not open as a store.
    await backend.write(ops, true);
    await backend.write([{ key: metaKey(META.format), value: utf8(FORMAT_MARKER) }], true);
    return { version: options.version, appHash: hash };
  } catch (err) {
    if (err instanceof StoreError) throw err;
    throw new StateImportError(`cannot import the state of version ${v}: ${(err as Error).message}`, { cause: err });
  } finally {
    await backend.close();
  }
}
