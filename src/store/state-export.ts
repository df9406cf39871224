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

const EMPTY = new Uint8Array(0);

/** Options of {@link exportState}. */
export interface ExportStateOptions {
  /** Items per batch; the export yields to the event loop after each batch, so it never stalls block production. */
  batchSize?: number;
}

/**
 * Streams the state of `version` (every mounted store at that version, sorted by name). The
 * version is held for the whole export (`retainVersion`), so pruning never removes rows it still
 * has to read. Throws PrunedVersionError / FutureVersionError for a version that is not readable.
 *
 * Items come in batches (arrays) to keep the per-item cost low.
 *
 * @example for await (const batch of exportState(store, 100n)) for (const item of batch) write(item);
 */
export async function* exportState(
  store: MultiStore,
  version: bigint,
  options: ExportStateOptions = {},
): AsyncGenerator<ExportItem[]> {
  const release = store.retainVersion(version);
  try {
    const view = await store.view(version);
    const v = Number(view.version);
    const bytes = store.backend.getSync(commitKey(v));
    if (bytes === undefined) {
      throw new DataDirectoryCorruptError(store.backend.location, `the commit info of version ${v} is missing`);
    }
    const record = decodeCommit(bytes);
    // The pages of the latest commit may still be being written (the private cache below reads them).
    await store.pagesDurable();
    // A private node cache: the export must not evict the hot nodes block execution relies on.
    const nodes = new NodeStore(store.backend, 0);
    const batchSize = Math.max(1, options.batchSize ?? 1000);
    let batch: ExportItem[] = [];
    for (const entry of [...record.stores].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      // A store a store upgrade deleted after this version is refused (StoreNotFoundError), here and after every
      // pause below: its rows and pages are reclaimed from the deleting commit on, in background batches.
      const kept = () => view.store(entry.name);
      kept();
      batch.push({ kind: "store", name: entry.name });
      if (entry.root === undefined) continue;
      const loader = nodes.loader(entry.sid);
      for (const item of walk(entry.root, loader)) {
        if (item.kind === "leaf") {
          // A point read at the version (synchronous). An ordered scan of an old version would be cheaper per key
          // but races with the background pruning of rows the scan has not reached yet.
          const value = readAt(store.backend, entry.sid, item.key, v, false);
          if (value === undefined) {
            throw new DataDirectoryCorruptError(
              store.backend.location,
              `a key in the tree of "${entry.name}" has no value at ${v}`,
            );
          }
          item.value = value;
        }
        batch.push(item);
        if (batch.length >= batchSize) {
          yield batch;
          batch = [];
          await yieldToLoop();
          kept();
        }
      }
    }
    if (batch.length > 0) yield batch;
  } finally {
    release();
  }
}

/** Post-order walk with an explicit stack (a generator chain as deep as the tree would cost a resume per level). */
function* walk(root: TreeNode, loader: NodeLoader): Generator<ExportItem> {
  const stack: { node: TreeNode; expanded: boolean }[] = [{ node: resolve(loader, root), expanded: false }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    const node = top.node;
    if (node.kind === 0) {
      stack.pop();
      // The value is filled in by the caller from its ordered scan.
      yield { kind: "leaf", key: node.key, value: EMPTY, version: node.version };
    } else if (node.kind === 2 || top.expanded) {
      stack.pop();
      if (node.kind === 1) yield { kind: "inner", version: node.version, height: node.height };
    } else {
      top.expanded = true;
      stack.push(
        { node: resolve(loader, node.right), expanded: false },
        { node: resolve(loader, node.left), expanded: false },
      );
    }
  }
}
