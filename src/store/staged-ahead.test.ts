import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { b, KEEP_ALL } from "../../test/support/store/helpers.ts";
import { setCompactAfter } from "./cache-layer.ts";
import { type MultiStore, openMultiStore } from "./multistore.ts";
import type { BranchMultiStore } from "./types.ts";

const key = (i: number): Uint8Array => b(`k${String(i).padStart(5, "0")}`);

interface Scenario {
  /** Keys in the store before; the work ahead rewrites every third, adds one and deletes one. */
  keys: number;
  /** What the block writes before the work's writes join it, and after. */
  before?: (block: BranchMultiStore) => void;
  after?: (block: BranchMultiStore) => void;
}

/** Every row of the store's backend after the block and one more version on top, hex, and the block's app hash. */
async function commitBlock(
  scenario: Scenario,
  ahead: boolean,
): Promise<{ appHash: string; rows: string[]; counts: MultiStore["stagedAheadCounts"] }> {
  const store = await openMultiStore({ backend: "memory", storeNames: ["auth", "bank"], pruning: KEEP_ALL });
  try {
    const first = store.branch();
    for (let i = 0; i < scenario.keys; i++) first.store("bank").set(key(i), b(`v${i}`));
    first.store("bank").set(b("gone"), b("soon"));
    await store.stage(first);
    await store.commit();
    // A deleted key, so that a key set again ahead reads its deleted row.
    const second = store.branch();
    second.store("bank").delete(key(1));
    await store.stage(second);
    await store.commit();

    const work = store.aheadBranch();
    for (let i = 0; i < scenario.keys; i += 3) work.store("bank").set(key(i), b(`w${i}`));
    work.store("bank").set(key(1), b("set again"));
    work.store("bank").set(b("new"), b("new"));
    work.store("bank").delete(b("gone"));
    if (ahead) work.warm();
    const block = store.branch();
    scenario.before?.(block);
    work.joinInto(block);
    scenario.after?.(block);
    const { appHash } = await store.stage(block);
    await store.commit();
    // One more version, whose commit walks the tree the block's commit made.
    const next = store.branch();
    next.store("bank").set(key(2), b("next"));
    next.store("bank").set(b("newer"), b("newer"));
    await store.stage(next);
    await store.commit();
    const rows: string[] = [];
    for await (const [k, v] of store.backend.iterate({})) {
      rows.push(`${Buffer.from(k).toString("hex")}=${Buffer.from(v).toString("hex")}`);
    }
    return { appHash: Buffer.from(appHash).toString("hex"), rows, counts: { ...store.stagedAheadCounts } };
  } finally {
    await store.close();
  }
}

async function assertSame(scenario: Scenario, taken: boolean): Promise<void> {
  const inBlock = await commitBlock(scenario, false);
  const staged = await commitBlock(scenario, true);
  assert.equal(staged.appHash, inBlock.appHash);
  assert.equal(staged.rows.length, inBlock.rows.length);
  assert.deepEqual(staged.rows, inBlock.rows);
  assert.deepEqual(inBlock.counts, { taken: 0, dropped: 0 });
  assert.deepEqual(staged.counts, taken ? { taken: 1, dropped: 0 } : { taken: 0, dropped: 1 });
}

// Both forms of a layer's writes: the Map, and the compact form (cache-layer.ts) from the first write.
for (const [form, compactAfter] of [
  ["small", undefined],
  ["compact", 0],
] as const) {
  describe(`a store's commit staged ahead of its block (${form} layers)`, () => {
    let previous: number | undefined;
    before(() => {
      if (compactAfter !== undefined) previous = setCompactAfter(compactAfter);
    });
    after(() => {
      if (previous !== undefined) setCompactAfter(previous);
    });
    stagedAheadTests();
  });
}

function stagedAheadTests(): void {
  test("is taken when the block's writes to the store are the work's: the same app hash and rows", async () => {
    await assertSame({ keys: 300 }, true);
  });

  test("is taken beside the block's writes to other stores", async () => {
    await assertSame(
      {
        keys: 300,
        before: (block) => block.store("auth").set(b("a"), b("before")),
        after: (block) => block.store("auth").set(b("b"), b("after")),
      },
      true,
    );
  });

  test("with the leaves hashed on the worker thread (a large commit)", async () => {
    await assertSame({ keys: 15_000 }, true);
  });

  test("is dropped when the block writes another key of the store after the join", async () => {
    await assertSame({ keys: 300, after: (block) => block.store("bank").set(b("other"), b("x")) }, false);
  });

  test("is dropped when the block sets a key the work set to another value", async () => {
    await assertSame({ keys: 300, after: (block) => block.store("bank").set(key(3), b("the block's")) }, false);
  });

  test("is dropped when the block sets a key the work set to the same bytes (another value object)", async () => {
    await assertSame({ keys: 300, after: (block) => block.store("bank").set(key(3), b("w3")) }, false);
  });

  test("is dropped when the block wrote the store before the join", async () => {
    await assertSame({ keys: 300, before: (block) => block.store("bank").set(b("zz"), b("first")) }, false);
  });

  test("is dropped when another version was committed in between", async () => {
    const store = await openMultiStore({ backend: "memory", storeNames: ["bank"], pruning: KEEP_ALL });
    try {
      const first = store.branch();
      for (let i = 0; i < 50; i++) first.store("bank").set(key(i), b(`v${i}`));
      await store.stage(first);
      await store.commit();
      const work = store.aheadBranch();
      work.store("bank").set(key(4), b("ahead"));
      work.warm();
      const other = store.branch();
      other.store("bank").set(key(5), b("other"));
      await store.stage(other);
      await store.commit();
      assert.deepEqual(store.stagedAheadCounts, { taken: 0, dropped: 1 });
    } finally {
      await store.close();
    }
  });
}
