// The common stepped migration: visit every record under one prefix of one store, `budget` records a block, and
// rewrite each (a new encoding, a new field, a move to another prefix). The cursor is the progress counts and the last
// key visited, so the next step starts right after it.
import type { Context } from "../../app/context.ts";
import { concatBytes } from "../../bytes/concat.ts";
import { slabCopy } from "../../store/byte-slab.ts";
import { readRangeOf } from "../../store/entry-iterators.ts";
import type { KVStore } from "../../store/types.ts";
import type { MigrationStep } from "./stepped-migration.ts";

/** Options of {@link prefixMigrationStep}. */
export interface PrefixMigrationOptions {
  /** The store key (e.g. "bank"). */
  storeKey: string;
  /** Only records whose key starts with this. */
  prefix: Uint8Array;
  /**
   * Rewrites one record, through `store` (the gas-metered store of `storeKey`). It must not write keys after `key`
   * under `prefix`, which later steps would visit again; deleting `key` or writing elsewhere is fine.
   */
  rewrite(ctx: Context, store: KVStore, key: Uint8Array, value: Uint8Array): Promise<void> | void;
  /**
   * How many records there are, read once by the first step, so the migration reports progress
   * (e.g. the account count for a per-account record). Without it, or when it answers undefined, progress is "".
   */
  estimateTotal?(ctx: Context): Promise<bigint | undefined>;
}

const HEADER = 16;

/**
 * A {@link MigrationStep} that visits every record under `prefix` in key order, at most `budget` a step.
 *
 * @example
 * const step = prefixMigrationStep({ storeKey: "notes", prefix: new Uint8Array([0x01]), rewrite: (ctx, store, key, value) => store.set(key, upgraded(value)) });
 */
export function prefixMigrationStep(options: PrefixMigrationOptions): MigrationStep {
  return async (ctx, cursor, budget) => {
    let done = 0n;
    let total: bigint | undefined;
    let start = options.prefix;
    if (cursor === undefined) {
      total = await options.estimateTotal?.(ctx);
    } else {
      if (cursor.length < HEADER)
        throw new Error(`prefix migration cursor of ${cursor.length} bytes: expected at least ${HEADER}`);
      const view = new DataView(cursor.buffer, cursor.byteOffset, HEADER);
      done = view.getBigUint64(0);
      const stored = view.getBigUint64(8);
      total = stored === 0n ? undefined : stored;
      // Right after the last key visited.
      start = concatBytes(cursor.subarray(HEADER), new Uint8Array([0]));
    }
    const store = ctx.kvStore(options.storeKey);
    // Read the batch first: the rewrites may delete or write around the keys being iterated. One range read (charged
    // as the iteration it replaces) rather than an async step per record through every layer.
    const batch = await readRangeOf(store, { prefix: options.prefix, start, limit: budget });
    // Each key as a view of a shared slab: the key a rewrite writes back becomes its tree leaf's, which the staged
    // tree, the latest version and the node cache keep for several blocks, and a key as read is a view of a row key
    // with a buffer of its own (~0.2 KiB of buffer and backing store for a few bytes; docs/PERFORMANCE.md).
    for (const [key, value] of batch) await options.rewrite(ctx, store, slabCopy(key), value);
    done += BigInt(batch.length);
    if (batch.length < budget) return "done";
    const last = batch[batch.length - 1][0];
    const next = new Uint8Array(HEADER + last.length);
    const view = new DataView(next.buffer);
    view.setBigUint64(0, done);
    view.setBigUint64(8, total ?? 0n);
    next.set(last, HEADER);
    // A total that turned out low would show over 100%: progress stays below 1 until the step that finishes.
    const shownTotal = total === undefined ? undefined : total > done ? total : done + 1n;
    return shownTotal === undefined ? { cursor: next } : { cursor: next, progress: { done, total: shownTotal } };
  };
}
