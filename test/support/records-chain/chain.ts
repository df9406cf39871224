// The records chain of the stepped-migration bench (bench/stepped-migration/) and the large upgrade's kill test
// (test/e2e/large-upgrade-kill.test.ts): a `records` module whose genesis writes N records, and the releases they run: v1 (schedules nothing itself, halts at the plan), v2 as one upgrade handler that rewrites
// every record in the block at H (today's way; collecting the records first, as an SDK migration must, or writing
// each as it reads it, as a chaind handler may), and v2 as a stepped migration (one bounded step a block after H).
import type { AppModule } from "../../../src/app/module.ts";
import type { KVStore } from "../../../src/store/types.ts";
import type { TestRelease } from "../../../src/testing/test-node.ts";
import { prefixMigrationStep } from "../../../src/x/upgrade/prefix-migration.ts";

/** CometBFT's default timeout_commit: the wait after each commit, during which a block's tree pages are written. */
export const TIMEOUT_COMMIT_MS = 1000;
/** The records' store key. */
export const STORE = "records";
/** Every record's key starts with this. */
export const PREFIX = new Uint8Array([0x01]);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** `records`: `count` keys `0x01 ‖ 4-byte index` → a 32-byte value, written at genesis. */
function recordsModule(count: number): AppModule {
  return {
    name: STORE,
    consensusVersion: 1n,
    storeKeys: [STORE],
    defaultGenesis: () => ({}),
    validateGenesis: () => {},
    async initGenesis(ctx) {
      const store = ctx.kvStore(STORE);
      for (let i = 0; i < count; i++) store.set(recordKey(i), encoder.encode(`record ${i}`.padEnd(32, ".")));
      return undefined;
    },
    exportGenesis: async () => ({}),
    registerServices: () => {},
  };
}

function recordKey(i: number): Uint8Array {
  const key = new Uint8Array(5);
  key[0] = PREFIX[0];
  new DataView(key.buffer).setUint32(1, i);
  return key;
}

/** The migration both ways do: every record's value rewritten (upper-cased, a new encoding). */
function rewrite(value: Uint8Array): Uint8Array {
  return encoder.encode(decoder.decode(value).toUpperCase());
}

/** The release before the upgrade: the records, no upgrade of its own (it halts at the plan). */
export function v1(count: number): TestRelease {
  return { modules: () => [recordsModule(count)] };
}

/** v2 with `rewriteAll` as its upgrade handler, run on the records' store in the block at H. */
function oneHandlerRelease(count: number, rewriteAll: (store: KVStore) => Promise<void>): TestRelease {
  return {
    modules: () => [recordsModule(count)],
    upgrade: {
      name: "v2",
      handler: async (ctx, _plan, fromVM) => {
        await rewriteAll(ctx.kvStore(STORE));
        return fromVM;
      },
    },
  };
}

/** v2 the way an SDK chain does it today: the upgrade handler collects every record, then rewrites each. */
export function oneHandler(count: number): TestRelease {
  return oneHandlerRelease(count, async (store) => {
    const all: [Uint8Array, Uint8Array][] = [];
    for await (const entry of store.iterate({ prefix: PREFIX })) all.push(entry);
    for (const [key, value] of all) store.set(key, rewrite(value));
  });
}

/**
 * v2 as one handler that writes each record as it reads it (docs/UPGRADING.md's advice for a chaind handler: the
 * branch's iterator is not disturbed by writes made while it runs). An SDK migration must collect first (upstream's
 * KVStore contract forbids writing under an open iterator); this one holds no copy of the records.
 */
export function oneHandlerIterating(count: number): TestRelease {
  return oneHandlerRelease(count, async (store) => {
    for await (const [key, value] of store.iterate({ prefix: PREFIX })) store.set(key, rewrite(value));
  });
}

/** v2 as a stepped migration: the block at H starts it, then one step of `budget` records a block until done. */
export function stepped(count: number, budget: number): TestRelease {
  return {
    modules: () => [recordsModule(count)],
    upgrade: {
      name: "v2",
      steppedMigrations: [
        {
          module: STORE,
          name: "rewrite",
          budget,
          step: prefixMigrationStep({
            storeKey: STORE,
            prefix: PREFIX,
            rewrite: (_ctx, store, key, value) => store.set(key, rewrite(value)),
            estimateTotal: async () => BigInt(count),
          }),
        },
      ],
    },
  };
}
