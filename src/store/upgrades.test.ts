import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { b, KEEP_ALL, s, tempDir } from "../../test/support/store/helpers.ts";
import { toHex } from "../bytes/hex.ts";
import { readLastCommittedVersion } from "./committed-state.ts";
import { DataDirectoryLockedError, StoreNotFoundError, StoreUpgradeError } from "./errors.ts";
import { storePrefix, TABLE } from "./keys.ts";
import { appHash } from "./merkle.ts";
import { type MultiStore, openMultiStore } from "./multistore.ts";
import { verifyStoreProof } from "./proofs.ts";
import type { StoreUpgrades } from "./types.ts";

async function fill(store: MultiStore, name: string, count: number, tag: string): Promise<void> {
  const block = store.branch();
  for (let i = 0; i < count; i++) block.store(name).set(b(`${name}-${i}`), b(`${tag}-${i}`));
  await store.stage(block);
  await store.commit();
}

async function rowCount(store: MultiStore, from: Uint8Array, to: Uint8Array): Promise<number> {
  let n = 0;
  for await (const _ of store.backend.iterate({ gte: from, lt: to })) n++;
  return n;
}

async function allRows(store: MultiStore): Promise<number> {
  return rowCount(store, new Uint8Array([0]), new Uint8Array([0xff]));
}

/** Opens the same directory again with other stores and upgrades. */
async function reopen(path: string, storeNames: string[], upgrades?: StoreUpgrades): Promise<MultiStore> {
  return openMultiStore({ path, storeNames, pruning: KEEP_ALL, upgrades });
}

describe("store upgrades", () => {
  test("added stores start empty and join the app hash with the next commit", async () => {
    const dir = await tempDir();
    try {
      const v1 = await reopen(dir.path, ["bank"]);
      await fill(v1, "bank", 5, "one");
      const before = v1.lastCommit();
      await v1.close();
      const v2 = await reopen(dir.path, ["bank", "gov"], { added: ["gov"], renamed: [], deleted: [] });
      assert.deepEqual(v2.branch().storeNames(), ["bank", "gov"]);
      assert.equal(await v2.branch().store("gov").get(b("x")), undefined);
      const block = v2.branch();
      block.store("gov").set(b("proposal-1"), b("p"));
      const staged = await v2.stage(block);
      assert.notEqual(toHex(staged.appHash), toHex(before.appHash));
      await v2.commit();
      await v2.close();
      // Applied once: a restart without the upgrade sees both stores.
      const v3 = await reopen(dir.path, ["bank", "gov"]);
      try {
        assert.equal(s(await (await v3.view()).store("gov").get(b("proposal-1"))), "p");
        assert.deepEqual((await v3.view(1n)).storeNames(), ["bank"]);
      } finally {
        await v3.close();
      }
    } finally {
      await dir.remove();
    }
  });

  test("a loader function sees the last committed version and decides", async () => {
    const dir = await tempDir();
    try {
      const v1 = await reopen(dir.path, ["bank"]);
      await fill(v1, "bank", 3, "one");
      await v1.close();
      const seen: bigint[] = [];
      const loader = (last: bigint): StoreUpgrades | undefined => {
        seen.push(last);
        return last + 1n === 2n ? { added: ["gov"], renamed: [], deleted: [] } : undefined;
      };
      const v2 = await openMultiStore({
        path: dir.path,
        storeNames: ["bank", "gov"],
        pruning: KEEP_ALL,
        upgrades: loader,
      });
      await v2.stage(v2.branch());
      await v2.commit();
      await v2.close();
      // After the upgrade height the loader returns nothing, and restarts work.
      const v3 = await openMultiStore({
        path: dir.path,
        storeNames: ["bank", "gov"],
        pruning: KEEP_ALL,
        upgrades: loader,
      });
      await assert.rejects(readLastCommittedVersion(dir.path), DataDirectoryLockedError);
      await v3.close();
      assert.deepEqual(seen, [1n, 2n]);
      // Readable without mounting (what a loader decides on before opening).
      assert.equal(await readLastCommittedVersion(dir.path), 2n);
      assert.equal(await readLastCommittedVersion(`${dir.path}/nothing-here`), 0n);
    } finally {
      await dir.remove();
    }
  });

  test("an upgrade that was never committed is not applied", async () => {
    const dir = await tempDir();
    try {
      const v1 = await reopen(dir.path, ["bank"]);
      await fill(v1, "bank", 3, "one");
      await v1.close();
      const crashed = await reopen(dir.path, ["bank", "gov"], { added: ["gov"], renamed: [], deleted: [] });
      await crashed.close();
      await assert.rejects(reopen(dir.path, ["bank", "gov"]), (err: unknown) => {
        assert.ok(err instanceof StoreUpgradeError);
        assert.match(
          err.message,
          /declares store\(s\) "gov" that the state at version 1 does not have; add them with StoreUpgrades.added/,
        );
        return true;
      });
      const plain = await reopen(dir.path, ["bank"]);
      assert.equal(plain.lastCommit().version, 1n);
      await plain.close();
    } finally {
      await dir.remove();
    }
  });

  test("rename keeps data, root and history, and costs the same for any store size", async () => {
    const dir = await tempDir();
    try {
      const v1 = await reopen(dir.path, ["bank", "acc"]);
      await fill(v1, "bank", 300, "one");
      await fill(v1, "acc", 3, "one");
      const rootBefore = (await v1.prove("bank", b("bank-1"))).ops[1].data;
      await v1.close();
      const v2 = await reopen(dir.path, ["money", "acc"], {
        added: [],
        renamed: [{ oldKey: "bank", newKey: "money" }],
        deleted: [],
      });
      const rowsBefore = await allRows(v2);
      assert.equal(s(await v2.branch().store("money").get(b("bank-7"))), "one-7");
      assert.throws(() => v2.branch().store("bank"), StoreNotFoundError);
      const info = await v2.stage(v2.branch());
      await v2.commit();
      // Only metadata was written: a commit info, the registry and the version pointer.
      assert.ok((await allRows(v2)) - rowsBefore <= 3, "a rename rewrites no data rows");
      assert.equal(
        toHex(info.appHash),
        toHex(
          appHash([
            { name: "acc", root: await storeRoot(v2, "acc") },
            { name: "money", root: await storeRoot(v2, "money") },
          ]),
        ),
      );
      // The renamed store's root is unchanged (data and commitment kept).
      const proof = await v2.prove("money", b("bank-1"));
      assert.ok(verifyStoreProof(proof, info.appHash));
      assert.notDeepEqual(proof.ops[1].data, rootBefore, "the leaf name changed");
      assert.deepEqual(await storeRootFromProof(proof.ops[0].data), await storeRootFromProofBytes(rootBefore));
      // History before the rename reads under the new name (and the old one).
      const old = await v2.view(2n);
      assert.equal(s(await old.store("money").get(b("bank-9"))), "one-9");
      assert.equal(s(await old.store("bank").get(b("bank-9"))), "one-9");
      const oldProof = await v2.prove("money", b("bank-9"), 2n);
      assert.equal(oldProof.storeName, "bank", "the proof names the store as the commitment did then");
      assert.ok(verifyStoreProof(oldProof, old.appHash as Uint8Array));
      // Writes after the rename land in the same store.
      const block = v2.branch();
      block.store("money").set(b("bank-1"), b("two-1"));
      await v2.stage(block);
      await v2.commit();
      assert.equal(s(await (await v2.view()).store("money").get(b("bank-1"))), "two-1");
      assert.equal(s(await (await v2.view(3n)).store("money").get(b("bank-1"))), "one-1");
      await v2.close();
    } finally {
      await dir.remove();
    }
  });

  test("delete drops the store from the app hash at once and reclaims its rows in batches", async () => {
    const dir = await tempDir();
    try {
      const v1 = await reopen(dir.path, ["bank", "crisis"]);
      await fill(v1, "crisis", 200, "one");
      await fill(v1, "bank", 5, "one");
      const bankRoot = await storeRoot(v1, "bank");
      await v1.close();
      const v2 = await openMultiStore({
        path: dir.path,
        storeNames: ["bank"],
        pruning: KEEP_ALL,
        upgrades: { added: [], renamed: [], deleted: ["crisis"] },
        backgroundBatchSize: 25,
      });
      assert.throws(() => v2.branch().store("crisis"), StoreNotFoundError);
      const info = await v2.stage(v2.branch());
      assert.equal(toHex(info.appHash), toHex(appHash([{ name: "bank", root: bankRoot }])));
      await v2.commit();
      // History of a deleted store is refused, with the reason.
      const before = await v2.view(2n);
      assert.deepEqual(before.storeNames(), ["bank", "crisis"]);
      assert.throws(
        () => before.store("crisis"),
        /store "crisis" was deleted by a store upgrade at version 3; its history is no longer kept/,
      );
      await assert.rejects(v2.prove("crisis", b("crisis-1"), 2n), /was deleted/);
      await v2.close();
      // Reclamation resumes after a restart and leaves no row of the store behind.
      const v3 = await reopen(dir.path, ["bank"]);
      try {
        await v3.idle();
        // Store ids follow the declared order on a fresh state: bank 1, crisis 2.
        for (const table of [TABLE.latest, TABLE.deleted, TABLE.history, TABLE.node]) {
          assert.equal(await rowCount(v3, storePrefix(table, 2), storePrefix(table, 3)), 0, `table ${table}`);
        }
        assert.equal(await rowCount(v3, storePrefix(TABLE.latest, 1), storePrefix(TABLE.latest, 2)), 5);
        assert.equal(s(await (await v3.view()).store("bank").get(b("bank-4"))), "one-4");
      } finally {
        await v3.close();
      }
      // The name can be used again: a new, empty store.
      const v4 = await reopen(dir.path, ["bank", "crisis"], { added: ["crisis"], renamed: [], deleted: [] });
      try {
        assert.equal(await v4.branch().store("crisis").get(b("crisis-1")), undefined);
      } finally {
        await v4.close();
      }
    } finally {
      await dir.remove();
    }
  });

  test("upgrades that do not fit the stores are refused with what was wrong", async () => {
    const dir = await tempDir();
    try {
      const v1 = await reopen(dir.path, ["bank", "acc"]);
      await fill(v1, "bank", 2, "x");
      await v1.close();
      const cases: [string[], StoreUpgrades, RegExp][] = [
        [
          ["bank", "acc"],
          { added: [], renamed: [{ oldKey: "nope", newKey: "x" }], deleted: [] },
          /cannot rename "nope" to "x": there is no store "nope"/,
        ],
        [
          ["acc"],
          { added: [], renamed: [{ oldKey: "bank", newKey: "acc" }], deleted: [] },
          /store "acc" already exists/,
        ],
        [["bank", "acc"], { added: [], renamed: [], deleted: ["gov"] }, /cannot delete "gov": there is no such store/],
        [["bank", "acc"], { added: ["bank"], renamed: [], deleted: [] }, /cannot add "bank": the store already exists/],
        [["bank", "acc", "gov"], { added: ["gov", "gov"], renamed: [], deleted: [] }, /listed twice/],
        [
          ["bank"],
          { added: [], renamed: [], deleted: [] },
          /has store\(s\) "acc" that the app does not declare; delete or rename them/,
        ],
        [["bank", "acc"], { added: [""], renamed: [], deleted: [] }, /store names must be non-empty strings/],
        [
          ["bank", "acc"],
          { added: ["beacon"], renamed: [], deleted: [] },
          /cannot add "beacon": the app does not declare a store "beacon" \(it declares "bank", "acc"\)/,
        ],
        [
          ["bank", "acc"],
          { added: [], renamed: [{ oldKey: "acc", newKey: "auth" }], deleted: [] },
          /cannot rename "acc" to "auth": the app does not declare a store "auth" \(it declares "bank", "acc"\)/,
        ],
      ];
      for (const [names, upgrades, message] of cases) {
        await assert.rejects(reopen(dir.path, names, upgrades), message);
      }
      // Nothing was changed by the refused attempts.
      const ok = await reopen(dir.path, ["bank", "acc"]);
      assert.equal(ok.lastCommit().version, 1n);
      await ok.close();
    } finally {
      await dir.remove();
    }
  });
});

async function storeRoot(store: MultiStore, name: string): Promise<Uint8Array> {
  const proof = await store.prove(name, b("\u0000probe"));
  const { decodeCommitmentProof } = await import("./ics23.ts");
  const decoded = decodeCommitmentProof(proof.ops[1].data);
  assert.ok("exist" in decoded);
  return decoded.exist.value;
}

async function storeRootFromProof(data: Uint8Array): Promise<string> {
  const { decodeCommitmentProof, existenceRoot } = await import("./ics23.ts");
  const decoded = decodeCommitmentProof(data);
  assert.ok("exist" in decoded);
  return toHex(existenceRoot(decoded.exist));
}

async function storeRootFromProofBytes(multistoreOp: Uint8Array): Promise<string> {
  const { decodeCommitmentProof } = await import("./ics23.ts");
  const decoded = decodeCommitmentProof(multistoreOp);
  assert.ok("exist" in decoded);
  return toHex(decoded.exist.value);
}
