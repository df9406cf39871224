// The read caches (latest-cache.ts, latest-range-cache.ts, a VersionSource's remembered ranges), the
// commit staged ahead, holds and flat-state's exact-latest paths. Each test drives the store under test (LevelDB, the
// caches on: the default) beside a reference (the same operations on a store with `latestCacheBytes: 0`, or on the
// memory backend, or the same reads without the interleaving under test) and compares reads at every retained version.
// Those on a deleted store read through an older view, a historical scan across a commit, a hold taken during a
// commit's write and a hold of version 0 failed on the code as reviewed (round 3 session 27), and hold since the fixes.
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import { b, entries, failBatchWrites, KEEP_ALL, s, tempDir } from "../../test/support/store/helpers.ts";
import { assertSameReads, both, branchOf, commitOps, type Op } from "../../test/support/store/ops.ts";
import { toHex } from "../bytes/hex.ts";
import { TABLE } from "./keys.ts";
import type { KeyRange, KVBatch } from "./kv-backend.ts";
import { type MultiStore, type OpenMultiStoreOptions, openMultiStore } from "./multistore.ts";
import type { ReadOnlyStore } from "./read-only-store.ts";
import type { PruningOptions, StoreUpgrades } from "./types.ts";

const KEYS = Array.from({ length: 30 }, (_, i) => `k${String(i).padStart(2, "0")}`);

/** Ranges read by scans (forward and reverse; whole, short and empty), as iterate options. */
const RANGES: { start?: string; end?: string }[] = [{}, { start: "k05", end: "k15" }, { start: "k20" }, { end: "k03" }];

function rangeOptions(r: { start?: string; end?: string }, reverse: boolean, limit?: number) {
  return {
    start: r.start === undefined ? undefined : b(r.start),
    end: r.end === undefined ? undefined : b(r.end),
    reverse,
    limit,
  };
}

function pairs(list: [Uint8Array, Uint8Array][]): [string, string][] {
  return list.map(([k, v]) => [s(k) as string, s(v) as string]);
}

/** Reads of one store of a view (or the working set): gets, scans, readRange with limits, both directions. */
async function readsOf(
  store: Pick<ReadOnlyStore, "get" | "iterate"> & { readRange?: ReadOnlyStore["readRange"] },
  keys: string[],
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const key of keys) out[`get ${key}`] = s(await store.get(b(key)));
  for (const r of RANGES) {
    for (const reverse of [false, true]) {
      const label = `${r.start ?? ""}..${r.end ?? ""}${reverse ? " rev" : ""}`;
      out[`scan ${label}`] = await entries(store.iterate(rangeOptions(r, reverse)));
      out[`scan ${label} limit 3`] = await entries(store.iterate(rangeOptions(r, reverse, 3)));
      if (store.readRange !== undefined) {
        for (const limit of [1, 4, 100]) {
          out[`readRange ${label} limit ${limit}`] = pairs(
            await store.readRange({ ...rangeOptions(r, reverse), limit }),
          );
        }
      }
    }
  }
  return out;
}

/** assertSameReads with every read form, twice (the second round reads what the caches kept). */
function assertSameReadsTwice(got: MultiStore, want: MultiStore, names: string[], keys: string[], label: string) {
  return assertSameReads(got, want, names, keys, label, {
    reads: (store, keys) => readsOf(store as ReadOnlyStore, keys),
    rounds: 2,
  });
}

/** The next block's working set (a fresh branch: the latest-value and range caches) against the reference's. */
async function assertSameWorkingSet(
  got: MultiStore,
  want: MultiStore,
  names: string[],
  keys: string[],
  label: string,
): Promise<void> {
  for (let round = 0; round < 2; round++) {
    for (const name of names) {
      assert.deepEqual(
        await readsOf(got.branch().store(name), keys),
        await readsOf(want.branch().store(name), keys),
        `${label}: working set of ${name} (round ${round})`,
      );
    }
  }
}

/** Warms every cache: working-set scans and gets, and reads at every retained version. */
async function warm(store: MultiStore, names: string[], keys: string[]): Promise<void> {
  for (const name of names) await readsOf(store.branch().store(name), keys);
  for (let v = store.earliestVersion(); v <= store.lastCommit().version; v++) {
    if (v === 0n) continue;
    const view = await store.view(v);
    for (const name of names.filter((n) => view.storeNames().includes(n))) {
      await readsOf(view.store(name) as ReadOnlyStore, keys);
    }
  }
}

function options(
  path: string,
  storeNames: string[],
  extra: Partial<OpenMultiStoreOptions> = {},
): OpenMultiStoreOptions {
  return { path, storeNames, pruning: KEEP_ALL, ...extra };
}

/** A store under test (caches on) and its reference (caches off), both on LevelDB. */
async function pair(
  dir: string,
  storeNames: string[],
  extra: Partial<OpenMultiStoreOptions> = {},
): Promise<{ got: MultiStore; want: MultiStore }> {
  const got = await openMultiStore(options(join(dir, "got"), storeNames, extra));
  const want = await openMultiStore(options(join(dir, "want"), storeNames, { ...extra, latestCacheBytes: 0 }));
  return { got, want };
}

async function reopen(
  dir: string,
  stores: { got: MultiStore; want: MultiStore },
  storeNames: string[],
  extra: Partial<OpenMultiStoreOptions>,
): Promise<{ got: MultiStore; want: MultiStore }> {
  await stores.got.close();
  await stores.want.close();
  return pair(dir, storeNames, extra);
}

/** Makes the store's next batches' write() wait for `gate` (after telling `reached`): a commit in flight. */
function gateBatchWrites(store: MultiStore): { reached: Promise<void>; open: () => void; restore: () => void } {
  const backend = store.backend;
  const batch = backend.batch.bind(backend);
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let reach!: () => void;
  const reached = new Promise<void>((resolve) => {
    reach = resolve;
  });
  backend.batch = (): KVBatch => {
    const real = batch();
    return {
      ...real,
      write: async (sync: boolean) => {
        reach();
        await gate;
        await real.write(sync);
      },
    };
  };
  return {
    reached,
    open,
    restore: () => {
      backend.batch = batch;
    },
  };
}

/**
 * Makes the next iterator the store opens over its latest table answer its first next() only once `gate` resolves
 * (the engine's read waiting in the thread pool, as on a busy machine): its snapshot is taken at once, as LevelDB's.
 */
function slowFirstLatestRead(store: MultiStore, gate: Promise<void>): void {
  const backend = store.backend;
  let armed = true;
  // The first iterator over the latest table (opened by the backend or by a snapshot of it) hands its first entry
  // back only once `gate` opens; its engine iterator (and so what it sees) is opened at once.
  const slowed = (inner: AsyncIterable<[Uint8Array, Uint8Array]>, range: KeyRange) => {
    if (!armed || range.gte?.[0] !== TABLE.latest) return inner;
    armed = false;
    const it = inner[Symbol.asyncIterator]();
    let first = true;
    const slow: AsyncIterableIterator<[Uint8Array, Uint8Array]> = {
      [Symbol.asyncIterator]() {
        return slow;
      },
      async next() {
        const result = it.next();
        if (first) {
          first = false;
          await gate;
        }
        return result;
      },
      async return() {
        await it.return?.();
        return { done: true, value: undefined };
      },
    };
    return slow;
  };
  const iterate = backend.iterate.bind(backend);
  backend.iterate = (range: KeyRange, map?: (entry: [Uint8Array, Uint8Array]) => [Uint8Array, Uint8Array]) =>
    slowed(iterate(range, map), range);
  const snapshot = backend.snapshot.bind(backend);
  backend.snapshot = () => {
    const inner = snapshot();
    return { iterate: (range: KeyRange) => slowed(inner.iterate(range), range), close: () => inner.close() };
  };
}

// ---- 1. the range cache and the value cache -------------------------------------------------------------------------

describe("1. the latest-value and range caches", () => {
  test("store upgrades (rename, add, delete) with warm caches: every version and the working set as a cacheless store", async () => {
    const dir = await tempDir();
    const before = ["auth", "bank", "dex"];
    const after = ["auth", "mint", "vault"];
    const upgrades: StoreUpgrades = {
      added: ["mint"],
      renamed: [{ oldKey: "bank", newKey: "vault" }],
      deleted: ["dex"],
    };
    let stores = await pair(dir.path, before);
    try {
      const fill = (tag: string, every: number): Op[] =>
        KEYS.filter((_, i) => i % every === 0).flatMap((k): Op[] => [
          ["bank", k, `${tag}-b-${k}`],
          ["dex", k, `${tag}-d-${k}`],
        ]);
      await both(stores.got, stores.want, [...fill("v1", 1), ["auth", "h", "1"]]);
      await both(stores.got, stores.want, [...fill("v2", 3), ["bank", "k07", null], ["bank", "k08", null]]);
      await warm(stores.got, before, KEYS);
      await assertSameReadsTwice(stores.got, stores.want, before, KEYS, "before the upgrade");
      stores = await reopen(dir.path, stores, after, { upgrades });
      // The upgrade is planned: the working set and the views read the renamed store under its new name.
      await warm(stores.got, after, KEYS);
      await assertSameWorkingSet(stores.got, stores.want, after, KEYS, "upgrade planned");
      // Version 3: the upgrade, with writes into the renamed and the added store (a deleted key set again).
      await both(stores.got, stores.want, [
        ["vault", "k07", "v3-again"],
        ["vault", "k10", "v3"],
        ["mint", "k05", "m3"],
        ["mint", "k12", "m3"],
      ]);
      await assertSameReadsTwice(stores.got, stores.want, [...after, "bank"], KEYS, "after the upgrade");
      await assertSameWorkingSet(stores.got, stores.want, after, KEYS, "after the upgrade");
      await warm(stores.got, after, KEYS);
      await both(stores.got, stores.want, [
        ["vault", "k07", null],
        ["vault", "k11", "v4"],
        ["mint", "k05", null],
        ["mint", "k06", "m4"],
      ]);
      await assertSameReadsTwice(stores.got, stores.want, [...after, "bank"], KEYS, "v4");
      await assertSameWorkingSet(stores.got, stores.want, after, KEYS, "v4");
    } finally {
      await stores.got.close();
      await stores.want.close();
      await dir.remove();
    }
  });

  for (const applied of [true, false]) {
    test(`a failed commit (applied: ${applied}) with warm caches, then ${applied ? "its retry" : "a discard and other writes"}`, async () => {
      const dir = await tempDir();
      const names = ["auth", "bank"];
      const { got, want } = await pair(dir.path, names);
      try {
        await both(
          got,
          want,
          KEYS.map((k): Op => ["bank", k, `v1-${k}`]),
        );
        await both(got, want, [
          ["bank", "k06", null],
          ["bank", "k09", "v2"],
        ]);
        await warm(got, names, KEYS);
        const ops: Op[] = [
          ["bank", "k06", "again"],
          ["bank", "k07", null],
          ["bank", "k10", "v3"],
          ["bank", "k215", "new"],
        ];
        const restore = failBatchWrites(got, { applied });
        const gotInfo = await got.stage(branchOf(got, ops));
        // Views opened in the window, read after it.
        const early = await got.view();
        await assert.rejects(got.commit(), { code: "STORE_COMMIT_FAILED" });
        restore();
        // Between the failure and what follows: the latest version is still 2 (rows of 3 may be on disk).
        await assertSameReadsTwice(got, want, names, [...KEYS, "k215"], "after the failed commit");
        if (applied) {
          await got.commit();
          assert.equal(toHex(gotInfo.appHash), await commitOps(want, ops));
        } else {
          got.discardStaged();
          await both(got, want, [
            ["bank", "k10", "other"],
            ["bank", "k11", null],
          ]);
        }
        await got.idle();
        assert.deepEqual(
          await readsOf(early.store("bank") as ReadOnlyStore, [...KEYS, "k215"]),
          await readsOf((await want.view(2n)).store("bank") as ReadOnlyStore, [...KEYS, "k215"]),
          "a view of version 2 opened before the failure",
        );
        await assertSameReadsTwice(got, want, names, [...KEYS, "k215"], "after");
        await assertSameWorkingSet(got, want, names, [...KEYS, "k215"], "after");
        await warm(got, names, KEYS);
        await both(got, want, [
          ["bank", "k05", "v4"],
          ["bank", "k06", null],
        ]);
        await assertSameReadsTwice(got, want, names, [...KEYS, "k215"], "v4");
        await assertSameWorkingSet(got, want, names, [...KEYS, "k215"], "v4");
      } finally {
        await got.close();
        await want.close();
        await dir.remove();
      }
    });
  }

  test("pruning (keep 2) with keys deleted and re-created, warm caches, views opened before commits", async () => {
    const dir = await tempDir();
    const names = ["auth", "bank"];
    const pruning: PruningOptions = { strategy: "custom", keepRecent: 2n, interval: 1n };
    const { got, want } = await pair(dir.path, names, { pruning, backgroundBatchSize: 3 });
    try {
      let rng = 7;
      const next = () => {
        rng = (rng * 1103515245 + 12345) % 2147483648;
        return rng;
      };
      for (let v = 1; v <= 14; v++) {
        const ops: Op[] = [];
        for (const k of KEYS) {
          const r = next() % 6;
          if (r === 0) ops.push(["bank", k, null]);
          else if (r === 1) ops.push(["bank", k, `v${v}-${k}`]);
        }
        if (v === 1) for (const k of KEYS) ops.push(["bank", k, `v1-${k}`]);
        const held = await got.view();
        const heldStore = held.store("bank") as ReadOnlyStore;
        await warm(got, names, KEYS);
        await both(got, want, ops);
        // A view of the previous latest, read after the commit (and after pruning moved past it when keep is 2).
        if (held.version >= got.earliestVersion()) {
          assert.deepEqual(
            await readsOf(heldStore, KEYS),
            await readsOf((await want.view(held.version)).store("bank") as ReadOnlyStore, KEYS),
            `v${v}: view of ${held.version} opened before the commit`,
          );
        }
        await assertSameReadsTwice(got, want, names, KEYS, `v${v}`);
        await assertSameWorkingSet(got, want, names, KEYS, `v${v}`);
      }
    } finally {
      await got.close();
      await want.close();
      await dir.remove();
    }
  });

  test("iterators started before a commit (a view at the latest and the working set) continue at their version", async () => {
    const dir = await tempDir();
    const names = ["auth", "bank"];
    const { got, want } = await pair(dir.path, names);
    try {
      await both(
        got,
        want,
        KEYS.map((k): Op => ["bank", k, `v1-${k}`]),
      );
      await warm(got, names, KEYS);
      const expected = await entries((await want.view(1n)).store("bank").iterate());
      const view = await got.view();
      const viewIt = view.store("bank").iterate()[Symbol.asyncIterator]();
      const wsIt = got
        .branch()
        .store("bank")
        .iterate({ start: b("k05"), end: b("k15") })
        [Symbol.asyncIterator]();
      const firstView = await viewIt.next();
      const firstWs = await wsIt.next();
      await both(got, want, [
        ["bank", "k00", null],
        ["bank", "k06", "v2"],
        ["bank", "k29", null],
        ["bank", "k30", "new"],
      ]);
      const restView: [string, string][] = [[s(firstView.value?.[0]) as string, s(firstView.value?.[1]) as string]];
      for (let r = await viewIt.next(); !r.done; r = await viewIt.next())
        restView.push([s(r.value[0]) as string, s(r.value[1]) as string]);
      assert.deepEqual(restView, expected, "the view's scan");
      const restWs: [string, string][] = [[s(firstWs.value?.[0]) as string, s(firstWs.value?.[1]) as string]];
      for (let r = await wsIt.next(); !r.done; r = await wsIt.next())
        restWs.push([s(r.value[0]) as string, s(r.value[1]) as string]);
      assert.deepEqual(
        restWs,
        expected.filter(([k]) => k >= "k05" && k < "k15"),
        "the working set's scan",
      );
      await assertSameWorkingSet(got, want, names, [...KEYS, "k30"], "after");
      await assertSameReadsTwice(got, want, names, [...KEYS, "k30"], "after");
    } finally {
      await got.close();
      await want.close();
      await dir.remove();
    }
  });

  test("a store deleted by an upgrade: views taken before its commit refuse it from the commit on, cache on and off", async () => {
    const dir = await tempDir();
    let stores = await pair(dir.path, ["auth", "bank"]);
    try {
      await both(stores.got, stores.want, [
        ["bank", "k01", "v1"],
        ["bank", "k02", "v1"],
        ["auth", "h", "1"],
      ]);
      stores = await reopen(dir.path, stores, ["auth"], {
        upgrades: { added: [], renamed: [], deleted: ["bank"] },
      });
      // Version 1's "bank", taken while it is the latest (the upgrade is only planned).
      const olds = [(await stores.got.view()).store("bank"), (await stores.want.view()).store("bank")];
      for (const old of olds) assert.equal(s(await old.get(b("k01"))), "v1", "before the commit");
      // Version 2 deletes "bank": its history is refused from that commit on, through every view.
      await both(stores.got, stores.want, [["auth", "h", "2"]]); // idle(): the reclamation clears its rows
      await assert.rejects(async () => (await stores.got.view(1n)).store("bank"), { code: "STORE_NOT_FOUND" });
      for (const old of olds) {
        await assert.rejects(async () => old.get(b("k01")), { code: "STORE_NOT_FOUND" }, "get");
        await assert.rejects(async () => old.getNow?.(b("k02")), { code: "STORE_NOT_FOUND" }, "getNow");
        await assert.rejects(async () => entries(old.iterate()), { code: "STORE_NOT_FOUND" }, "iterate");
      }
    } finally {
      await stores.got.close();
      await stores.want.close();
      await dir.remove();
    }
  });
});

describe("1b. a historical scan across a commit", () => {
  for (const [what, setup, landing, expected] of [
    [
      "a key deleted by the commit listed twice",
      [
        [
          ["bank", "a", "a1"],
          ["bank", "k", "k1"],
        ],
        [["bank", "z", "z2"]],
      ],
      [["bank", "k", null]],
      [
        ["a", "a1"],
        ["k", "k1"],
      ],
    ],
    [
      "a key set again over its deleted row by the commit lost",
      [
        [
          ["bank", "a", "a1"],
          ["bank", "k", "k1"],
        ],
        [["bank", "k", null]],
      ],
      [["bank", "k", "k3"]],
      [
        ["a", "a1"],
        ["k", "k1"],
      ],
    ],
  ] as [string, Op[][], Op[], [string, string][]][]) {
    test(`a scan of version 1 whose latest-table read waits while a commit lands: not ${what}`, async () => {
      const dir = await tempDir();
      const store = await openMultiStore(options(dir.path, ["bank"]));
      try {
        for (const ops of setup) await commitOps(store, ops);
        const view = await store.view(1n);
        assert.deepEqual(await entries(view.store("bank").iterate()), expected, "without a commit in between");
        await store.stage(branchOf(store, landing));
        let open!: () => void;
        slowFirstLatestRead(
          store,
          new Promise<void>((resolve) => {
            open = resolve;
          }),
        );
        const it = view.store("bank").iterate()[Symbol.asyncIterator]();
        const first = it.next(); // the latest table's snapshot is taken here; its rows come back after the commit
        await store.commit();
        open();
        const got: [string, string][] = [];
        for (let r = await first; !r.done; r = await it.next())
          got.push([s(r.value[0]) as string, s(r.value[1]) as string]);
        assert.deepEqual(got, expected, "the same scan with the commit landing in it");
      } finally {
        await store.close();
        await dir.remove();
      }
    });
  }
});

// ---- 3. holds -------------------------------------------------------------------------------------------------------

describe("3. holds (retainVersion) against pruning", () => {
  test("a hold keeps its version through later commits and pruning; released, pruning moves past it", async () => {
    const dir = await tempDir();
    const pruning: PruningOptions = { strategy: "custom", keepRecent: 1n, interval: 1n };
    const store = await openMultiStore(options(dir.path, ["bank"], { pruning }));
    try {
      await commitOps(store, [["bank", "k", "1"]]);
      await commitOps(store, [["bank", "k", "2"]]);
      const release = store.retainVersion(2n);
      const release2 = store.retainVersion(2n);
      for (let v = 3; v <= 6; v++) {
        await commitOps(store, [
          ["bank", "k", String(v)],
          ["bank", `n${v}`, "x"],
        ]);
        await store.idle();
        assert.equal(store.earliestVersion(), 2n, `earliest at ${v}`);
        assert.equal(s(await (await store.view(2n)).store("bank").get(b("k"))), "2");
      }
      release();
      await commitOps(store, [["bank", "k", "7"]]);
      assert.equal(store.earliestVersion(), 2n, "still held once");
      release2();
      await commitOps(store, [["bank", "k", "8"]]);
      await store.idle();
      assert.equal(store.earliestVersion(), 7n);
      await assert.rejects(store.view(2n), { code: "STORE_VERSION_PRUNED" });
      assert.equal(s(await (await store.view(7n)).store("bank").get(b("k"))), "7");
    } finally {
      await store.close();
      await dir.remove();
    }
  });

  test("a hold taken while a commit's write is in flight keeps its version: the commit does not raise the earliest past it", async () => {
    const dir = await tempDir();
    const pruning: PruningOptions = { strategy: "custom", keepRecent: 1n, interval: 1n };
    const store = await openMultiStore(options(dir.path, ["bank"], { pruning }));
    try {
      await commitOps(store, [["bank", "k", "1"]]);
      await commitOps(store, [["bank", "k", "2"]]);
      await commitOps(store, [["bank", "k", "3"]]); // earliest 2
      await store.idle();
      assert.equal(store.earliestVersion(), 2n);
      const gate = gateBatchWrites(store);
      await store.stage(branchOf(store, [["bank", "k", "4"]]));
      const committing = store.commit();
      await gate.reached; // the commit's batch (earliest 3 in it) is being written
      // A snapshot export starts at version 2: retained now, so the hold is granted.
      const release = store.retainVersion(2n);
      gate.open();
      await committing;
      gate.restore();
      await store.idle();
      try {
        const earliest = store.earliestVersion();
        let read: string | undefined;
        try {
          read = s(await (await store.view(2n)).store("bank").get(b("k")));
        } catch (err) {
          read = (err as { code?: string }).code;
        }
        assert.deepEqual({ earliest, read }, { earliest: 2n, read: "2" }, "version 2 while it is held");
      } finally {
        release();
      }
    } finally {
      await store.close();
      await dir.remove();
    }
  });

  test("a hold on version 0 of a fresh store holds nothing: the first commit's version is the earliest", async () => {
    const dir = await tempDir();
    const store = await openMultiStore(options(dir.path, ["bank"], { initialVersion: 10n }));
    try {
      const release = store.retainVersion(0n); // an export of "the latest" before anything is committed
      await commitOps(store, [["bank", "k", "10"]]);
      release();
      await commitOps(store, [["bank", "k", "11"]]);
      let below: string | undefined;
      try {
        await store.view(5n);
      } catch (err) {
        below = (err as { code?: string }).code;
      }
      assert.deepEqual(
        { earliest: store.earliestVersion(), below },
        { earliest: 10n, below: "STORE_VERSION_PRUNED" },
        "the earliest version and a read below the first version",
      );
    } finally {
      await store.close();
      await dir.remove();
    }
  });
});

// ---- 2. a commit staged ahead of its block --------------------------------------------------------------------------

/** Rows of the latest and deleted tables, hex key → hex value (history rows may differ only by a lost version's). */
async function flatRows(store: MultiStore): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const table of [TABLE.latest, TABLE.deleted]) {
    for await (const [k, v] of store.backend.iterate({ gte: Uint8Array.of(table), lt: Uint8Array.of(table + 1) })) {
      out[toHex(k)] = toHex(v);
    }
  }
  return out;
}

/** The work done ahead of the next block: `ops` on an ahead branch, warmed (its commit staged ahead). */
function workAhead(store: MultiStore, ops: Op[]) {
  const work = store.aheadBranch();
  for (const [name, key, value] of ops) {
    if (value === null) work.store(name).delete(b(key));
    else work.store(name).set(b(key), b(value));
  }
  work.warm();
  return work;
}

describe("2. stageAhead and the block's stage", () => {
  test("a pruning batch between the work ahead and the block (the key set again lost its deleted row): dropped, rows as without it", async () => {
    const dir = await tempDir();
    const names = ["auth", "bank"];
    const pruning: PruningOptions = { strategy: "custom", keepRecent: 1n, interval: 1n };
    const { got, want } = await pair(dir.path, names, { pruning });
    try {
      await both(got, want, [
        ["bank", "x", "x1"],
        ["bank", "y", "y1"],
      ]);
      await both(got, want, [["bank", "x", null]]);
      // Version 3 raises the earliest version to 2: version 2's changelog (x's deleted row) may go. No idle: the work
      // ahead is staged before the pruning batch runs.
      const ops: Op[] = [
        ["bank", "x", "x4"],
        ["bank", "z", "z4"],
      ];
      const hash3 = await commitOps(got, [["bank", "y", "y3"]]);
      const work = workAhead(got, ops); // before the pruning batch the commit kicked has begun
      assert.equal(hash3, await commitOps(want, [["bank", "y", "y3"]]));
      await got.idle();
      await want.idle();
      const block = got.branch();
      work.joinInto(block);
      const info = await got.stage(block);
      await got.commit();
      assert.equal(toHex(info.appHash), await commitOps(want, ops));
      assert.deepEqual(got.stagedAheadCounts, { taken: 0, dropped: 1 });
      await got.idle();
      await want.idle();
      assert.deepEqual(await flatRows(got), await flatRows(want));
      await assertSameReadsTwice(got, want, names, ["x", "y", "z"], "after");
      await assertSameWorkingSet(got, want, names, ["x", "y", "z"], "after");
    } finally {
      await got.close();
      await want.close();
      await dir.remove();
    }
  });

  test("a discard before the block, and a discard of the block that took it: the re-run as without it", async () => {
    const dir = await tempDir();
    const names = ["auth", "bank"];
    const { got, want } = await pair(dir.path, names);
    try {
      await both(
        got,
        want,
        KEYS.map((k): Op => ["bank", k, `v1-${k}`]),
      );
      await both(got, want, [["bank", "k03", null]]);
      await warm(got, names, KEYS);
      const ops: Op[] = [
        ["bank", "k03", "again"],
        ["bank", "k04", null],
        ["bank", "k05", "w"],
        ["bank", "new", "n"],
      ];
      // Staged ahead, then a discard with nothing staged (the layers cleared), then the block: taken.
      let work = workAhead(got, ops);
      got.discardStaged();
      let block = got.branch();
      work.joinInto(block);
      block.store("auth").set(b("h"), b("3"));
      await got.stage(block);
      assert.deepEqual(got.stagedAheadCounts, { taken: 1, dropped: 0 });
      await assertSameReadsTwice(got, want, names, [...KEYS, "new"], "staged");
      // The block is discarded (the engine replays the height), and run again with the work done ahead again.
      got.discardStaged();
      await assertSameWorkingSet(got, want, names, [...KEYS, "new"], "discarded");
      work = workAhead(got, ops);
      block = got.branch();
      work.joinInto(block);
      block.store("auth").set(b("h"), b("3"));
      const info = await got.stage(block);
      await got.commit();
      assert.equal(toHex(info.appHash), await commitOps(want, [...ops, ["auth", "h", "3"]]));
      assert.deepEqual(got.stagedAheadCounts, { taken: 2, dropped: 0 });
      await got.idle();
      await want.idle();
      assert.deepEqual(await flatRows(got), await flatRows(want));
      await assertSameReadsTwice(got, want, names, [...KEYS, "new"], "after");
      await assertSameWorkingSet(got, want, names, [...KEYS, "new"], "after");
    } finally {
      await got.close();
      await want.close();
      await dir.remove();
    }
  });

  test("the block renames the store the work wrote (and adds one): taken, the same version as without it", async () => {
    const dir = await tempDir();
    const upgrades: StoreUpgrades = { added: ["mint"], renamed: [{ oldKey: "bank", newKey: "vault" }], deleted: [] };
    let stores = await pair(dir.path, ["auth", "bank"]);
    try {
      await both(
        stores.got,
        stores.want,
        KEYS.map((k): Op => ["bank", k, `v1-${k}`]),
      );
      await both(stores.got, stores.want, [["bank", "k02", null]]);
      stores = await reopen(dir.path, stores, ["auth", "mint", "vault"], { upgrades });
      const { got, want } = stores;
      await warm(got, ["auth", "mint", "vault"], KEYS);
      const ops: Op[] = [
        ["vault", "k02", "again"],
        ["vault", "k03", null],
        ["vault", "k09", "w"],
      ];
      const work = workAhead(got, ops);
      const block = got.branch();
      work.joinInto(block);
      block.store("mint").set(b("m"), b("1"));
      const info = await got.stage(block);
      await got.commit();
      assert.equal(toHex(info.appHash), await commitOps(want, [...ops, ["mint", "m", "1"]]));
      assert.deepEqual(got.stagedAheadCounts, { taken: 1, dropped: 0 });
      await got.idle();
      await want.idle();
      assert.deepEqual(await flatRows(got), await flatRows(want));
      await assertSameReadsTwice(got, want, ["auth", "mint", "vault", "bank"], KEYS, "after");
      await assertSameWorkingSet(got, want, ["auth", "mint", "vault"], KEYS, "after");
    } finally {
      await stores.got.close();
      await stores.want.close();
      await dir.remove();
    }
  });
});

// ---- 4. flat-state's exact-latest paths ------------------------------------------------------------------------------

describe("4. exact-latest reads while rows of another version may be on disk", () => {
  test("a commit in flight: views at the latest read it as before, the working set and a cached absence too", async () => {
    const dir = await tempDir();
    const names = ["auth", "bank"];
    const { got, want } = await pair(dir.path, names);
    try {
      await both(
        got,
        want,
        KEYS.map((k): Op => ["bank", k, `v1-${k}`]),
      );
      await both(got, want, [
        ["bank", "k01", null],
        ["bank", "k02", "v2"],
      ]);
      await warm(got, names, [...KEYS, "absent", "new"]);
      const gate = gateBatchWrites(got);
      const ops: Op[] = [
        ["bank", "k02", null],
        ["bank", "k01", "v3"],
        ["bank", "new", "v3"],
        ["bank", "k05", "v3"],
      ];
      await got.stage(branchOf(got, ops));
      const committing = got.commit();
      await gate.reached;
      // The batch is not written yet: every read at version 2 is version 2's (cached or not).
      const expected = await readsOf((await want.view(2n)).store("bank") as ReadOnlyStore, [...KEYS, "new", "absent"]);
      const during = (await got.view(2n)).store("bank") as ReadOnlyStore;
      gate.open();
      // The write lands while these reads run (they are spread over several turns of the event loop).
      const reads = readsOf(during, [...KEYS, "new", "absent"]);
      await committing;
      gate.restore();
      assert.deepEqual(await reads, expected, "version 2 read across its successor's commit");
      await commitOps(want, ops);
      await got.idle();
      await assertSameReadsTwice(got, want, names, [...KEYS, "new", "absent"], "after");
      await assertSameWorkingSet(got, want, names, [...KEYS, "new", "absent"], "after");
    } finally {
      await got.close();
      await want.close();
      await dir.remove();
    }
  });
});
