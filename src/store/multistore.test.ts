import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { b, entries, KEEP_ALL, s, tempDir } from "../../test/support/store/helpers.ts";
import { toHex } from "../bytes/hex.ts";
import {
  FutureVersionError,
  InvalidVersionError,
  PrunedVersionError,
  StoreNotFoundError,
  StoreUsageError,
  VersionLimitError,
} from "./errors.ts";
import { type MultiStore, openMultiStore } from "./multistore.ts";
import { MAX_VERSION } from "./version-limit.ts";

/** A fixed workload: the same writes must give the same app hashes everywhere. */
async function runFixedWorkload(store: MultiStore): Promise<string[]> {
  const hashes: string[] = [];
  const block1 = store.branch();
  for (let i = 0; i < 10; i++) block1.store("bank").set(b(`k${i}`), b(`v1-${i}`));
  block1.store("auth").set(b("a"), b("1"));
  hashes.push(toHex((await store.stage(block1)).appHash));
  await store.commit();
  const block2 = store.branch();
  block2.store("bank").delete(b("k3"));
  block2.store("bank").set(b("k10"), b("v2-10"));
  block2.store("bank").set(b("k0"), b("v2-0"));
  hashes.push(toHex((await store.stage(block2)).appHash));
  await store.commit();
  hashes.push(toHex((await store.stage(store.branch())).appHash));
  await store.commit();
  return hashes;
}

// Computed once by this implementation; a change here means the commitment scheme changed.
const FIXED_HASHES = [
  "8bc9f68215922ff02b8ec280a4c0386b14b508d2148996c15f51b4545a4cb8b6",
  "ee0a326769ef38d1b5aa6de05526cdc9dc199828a9fc37270c839ea3ce9ccb9e",
  "ee0a326769ef38d1b5aa6de05526cdc9dc199828a9fc37270c839ea3ce9ccb9e",
];

describe("multistore", () => {
  test("the same writes give the same app hash on both backends, pinned to fixed values", async () => {
    const memory = await openMultiStore({ backend: "memory", storeNames: ["bank", "auth"], pruning: KEEP_ALL });
    const dir = await tempDir();
    const disk = await openMultiStore({ path: dir.path, storeNames: ["auth", "bank"], pruning: KEEP_ALL });
    try {
      const a = await runFixedWorkload(memory);
      const d = await runFixedWorkload(disk);
      assert.deepEqual(a, d);
      assert.deepEqual(a, FIXED_HASHES);
      // An empty block keeps every store root, so the app hash repeats.
      assert.equal(a[2], a[1]);
    } finally {
      await memory.close();
      await disk.close();
      await dir.remove();
    }
  });

  test("the order of writes inside one version does not matter; spreading them over versions does", async () => {
    const one = await openMultiStore({ backend: "memory", storeNames: ["bank"], pruning: KEEP_ALL });
    const two = await openMultiStore({ backend: "memory", storeNames: ["bank"], pruning: KEEP_ALL });
    const three = await openMultiStore({ backend: "memory", storeNames: ["bank"], pruning: KEEP_ALL });
    try {
      const keys = Array.from({ length: 50 }, (_, i) => `key-${(i * 37) % 50}`);
      const x = one.branch();
      for (const k of keys) x.store("bank").set(b(k), b(k));
      const y = two.branch();
      for (const k of [...keys].reverse()) y.store("bank").set(b(k), b(k));
      const hx = await one.stage(x);
      const hy = await two.stage(y);
      assert.equal(toHex(hx.appHash), toHex(hy.appHash));
      // The same final content reached through two versions hashes differently: IAVL hashes
      // carry the version each node was written at (documented in README.md).
      const z1 = three.branch();
      for (const k of keys.slice(0, 25)) z1.store("bank").set(b(k), b(k));
      await three.stage(z1);
      await three.commit();
      const z2 = three.branch();
      for (const k of keys.slice(25)) z2.store("bank").set(b(k), b(k));
      const hz = await three.stage(z2);
      assert.notEqual(toHex(hz.appHash), toHex(hx.appHash));
    } finally {
      await one.close();
      await two.close();
      await three.close();
    }
  });

  test("commits persist: a reopened store has the same version, hash and data", async () => {
    const dir = await tempDir();
    try {
      const first = await openMultiStore({ path: dir.path, storeNames: ["bank", "auth"], pruning: KEEP_ALL });
      assert.deepEqual(first.lastCommit(), { version: 0n, appHash: new Uint8Array(0) });
      assert.equal(first.earliestVersion(), 0n);
      const hashes = await runFixedWorkload(first);
      await first.close();
      const again = await openMultiStore({ path: dir.path, storeNames: ["bank", "auth"], pruning: KEEP_ALL });
      try {
        assert.equal(again.lastCommit().version, 3n);
        assert.equal(toHex(again.lastCommit().appHash), hashes[2]);
        assert.equal(again.earliestVersion(), 1n);
        const latest = await again.view();
        assert.equal(latest.version, 3n);
        assert.equal(s(await latest.store("bank").get(b("k0"))), "v2-0");
        assert.equal(await latest.store("bank").get(b("k3")), undefined);
        const v1 = await again.view(1n);
        assert.equal(toHex(v1.appHash as Uint8Array), hashes[0]);
        assert.equal(s(await v1.store("bank").get(b("k3"))), "v1-3");
        assert.equal(s(await v1.store("bank").get(b("k0"))), "v1-0");
        assert.equal(await v1.store("bank").get(b("k10")), undefined);
        // The next commit continues the chain.
        const block = again.branch();
        block.store("auth").set(b("b"), b("2"));
        await again.stage(block);
        assert.equal((await again.commit()).version, 4n);
      } finally {
        await again.close();
      }
    } finally {
      await dir.remove();
    }
  });

  test("views read every retained version, including iteration over since-deleted keys", async () => {
    const store = await openMultiStore({ backend: "memory", storeNames: ["bank"], pruning: KEEP_ALL });
    try {
      for (let v = 1; v <= 6; v++) {
        const block = store.branch();
        const bank = block.store("bank");
        bank.set(b(`key-${v}`), b(`${v}`));
        bank.set(b("counter"), b(`${v}`));
        if (v > 1) bank.delete(b(`key-${v - 1}`));
        await store.stage(block);
        await store.commit();
      }
      for (let v = 1; v <= 6; v++) {
        const view = await store.view(BigInt(v));
        assert.equal(view.version, BigInt(v));
        const bank = view.store("bank");
        assert.equal(s(await bank.get(b("counter"))), `${v}`);
        assert.deepEqual(await entries(bank.iterate()), [
          ["counter", `${v}`],
          [`key-${v}`, `${v}`],
        ]);
        assert.deepEqual(await entries(bank.iterate({ reverse: true, limit: 1 })), [[`key-${v}`, `${v}`]]);
        for (let other = 1; other <= 6; other++) {
          assert.equal(await bank.has(b(`key-${other}`)), other === v, `key-${other} at ${v}`);
        }
      }
      assert.deepEqual((await store.view(0n)).version, 6n);
    } finally {
      await store.close();
    }
  });

  test("bad versions: future names the latest, negative is invalid, unknown stores are named", async () => {
    const store = await openMultiStore({ backend: "memory", storeNames: ["bank"], pruning: KEEP_ALL });
    try {
      await assert.rejects(store.view(1n), (err: unknown) => {
        assert.ok(err instanceof FutureVersionError);
        assert.equal(
          err.message,
          "cannot query with height in the future; please provide a valid height (latest height: 0)",
        );
        return true;
      });
      const empty = await store.view();
      assert.equal(empty.version, 0n);
      assert.equal(await empty.store("bank").get(b("x")), undefined);
      await store.stage(store.branch());
      await store.commit();
      await assert.rejects(store.view(2n), /latest height: 1\)$/);
      await assert.rejects(store.view(-1n), InvalidVersionError);
      await assert.rejects(store.view(1 as unknown as bigint), /version must be a bigint/);
      await assert.rejects(store.prove("bank", b("x"), 5n), FutureVersionError);
      const view = await store.view(1n);
      assert.throws(() => view.store("nope"), StoreNotFoundError);
      assert.throws(
        () => view.store("nope"),
        /store "nope" not found at version 1; the stores at that version are: bank/,
      );
      assert.ok(
        new PrunedVersionError(3n, 5n, 9n).message.includes("(earliest available height: 5, latest height: 9)"),
      );
    } finally {
      await store.close();
    }
  });

  test("lifecycle misuse gets clear errors", async () => {
    const store = await openMultiStore({ backend: "memory", storeNames: ["bank"], pruning: KEEP_ALL });
    const other = await openMultiStore({ backend: "memory", storeNames: ["bank"], pruning: KEEP_ALL });
    try {
      await assert.rejects(
        store.commit(),
        (err: unknown) => err instanceof StoreUsageError && /nothing is staged/.test(err.message),
      );
      await assert.rejects(store.stage(other.branch()), /stage\(\) takes a branch made by this store's branch\(\)/);
      await assert.rejects(store.stage(store.branch().branch()), /top-level branch/);
      await assert.rejects(store.prove("bank", b("x")), /nothing is committed yet/);
      const block = store.branch();
      block.store("bank").set(b("a"), b("1"));
      await store.stage(block);
      store.discardStaged();
      await assert.rejects(store.commit(), /nothing is staged/);
      assert.equal(store.lastCommit().version, 0n);
      assert.equal(await store.branch().store("bank").get(b("a")), undefined, "discard dropped the writes");
    } finally {
      await store.close();
      await other.close();
    }
    assert.throws(() => store.branch(), /the state store is closed/);
    await assert.rejects(store.view(), /closed/);
    await store.close();
  });

  test("bad options are refused before anything is opened", async () => {
    await assert.rejects(
      openMultiStore({ storeNames: ["bank"] } as unknown as Parameters<typeof openMultiStore>[0]),
      /path \(the data directory\) is required unless backend is "memory"/,
    );
    await assert.rejects(
      openMultiStore({ backend: "memory", storeNames: ["bank", "bank"] }),
      /store "bank" is declared twice/,
    );
    await assert.rejects(
      openMultiStore({
        backend: "memory",
        storeNames: ["bank"],
        pruning: { strategy: "custom", keepRecent: 2n, interval: 0n },
      }),
      /'pruning-interval' must not be 0/,
    );
    await assert.rejects(
      openMultiStore({
        backend: "memory",
        storeNames: ["bank"],
        pruning: { strategy: "sometimes" as "custom", keepRecent: 0n, interval: 0n },
      }),
      /unknown pruning strategy sometimes/,
    );
  });

  test("a view keeps reading its own version while a newer commit is written and after", async () => {
    const dir = await tempDir();
    const store = await openMultiStore({ path: dir.path, storeNames: ["bank"], pruning: KEEP_ALL });
    try {
      const first = store.branch();
      first.store("bank").set(b("a"), b("1"));
      first.store("bank").set(b("gone"), b("1"));
      await store.stage(first);
      await store.commit();
      const view = await store.view();
      const bank = view.store("bank");
      const second = store.branch();
      second.store("bank").set(b("a"), b("2"));
      second.store("bank").set(b("new"), b("2"));
      second.store("bank").delete(b("gone"));
      await store.stage(second);
      const committing = store.commit();
      // While the batch is being written and after it landed, version 1 stays version 1.
      const during = await Promise.all([
        bank.get(b("a")),
        bank.get(b("new")),
        bank.get(b("gone")),
        entries(bank.iterate()),
      ]);
      await committing;
      const afterwards = await Promise.all([
        bank.get(b("a")),
        bank.get(b("new")),
        bank.get(b("gone")),
        entries(bank.iterate()),
      ]);
      for (const [a, added, gone, all] of [during, afterwards] as const) {
        assert.equal(s(a), "1");
        assert.equal(added, undefined);
        assert.equal(s(gone), "1");
        assert.deepEqual(all, [
          ["a", "1"],
          ["gone", "1"],
        ]);
      }
      assert.equal(s(await (await store.view()).store("bank").get(b("a"))), "2");
    } finally {
      await store.close();
      await dir.remove();
    }
  });

  test("an initial version starts the chain above 1", async () => {
    const store = await openMultiStore({
      backend: "memory",
      storeNames: ["bank"],
      initialVersion: 100n,
      pruning: KEEP_ALL,
    });
    try {
      const block = store.branch();
      block.store("bank").set(b("a"), b("1"));
      assert.equal((await store.stage(block)).version, 100n);
      await store.commit();
      assert.equal(store.earliestVersion(), 100n);
      await assert.rejects(store.view(99n), /version pruned \(earliest available height: 100, latest height: 100\)/);
    } finally {
      await store.close();
    }
  });

  test("commits up to version 2^53 − 1 and refuses the next one in one line, writing nothing", async () => {
    const dir = await tempDir();
    try {
      const open = () => openMultiStore({ path: dir.path, storeNames: ["bank"], pruning: KEEP_ALL });
      let store = await open();
      // A chain started at 2^53 − 2 (N13's second finding): its second block is the last the store can number.
      store.setInitialVersion(MAX_VERSION - 1n);
      for (const expected of [MAX_VERSION - 1n, MAX_VERSION]) {
        const block = store.branch();
        block.store("bank").set(b("h"), b(String(expected)));
        assert.equal((await store.stage(block)).version, expected);
        await store.commit();
      }
      const last = store.lastCommit();
      const next = store.branch();
      next.store("bank").set(b("h"), b("next"));
      await assert.rejects(
        store.stage(next),
        (err: unknown) =>
          err instanceof VersionLimitError &&
          err.message ===
            "the state store numbers versions (block heights) up to 9007199254740991 (2^53 − 1) and holds version 9007199254740991: no later block can be committed",
      );
      await store.close();
      store = await open();
      assert.deepEqual(store.lastCommit(), last, "nothing was written");
      assert.equal(s(await (await store.view()).store("bank").get(b("h"))), String(MAX_VERSION));
      assert.throws(() => store.setInitialVersion(MAX_VERSION + 1n), /expected a version from 1 to 9007199254740991/);
      await store.close();
    } finally {
      await dir.remove();
    }
  });
});
