// Rebuilds the latest version's tree pages after a crash between a commit's two writes. A commit
// writes its rows, changelog and commit info first (synced) and its tree pages after; a crash in
// between leaves the latest version readable through its rows but without the pages its tree needs.
// The tree is deterministic for the same writes at the same version (node versions, write numbers,
// shape), so applying that version's writes to the previous version's tree gives the same nodes,
// checked against the root hash the commit info holds.

import { compareBytes, equalBytes } from "../bytes/compare.ts";
import { hashNewNodes, persistTree, rootHash, TreeWriter } from "./avl-tree.ts";
import { DataDirectoryCorruptError } from "./errors.ts";
import { decodeLatestRow } from "./flat-state.ts";
import { EMPTY_HASH } from "./hash.ts";
import { commitKey, nodeKey, storePrefix, TABLE } from "./keys.ts";
import type { KVBackend } from "./kv-backend.ts";
import type { NodeStore } from "./node-store.ts";
import { type CommitRecord, decodeCommit, type StoreCommit } from "./records.ts";
import { pageOf, refSeq, refVersion } from "./tree-node.ts";

/** One write of a version, read back from the flat rows. */
interface Write {
  key: Uint8Array;
  /** Undefined for a delete. */
  value: Uint8Array | undefined;
  writeNo: number;
}

/** The stores of `record` whose root is new in its version but whose root page is not on disk. */
function storesMissingPages(backend: KVBackend, record: CommitRecord): StoreCommit[] {
  return record.stores.filter((s) => {
    const root = s.root;
    if (root === undefined || root.kind === 0 || refVersion(root.ref) !== record.version) return false;
    return backend.getSync(nodeKey(s.sid, record.version, pageOf(refSeq(root.ref)).page)) === undefined;
  });
}

/**
 * The writes one store made at `version`, in key order: every key whose latest or deleted row says it
 * was last written at that version (it is the latest version, so no later write hides one). A scan of
 * the store's flat rows: recovery after a crash in a narrow window, not a path any commit takes.
 */
async function writesAt(backend: KVBackend, sid: number, version: number): Promise<Write[]> {
  const collect = async (table: number, hasValue: boolean): Promise<Write[]> => {
    const out: Write[] = [];
    for await (const [key, row] of backend.iterate({ gte: storePrefix(table, sid), lt: storePrefix(table, sid + 1) })) {
      const parsed = decodeLatestRow(row, hasValue);
      if (parsed.version !== version) continue;
      const value = parsed.value === undefined ? undefined : new Uint8Array(parsed.value);
      out.push({ key: new Uint8Array(key.subarray(5)), value, writeNo: parsed.writeNo });
    }
    return out;
  };
  const sets = await collect(TABLE.latest, true);
  const deletes = await collect(TABLE.deleted, false);
  // A key is in one table or the other: merge the two ordered lists.
  const out: Write[] = [];
  let i = 0;
  let j = 0;
  while (i < sets.length || j < deletes.length) {
    if (j >= deletes.length || (i < sets.length && compareBytes(sets[i].key, deletes[j].key) < 0)) out.push(sets[i++]);
    else out.push(deletes[j++]);
  }
  return out;
}

/**
 * Rebuilds and writes the tree pages of the latest version (`record`) where they are missing. Returns
 * the ids of the stores it repaired. Fails with DataDirectoryCorruptError when the rebuilt tree does not
 * hash to the recorded root (or the previous version's tree is not there to build on).
 */
export async function repairLatestPages(
  backend: KVBackend,
  nodes: NodeStore,
  record: CommitRecord,
  sync: boolean,
): Promise<number[]> {
  const missing = storesMissingPages(backend, record);
  if (missing.length === 0) return [];
  const v = record.version;
  // The previous version's commit info: pruning removes it only after these pages are durable. None at
  // all for the store's first version (an empty tree before it).
  const previousBytes = backend.getSync(commitKey(v - 1));
  const previous = previousBytes === undefined ? undefined : decodeCommit(previousBytes);
  const batch = backend.batch();
  try {
    for (const s of missing) {
      const tree = new TreeWriter(previous?.stores.find((p) => p.sid === s.sid)?.root, v, nodes.loader(s.sid));
      for (const w of await writesAt(backend, s.sid, v)) {
        if (w.value === undefined) {
          tree.remove(w.key);
        } else {
          tree.set(w.key, w.value).leaf.writeNo = w.writeNo;
        }
      }
      const count = hashNewNodes(tree.root);
      const root = s.root;
      const seq = root === undefined || root.kind === 0 ? -1 : refSeq(root.ref);
      if (!equalBytes(rootHash(tree.root, EMPTY_HASH), s.rootHash) || count - 1 !== seq) {
        throw new DataDirectoryCorruptError(
          backend.location,
          `the tree pages of version ${v} of store "${s.name}" are missing and rebuilding them from version ${v - 1} does not give the recorded root hash`,
        );
      }
      persistTree(tree.root, v, (page, bytes) => batch.put(nodeKey(s.sid, v, page), bytes));
    }
  } catch (err) {
    void batch.close();
    throw err;
  }
  await batch.write(sync);
  return missing.map((s) => s.sid);
}
