// deletePagesAfter: every tree page of a version after the latest goes, in every store id (registered or not), and
// nothing else; a store with no such page costs a seek or two, not a scan of its pages.
import assert from "node:assert/strict";
import { test } from "node:test";
import { toHex } from "../bytes/hex.ts";
import { nodeKey, pageDeadKey, storeKey, TABLE } from "./keys.ts";
import { type KVBackend, openMemoryBackend } from "./kv-backend.ts";
import { deletePagesAfter } from "./lost-pages.ts";

async function keys(backend: KVBackend): Promise<string[]> {
  const out: string[] = [];
  for await (const [k] of backend.iterate({})) out.push(toHex(k));
  return out;
}

test("pages after the latest go, in every store id; nothing else does", async () => {
  const backend = await openMemoryBackend();
  const one = new Uint8Array([1]);
  const kept = [
    nodeKey(0, 3, 0),
    nodeKey(1, 1, 0),
    nodeKey(1, 7, 5),
    nodeKey(2, 7, 0),
    nodeKey(9, 2, 0),
    nodeKey(0xffffffff, 7, 1),
    // Not pages: a dead count and rows of any table are never touched.
    pageDeadKey(1, 8, 0),
    storeKey(TABLE.history, 1, one),
    storeKey(TABLE.latest, 1, one),
  ];
  const lost = [
    nodeKey(0, 8, 0),
    nodeKey(1, 8, 0),
    nodeKey(1, 8, 1),
    nodeKey(1, 9, 0),
    // A store id no registry names (added by the lost version), and the last one there can be.
    nodeKey(5, 8, 0),
    nodeKey(5, 8, 2 ** 32 - 1),
    nodeKey(0xffffffff, 8, 0),
  ];
  await backend.write(
    [...kept, ...lost].map((key) => ({ key, value: one })),
    false,
  );
  let seeks = 0;
  const readRange = backend.readRange.bind(backend);
  backend.readRange = (range, map) => {
    seeks++;
    return readRange(range, map);
  };
  assert.equal(await deletePagesAfter(backend, 7, true), lost.length);
  assert.deepEqual(await keys(backend), kept.map(toHex).sort());
  // Store ids 0, 1, 5 and the last have lost pages (a seek each), 2 and 9 have pages up to the latest only (two
  // each), and one more finds the end.
  assert.ok(seeks <= 4 + 2 * 2 + 1, `${seeks} seeks`);
  // Nothing left: nothing written.
  let writes = 0;
  backend.write = async () => {
    writes++;
  };
  assert.equal(await deletePagesAfter(backend, 7, true), 0);
  assert.equal(writes, 0);
  await backend.close();
});
