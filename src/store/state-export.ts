// Export of one committed version of the whole multistore as a stream of tree nodes, and the
// shape of that stream (shared with state-import.ts). Each store's commitment tree is walked in
// post-order (children before their parent, as IAVL's exporter does), leaves carrying their key,
// value and version and inner nodes their version and height: exactly what is needed to rebuild
// the same trees — same node versions, same shape, so the same app hash — on another machine.
import { setImmediate as yieldToLoop } from "node:timers/promises";
import { type NodeLoader, resolve } from "./avl-tree.ts";
import { DataDirectoryCorruptError } from "./errors.ts";
import { readAt } from "./flat-state.ts";
import { commitKey } from "./keys.ts";
import type { MultiStore } from "./multistore.ts";
import { NodeStore } from "./node-store.ts";
import { decodeCommit } from "./records.ts";
import type { TreeNode } from "./tree-node.ts";

/** One item of an exported state: a store header, then that store's tree nodes in post-order. */
export type ExportItem =
  | { kind: "store"; name: string }
  | { kind: "leaf"; key: Uint8Array; value: Uint8Array; version: number }
  | { kind: "inner"; version: number; height: number };

/** Options of {@link exportState}. */
export interface ExportStateOptions {
  /** Items produced between two yields to the event loop, so an export never stalls block production. */
  yieldEvery?: number;
}

/**
 * Streams the state of `version` (every mounted store at that version, sorted by name). The
 * version is held for the whole export (`retainVersion`), so pruning never removes rows it still
 * has to read. Throws PrunedVersionError / FutureVersionError for a version that is not readable.
 *
 * @example for await (const item of exportState(store, 100n)) write(item);
 */
export async function* exportState(
  store: MultiStore,
  version: bigint,
  options: ExportStateOptions = {},
): AsyncGenerator<ExportItem> {
  const release = store.retainVersion(version);
  try {
    const view = await store.view(version);
    const v = Number(view.version);
    const bytes = store.backend.getSync(commitKey(v));
    if (bytes === undefined) {
      throw new DataDirectoryCorruptError(store.backend.location, `the commit info of version ${v} is missing`);
    }
    const record = decodeCommit(bytes);
    // A private node cache: the export must not evict the hot nodes block execution relies on.
    const nodes = new NodeStore(store.backend, 0);
    const yieldEvery = options.yieldEvery ?? 2000;
    let produced = 0;
    for (const entry of [...record.stores].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      yield { kind: "store", name: entry.name };
      if (entry.root === undefined) continue;
      const loader = nodes.loader(entry.sid);
      for (const item of walk(entry.root, loader, (key) => leafValue(store, entry.sid, key, v, entry.name))) {
        yield item;
        if (++produced % yieldEvery === 0) await yieldToLoop();
      }
    }
  } finally {
    release();
  }
}

function leafValue(store: MultiStore, sid: number, key: Uint8Array, version: number, name: string): Uint8Array {
  const value = readAt(store.backend, sid, key, version, false);
  if (value === undefined) {
    throw new DataDirectoryCorruptError(
      store.backend.location,
      `a key in the tree of "${name}" has no value at ${version}`,
    );
  }
  return value;
}

/** Post-order walk without recursion on the JS stack beyond the tree's height. */
function* walk(root: TreeNode, loader: NodeLoader, value: (key: Uint8Array) => Uint8Array): Generator<ExportItem> {
  const node = resolve(loader, root);
  if (node.kind === 0) {
    yield { kind: "leaf", key: node.key, value: value(node.key), version: node.version };
    return;
  }
  yield* walk(node.left, loader, value);
  yield* walk(node.right, loader, value);
  yield { kind: "inner", version: node.version, height: node.height };
}
