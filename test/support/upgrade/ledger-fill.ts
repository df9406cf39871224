// A stepped migration for tests: module `ledger`'s "fill" writes `records` records `record/0000`… (value `v<i>`),
// `budget` a step, its cursor the count written so far (4 bytes) and its progress that count out of `records`.
import type { SteppedMigration } from "../../../src/x/upgrade/stepped-migration.ts";

const enc = (text: string) => new TextEncoder().encode(text);

/** The ledger fill migration (see the file comment). */
export function ledgerFill(records: number, budget: number): SteppedMigration {
  return {
    module: "ledger",
    name: "fill",
    budget,
    step: async (ctx, cursor, stepBudget) => {
      const from = cursor === undefined ? 0 : new DataView(cursor.buffer, cursor.byteOffset).getUint32(0);
      const to = Math.min(from + stepBudget, records);
      for (let i = from; i < to; i++) {
        ctx.kvStore("ledger").set(enc(`record/${String(i).padStart(4, "0")}`), enc(`v${i}`));
      }
      if (to === records) return "done";
      const next = new Uint8Array(4);
      new DataView(next.buffer).setUint32(0, to);
      return { cursor: next, progress: { done: BigInt(to), total: BigInt(records) } };
    },
  };
}
