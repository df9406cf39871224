import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { b, KEEP_ALL, tempDir } from "../../test/support/store/helpers.ts";
import { LongScanCopies, setLongScanEntries } from "./long-scan-copies.ts";
import { openMultiStore } from "./multistore.ts";
import type { ReadableKVStore } from "./types.ts";

describe("LongScanCopies", () => {
  test("hands out the engine's arrays up to the threshold, then copies in slabs of its own", () => {
    const old = setLongScanEntries(2);
    try {
      const copies = new LongScanCopies();
      const engine = [0, 1, 2, 3].map((i) => [b(`key-${i}`), b(`value-${i}`)] as const);
      const out = engine.map(([key, value]) => copies.entry(key, value));
      assert.equal(out[0][0], engine[0][0]);
      assert.equal(out[1][1], engine[1][1]);
      for (const i of [2, 3]) {
        assert.deepEqual(out[i], [engine[i][0], engine[i][1]]);
        assert.notEqual(out[i][0].buffer, engine[i][0].buffer);
      }
      // The copies share one slab, and what the engine does to its buffers afterwards does not reach them.
      assert.equal(out[2][0].buffer, out[3][1].buffer);
      engine[3][1].fill(0);
      assert.deepEqual(out[3][1], b("value-3"));
    } finally {
      setLongScanEntries(old);
    }
  });
});

describe("a long scan of the state", () => {
  /** Whether an entry's arrays are views of a 64 KiB slab rather than LevelDB's own small buffers. */
  const inSlab = (bytes: Uint8Array) => bytes.buffer.byteLength === 64 * 1024;

  async function scan(store: ReadableKVStore): Promise<[Uint8Array, Uint8Array][]> {
    const out: [Uint8Array, Uint8Array][] = [];
    for await (const entry of store.iterate()) out.push(entry);
    return out;
  }

  test("the working set and a view at the latest version read the same entries, past the threshold from slabs", async () => {
    const dir = await tempDir();
    const store = await openMultiStore({ path: dir.path, storeNames: ["bank"], pruning: KEEP_ALL });
    const old = setLongScanEntries(10);
    try {
      const block = store.branch();
      const expected: [Uint8Array, Uint8Array][] = [];
      for (let i = 0; i < 300; i++) {
        const entry: [Uint8Array, Uint8Array] = [b(`k${String(i).padStart(4, "0")}`), b(`v${i}`.repeat(1 + (i % 7)))];
        expected.push(entry);
        block.store("bank").set(entry[0], entry[1]);
      }
      await store.stage(block);
      await store.commit();
      for (const [name, source] of [
        ["working set", store.branch().store("bank")],
        ["view", (await store.view()).store("bank")],
      ] as const) {
        const read = await scan(source);
        assert.deepEqual(read, expected, name);
        assert.equal(
          read.slice(0, 10).some(([k, v]) => inSlab(k) || inSlab(v)),
          false,
          `${name}: the first ten`,
        );
        assert.equal(
          read.slice(10).every(([k, v]) => inSlab(k) && inSlab(v)),
          true,
          `${name}: the rest`,
        );
      }
    } finally {
      setLongScanEntries(old);
      await store.close();
      await dir.remove();
    }
  });
});
