// Gas meters and the gas-metered KV store: upstream's costs, descriptors and charge order.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { openMultiStore } from "../store/index.ts";
import type { KVStore } from "../store/types.ts";
import { KV_GAS_CONFIG, MAX_GAS, newGasMeter, newInfiniteGasMeter, OutOfGasError } from "./gas.ts";
import { gasKVStore, perByteGas } from "./gas-kv-store.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

async function meteredStore(limit?: bigint) {
  const store = await openMultiStore({ backend: "memory", storeNames: ["s"] });
  const meter = limit === undefined ? newInfiniteGasMeter() : newGasMeter(limit);
  return { kv: gasKVStore(store.branch().store("s"), meter), meter };
}

describe("gas", () => {
  it("throws past the limit, naming the descriptor, and keeps counting above it", () => {
    const meter = newGasMeter(100n);
    meter.consume(60n, "a");
    assert.throws(
      () => meter.consume(50n, "WriteFlat"),
      (err: Error) => {
        assert.ok(err instanceof OutOfGasError);
        assert.equal(err.descriptor, "WriteFlat");
        assert.equal(err.consumed, 110n);
        return true;
      },
    );
    assert.equal(meter.consumed(), 110n);
    assert.equal(meter.consumedToLimit(), 100n);
    assert.equal(meter.remaining(), 0n);
    const infinite = newInfiniteGasMeter();
    infinite.consume(10n ** 15n, "x");
    assert.equal(infinite.limit, MAX_GAS);
  });

  it("charges upstream's KV costs", async () => {
    const { kv, meter } = await meteredStore();
    kv.set(bytes("key"), bytes("value"));
    assert.equal(meter.consumed(), 2000n + 30n * 3n + 30n * 5n);
    let before = meter.consumed();
    await kv.get(bytes("key"));
    assert.equal(meter.consumed() - before, 1000n + 3n * 3n + 3n * 5n);
    before = meter.consumed();
    await kv.get(bytes("nope"));
    assert.equal(meter.consumed() - before, 1000n + 3n * 4n);
    before = meter.consumed();
    await kv.has(bytes("key"));
    kv.delete(bytes("nope"));
    assert.equal(meter.consumed() - before, 2000n);
    kv.set(bytes("k2"), bytes("vv"));
    before = meter.consumed();
    const seen = [];
    for await (const entry of kv.iterate()) seen.push(entry);
    assert.equal(seen.length, 2);
    // Each entry: 3 per key and value byte plus 30; one more 30 for the step past the end.
    assert.equal(meter.consumed() - before, 3n * (2n + 2n) + 30n + 3n * (3n + 5n) + 30n + 30n);
  });

  it("stops a write that runs out of gas before it happens", async () => {
    const { kv } = await meteredStore(2050n);
    assert.throws(() => kv.set(bytes("key"), bytes("value")), { name: "OutOfGasError", descriptor: "WritePerByte" });
    assert.equal(await kv.has(bytes("key")).catch(() => "out of gas"), "out of gas");
  });

  it("a read charges the same through a branch (answered at once) and through an async-only store; running out rejects", async () => {
    const store = await openMultiStore({ backend: "memory", storeNames: ["s"] });
    const branchStore = store.branch().store("s");
    branchStore.set(bytes("key"), bytes("value"));
    // The same store seen through its async methods only (as a store that must wait on I/O would be).
    const asyncOnly: KVStore = {
      get: (key) => branchStore.get(key),
      has: (key) => branchStore.has(key),
      iterate: (options) => branchStore.iterate(options),
      set: (key, value) => branchStore.set(key, value),
      delete: (key) => branchStore.delete(key),
    };
    for (const parent of [branchStore, asyncOnly]) {
      const meter = newInfiniteGasMeter();
      const kv = gasKVStore(parent, meter);
      assert.equal(new TextDecoder().decode(await kv.get(bytes("key"))), "value");
      assert.equal(await kv.get(bytes("nope")), undefined);
      assert.equal(meter.consumed(), 1000n + 3n * 3n + 3n * 5n + 1000n + 3n * 4n);
      const limited = gasKVStore(parent, newGasMeter(1010n));
      const read = limited.get(bytes("key")); // a promise, never a synchronous throw
      await assert.rejects(read, { name: "OutOfGasError", descriptor: "ReadPerByte" });
    }
  });
});

it("the per-byte charge from the table is the product, for every length and any number of costs", () => {
  for (let cost = 0n; cost < 12n; cost++) {
    for (const length of [0, 1, 2, 33, 500, 1023, 1024, 1025, 70_000]) {
      assert.equal(perByteGas(cost, length), cost * BigInt(length), `${cost} × ${length}`);
    }
  }
  assert.equal(perByteGas(KV_GAS_CONFIG.writeCostPerByte, 40), 1200n);
});
