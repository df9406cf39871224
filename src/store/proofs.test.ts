import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { CommitmentProof as CosmjsCommitmentProof } from "cosmjs-types/cosmos/ics23/v1/proofs";
import { b, KEEP_ALL } from "../../test/support/store/helpers.ts";
import { decodeCommitmentProof, encodeCommitmentProof } from "./ics23.ts";
import { type MultiStore, openMultiStore } from "./multistore.ts";
import { PROOF_OP_IAVL, PROOF_OP_SIMPLE, verifyStoreProof } from "./proofs.ts";
import type { StoreProof } from "./types.ts";

function flip(bytes: Uint8Array, index: number): Uint8Array {
  const out = bytes.slice();
  out[index % out.length] ^= 0x01;
  return out;
}

describe("proofs", () => {
  let store: MultiStore;
  const hashes: Uint8Array[] = [];

  before(async () => {
    store = await openMultiStore({
      backend: "memory",
      storeNames: ["acc", "bank", "gov", "upgrade"],
      pruning: KEEP_ALL,
    });
    for (let v = 1; v <= 4; v++) {
      const block = store.branch();
      for (let i = 0; i < 40; i++) block.store("bank").set(b(`k${String(i * 3).padStart(3, "0")}`), b(`v${v}-${i}`));
      if (v >= 2) block.store("bank").delete(b("k030"));
      block.store("acc").set(b(`a${v}`), b("x"));
      hashes[v] = (await store.stage(block)).appHash;
      await store.commit();
    }
  });

  after(() => store.close());

  test("existence proofs verify at the latest and at older versions", async () => {
    for (let v = 1; v <= 4; v++) {
      const proof = await store.prove("bank", b("k060"), BigInt(v));
      assert.equal(new TextDecoder().decode(proof.value), `v${v}-20`);
      assert.equal(proof.version, BigInt(v));
      assert.deepEqual(
        proof.ops.map((o) => o.type),
        [PROOF_OP_IAVL, PROOF_OP_SIMPLE],
      );
      assert.deepEqual(proof.ops[1].key, b("bank"));
      assert.ok(verifyStoreProof(proof, hashes[v]), `version ${v}`);
      assert.ok(!verifyStoreProof(proof, hashes[v === 4 ? 3 : v + 1]), "another version's app hash");
      const view = await store.view(BigInt(v));
      assert.deepEqual(view.appHash, hashes[v]);
    }
    // Latest by default.
    assert.ok(verifyStoreProof(await store.prove("bank", b("k000")), hashes[4]));
  });

  test("non-existence proofs: between keys, before the first, after the last, deleted keys", async () => {
    for (const key of ["k001", "a", "zzz", "k030", "k0600"]) {
      const proof = await store.prove("bank", b(key));
      assert.equal(proof.value, undefined, key);
      assert.ok(verifyStoreProof(proof, hashes[4]), key);
    }
    // k030 existed at version 1 only.
    const old = await store.prove("bank", b("k030"), 1n);
    assert.ok(old.value !== undefined);
    assert.ok(verifyStoreProof(old, hashes[1]));
    // An empty store proves absence against the empty root.
    const empty = await store.prove("gov", b("anything"));
    assert.ok(verifyStoreProof(empty, hashes[4]));
    assert.ok(
      !verifyStoreProof(
        { ...empty, storeName: "upgrade", ops: [empty.ops[0], { ...empty.ops[1], key: b("upgrade") }] },
        hashes[4],
      ),
    );
  });

  test("tampered proofs are rejected", async () => {
    const good = await store.prove("bank", b("k060"));
    const absent = await store.prove("bank", b("k061"));
    const app = hashes[4];
    const variants: [string, StoreProof, Uint8Array][] = [
      ["other value", { ...good, value: b("forged") }, app],
      ["claims absence", { ...good, value: undefined }, app],
      ["other key", { ...good, key: b("k063") }, app],
      ["other store", { ...good, storeName: "acc" }, app],
      ["absent key claims a value", { ...absent, value: b("v4-20") }, app],
      ["ops swapped", { ...good, ops: [good.ops[1], good.ops[0]] }, app],
      ["one op", { ...good, ops: [good.ops[0]] }, app],
      ["wrong app hash", good, flip(app, 3)],
      ["garbage data", { ...good, ops: [{ ...good.ops[0], data: b("garbage") }, good.ops[1]] }, app],
      ["wrong op type", { ...good, ops: [{ ...good.ops[0], type: "ics23:smt" }, good.ops[1]] }, app],
    ];
    for (let i = 0; i < good.ops[0].data.length; i += 7) {
      variants.push([
        `store op byte ${i}`,
        { ...good, ops: [{ ...good.ops[0], data: flip(good.ops[0].data, i) }, good.ops[1]] },
        app,
      ]);
    }
    for (let i = 0; i < good.ops[1].data.length; i += 5) {
      variants.push([
        `multistore op byte ${i}`,
        { ...good, ops: [good.ops[0], { ...good.ops[1], data: flip(good.ops[1].data, i) }] },
        app,
      ]);
    }
    for (let i = 0; i < absent.ops[0].data.length; i += 7) {
      variants.push([
        `absence op byte ${i}`,
        { ...absent, ops: [{ ...absent.ops[0], data: flip(absent.ops[0].data, i) }, absent.ops[1]] },
        app,
      ]);
    }
    assert.ok(verifyStoreProof(good, app));
    assert.ok(verifyStoreProof(absent, app));
    for (const [name, proof, hash] of variants) {
      assert.equal(verifyStoreProof(proof, hash), false, name);
    }
  });

  test("a non-existence proof whose neighbours are not adjacent is rejected", async () => {
    // Glue the left neighbour of k001 to the right neighbour of k004: both verify on their own,
    // but they are not adjacent, so absence of k002 would be a lie if k003 existed.
    const lowProof = decodeCommitmentProof((await store.prove("bank", b("k001"))).ops[0].data);
    const highProof = decodeCommitmentProof((await store.prove("bank", b("k004"))).ops[0].data);
    assert.ok("nonexist" in lowProof && "nonexist" in highProof);
    const forged = encodeCommitmentProof({
      nonexist: { key: b("k002"), left: lowProof.nonexist.left, right: highProof.nonexist.right },
    });
    const base = await store.prove("bank", b("k002"));
    assert.ok(verifyStoreProof(base, hashes[4]));
    assert.equal(verifyStoreProof({ ...base, ops: [{ ...base.ops[0], data: forged }, base.ops[1]] }, hashes[4]), false);
  });

  test("proof data is standard ICS-23 CommitmentProof encoding (decoded by cosmjs-types)", async () => {
    const good = await store.prove("bank", b("k060"));
    const decoded = CosmjsCommitmentProof.decode(good.ops[0].data);
    assert.ok(decoded.exist !== undefined);
    assert.deepEqual(decoded.exist.key, b("k060"));
    assert.equal(decoded.exist.leaf?.hash, 1);
    assert.equal(decoded.exist.leaf?.prehashValue, 1);
    assert.equal(decoded.exist.leaf?.length, 1);
    assert.equal(decoded.exist.leaf?.prefix[0], 0);
    assert.ok(decoded.exist.path.length >= 5);
    // Re-encoding with the reference codec gives the same bytes.
    assert.deepEqual(CosmjsCommitmentProof.encode(decoded).finish(), good.ops[0].data);
    const multi = CosmjsCommitmentProof.decode(good.ops[1].data);
    assert.deepEqual(multi.exist?.key, b("bank"));
    assert.equal(multi.exist?.path.length, 2, "four stores: two levels of the simple merkle tree");
    const absent = CosmjsCommitmentProof.decode((await store.prove("bank", b("k061"))).ops[0].data);
    assert.deepEqual(absent.nonexist?.left?.key, b("k060"));
    assert.deepEqual(absent.nonexist?.right?.key, b("k063"));
  });

  test("an existence proof written straight from its path has the bytes of the generic encoder, at every version", async () => {
    const store2 = await openMultiStore({ backend: "memory", storeNames: ["bank", "staking"], pruning: KEEP_ALL });
    try {
      const keys = Array.from({ length: 300 }, (_, i) => b(`key-${(i * 7919) % 1000}`));
      const appHashes: Uint8Array[] = [];
      for (let v = 1; v <= 5; v++) {
        const block = store2.branch();
        for (let i = v - 1; i < keys.length; i += 3) block.store("bank").set(keys[i], b(`v${v}-${i}`));
        // An empty value: proto3 omits the field.
        block.store("bank").set(b("empty"), new Uint8Array(0));
        block.store("staking").set(b(`s${v}`), b("x"));
        appHashes[v] = (await store2.stage(block)).appHash;
        await store2.commit();
        for (let version = 1; version <= v; version++) {
          for (const key of [...keys.filter((_, i) => i % 11 === v), b("empty")]) {
            const proof = await store2.prove("bank", key, BigInt(version));
            const data = proof.ops[0].data;
            assert.deepEqual(encodeCommitmentProof(decodeCommitmentProof(data)), data);
            assert.deepEqual(CosmjsCommitmentProof.encode(CosmjsCommitmentProof.decode(data)).finish(), data);
            assert.ok(verifyStoreProof(proof, appHashes[version]));
          }
        }
      }
    } finally {
      await store2.close();
    }
  });
});
