// Tree pages of versions after the latest: a large version writes its pages before its commit point (multistore.ts,
// README "A large version's memory"), so a crash, a discarded stage or a failed stage can leave pages of a version
// that never became the latest. The next stage of that height overwrites the pages it numbers the same, but the
// pages past its own count would stay: no commit info refers to them and pruning, which frees a version's pages by
// its nodes' dead counts, would never count them. So opening, a discard and the next write after a failed stage
// delete them, in one batch.
import { nodeKey, readU32, readU64, TABLE } from "./keys.ts";
import type { BatchOp, KVBackend } from "./kv-backend.ts";

const NODE_TABLE_END = new Uint8Array([TABLE.node + 1]);

/**
 * Deletes every tree page (`n‖sid‖version‖page`) whose version is after `latest`, in every store id, registered or
 * not (a store added by the lost version has no registry entry yet). A skip scan: one seek to `n‖sid‖latest+1` per
 * store id that has pages (two when that store has no page after `latest`), nothing read but the first key found.
 * Returns how many pages it deleted.
 */
export async function deletePagesAfter(backend: KVBackend, latest: number, sync: boolean): Promise<number> {
  const ops: BatchOp[] = [];
  let sid = 0;
  for (;;) {
    const [first] = await backend.readRange({ gte: nodeKey(sid, latest + 1, 0), lt: NODE_TABLE_END, limit: 1 });
    if (first === undefined) break;
    const found = readU32(first[0], 1);
    if (found === sid || readU64(first[0], 5) > latest) {
      // Pages of `found` after the latest: all of them, up to the next store id.
      const lt = found === 0xffffffff ? NODE_TABLE_END : nodeKey(found + 1, 0, 0);
      for await (const [key] of backend.iterate({ gte: first[0], lt })) ops.push({ key, value: undefined });
      if (found === 0xffffffff) break;
      sid = found + 1;
    } else {
      // The next store id with pages, at a committed version: look past the latest there.
      sid = found;
    }
  }
  if (ops.length > 0) await backend.write(ops, sync);
  return ops.length;
}
