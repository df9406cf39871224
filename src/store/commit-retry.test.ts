import assert from "node:assert/strict";
import { test } from "node:test";
import { b, failBatchWrites, KEEP_ALL, s, tempDir } from "../../test/support/store/helpers.ts";
import { toHex } from "../bytes/hex.ts";
import { type MultiStore, openMultiStore } from "./multistore.ts";
import { verifyStoreProof } from "./proofs.ts";

/** Block `n` of a fixed workload: updates and inserts (and a delete) into "bank". */
async function block(store: MultiStore, n: number): Promise<string> {
  const branch = store.branch();
  const bank = branch.store("bank");
  for (let i = 0; i < 150; i++) bank.set(b(`key-${(i * 7 + n * 31) % 300}`), b(`value-${n}-${i}`));
  bank.delete(b(`key-${n}`));
  const info = await store.stage(branch);
  await store.commit();
  return toHex(info.appHash);
}

test("a commit whose write fails is retried with the same hash, and its tree pages are all written", async () => {
  const dir = await tempDir();
  const reference = await openMultiStore({ backend: "memory", storeNames: ["bank"], pruning: KEEP_ALL });
  // No node cache: every node the later commits and proofs need is read back from its page.
  let store = await openMultiStore({ path: dir.path, storeNames: ["bank"], pruning: KEEP_ALL, nodeCacheSize: 0 });
  try {
    for (let n = 1; n <= 3; n++) assert.equal(await block(store, n), await block(reference, n));

    const branch = store.branch();
    for (let i = 0; i < 150; i++) branch.store("bank").set(b(`key-${(i * 11) % 400}`), b(`retry-${i}`));
    // Deletes too (one of a key that exists, one of a key that does not): the retry puts their rows again.
    branch.store("bank").delete(b("key-7"));
    branch.store("bank").delete(b("absent-key"));
    // stage() fills the version's batch with its rows, so the failing batch is the one stage takes; the
    // retry rebuilds the batch from the staged changes.
    // Version 3's tree pages are written after its commit resolved: they must not meet the failure.
    await store.idle();
    const restore = failBatchWrites(store, { applied: false });
    const staged = await store.stage(branch);
    await assert.rejects(store.commit(), { code: "STORE_COMMIT_FAILED" });
    restore();
    const committed = await store.commit();
    assert.deepEqual(committed.appHash, staged.appHash);

    const same = reference.branch();
    for (let i = 0; i < 150; i++) same.store("bank").set(b(`key-${(i * 11) % 400}`), b(`retry-${i}`));
    same.store("bank").delete(b("key-7"));
    same.store("bank").delete(b("absent-key"));
    assert.deepEqual((await reference.stage(same)).appHash, staged.appHash);
    await reference.commit();

    await store.close();
    store = await openMultiStore({ path: dir.path, storeNames: ["bank"], pruning: KEEP_ALL, nodeCacheSize: 0 });
    for (const key of ["key-0", "key-11", "key-399", "key-250", "absent"]) {
      const proof = await store.prove("bank", b(key), 4n);
      assert.ok(verifyStoreProof(proof, staged.appHash), key);
    }
    assert.equal(s(await (await store.view(4n)).store("bank").get(b("key-11"))), "retry-1");
    assert.equal(await (await store.view(4n)).store("bank").get(b("key-7")), undefined);
    assert.notEqual(await (await store.view(3n)).store("bank").get(b("key-7")), undefined);
    for (let n = 5; n <= 6; n++) assert.equal(await block(store, n), await block(reference, n));
  } finally {
    await store.close();
    await reference.close();
    await dir.remove();
  }
});
