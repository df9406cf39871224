// Pagination's one-call range reads (RangeReader) must give the same pages and charge the same gas
// as stepping through the store's iterator, for every page shape: offset or key, count_total,
// reverse, pages past the one-read maximum, and a branch with pending writes.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { openMultiStore } from "../store/index.ts";
import type { KVStore } from "../store/types.ts";
import { newInfiniteGasMeter } from "./gas.ts";
import { gasKVStore } from "./gas-kv-store.ts";
import { type PageRequestLike, paginate } from "./pagination.ts";
import { branchOverView } from "./view-branch.ts";

const PREFIX = new Uint8Array([7]);
const key = (i: number) => new Uint8Array([7, i >> 8, i & 0xff]);

/** `store` without its one-call read: what paginate does with a store that only iterates. */
function iterateOnly(store: KVStore): KVStore {
  return {
    get: (k) => store.get(k),
    has: (k) => store.has(k),
    set: (k, v) => store.set(k, v),
    delete: (k) => store.delete(k),
    iterate: (o) => store.iterate(o),
  };
}

// Some decoders are async (denom owners read a balance per entry): every other entry here.
async function pageAndGas(store: KVStore, request: PageRequestLike | undefined, asyncDecode: boolean) {
  const meter = newInfiniteGasMeter();
  const page = await paginate(gasKVStore(store, meter), PREFIX, request, (k, v) => {
    const item = [k.join("."), v.length];
    return asyncDecode && k[1] % 2 === 1 ? store.get(key(0)).then(() => item) : item;
  });
  return { page, gas: meter.consumed() };
}

describe("paginate", () => {
  // Both engines: memory-level (tests, benches) and LevelDB (the node), whose reads come in batches.
  for (const [engine, size] of [
    ["memory", 0],
    ["memory", 1],
    ["memory", 3],
    ["memory", 1200],
    ["leveldb", 3],
    ["leveldb", 1200],
  ] as const) {
    it(`gives the same pages and gas through one-call reads as by iteration (${engine}, ${size} entries)`, async (t) => {
      const dir = mkdtempSync(join(tmpdir(), "pagination-"));
      t.after(() => rmSync(dir, { recursive: true, force: true }));
      const multi = await openMultiStore(
        engine === "memory" ? { backend: "memory", storeNames: ["s"] } : { path: dir, storeNames: ["s"] },
      );
      const branch = multi.branch();
      for (let i = 0; i < size; i++) branch.store("s").set(key(i), new Uint8Array(i % 5));
      branch.store("s").set(new Uint8Array([6, 1]), new Uint8Array(1)); // outside the prefix, both sides
      branch.store("s").set(new Uint8Array([8]), new Uint8Array(1));
      await multi.stage(branch);
      await multi.commit();
      const view = branchOverView(await multi.view());
      const written = branchOverView(await multi.view());
      written.store("s").set(key(1), new Uint8Array(9));
      written.store("s").delete(key(2));
      const requests: (PageRequestLike | undefined)[] = [undefined];
      for (const reverse of [false, true]) {
        for (const countTotal of [false, true]) {
          for (const limit of [0n, 1n, 2n, 999n, 1000n, 1001n]) {
            for (const offset of [0n, 1n, 998n]) {
              requests.push({ key: new Uint8Array(), offset, limit, countTotal, reverse });
            }
            for (const start of [0, 1, 2, 5, 1100]) {
              requests.push({ key: key(start).slice(1), offset: 0n, limit, countTotal, reverse });
            }
          }
        }
      }
      for (const branchStore of [view.store("s"), written.store("s")]) {
        for (const request of requests) {
          const asyncDecode = requests.indexOf(request) % 2 === 1;
          const direct = await pageAndGas(branchStore, request, asyncDecode);
          const iterated = await pageAndGas(iterateOnly(branchStore), request, asyncDecode);
          assert.deepEqual(
            direct,
            iterated,
            JSON.stringify(request, (_k, v) => (typeof v === "bigint" ? `${v}` : v)),
          );
        }
      }
      await multi.close();
    });
  }
});
