// Upgrade v3's stepped migration: every balance record of bank is visited (2,000 a block) and copied into the new
// `holders` store as `<denom>/<address hex>` → amount, a by-denom index of holders. It is what a real chain's large
// rewrite looks like (a new index, a new encoding, a re-keying): too big for one block on a large chain, so it runs
// across blocks while bank's own transactions wait (the upgrade module refuses them until it is done).
import type { AppModule } from "chaind/app";
import { AccountKeeper } from "chaind/x/auth";
import { BALANCES_PREFIX, BANK_STORE_KEY } from "chaind/x/bank";
import { prefixMigrationStep, type SteppedMigration } from "chaind/x/upgrade";
import { notesModule } from "../modules/notes.ts";

/** The store (and module) v3 adds. */
export const HOLDERS_STORE = "holders";
/** Balance records copied per block. */
export const HOLDERS_BUDGET = 2000;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The `holders` module: a notes store, empty at the upgrade, filled by the migration. */
export function holdersModule(): AppModule {
  return notesModule({ name: HOLDERS_STORE, storeKey: HOLDERS_STORE });
}

/** `0x02 ‖ len ‖ address ‖ denom` → `<denom>/<address hex>`. */
export function holdersKey(balanceKey: Uint8Array): Uint8Array {
  const length = balanceKey[1];
  const address = balanceKey.subarray(2, 2 + length);
  const denom = decoder.decode(balanceKey.subarray(2 + length));
  return encoder.encode(`${denom}/${Buffer.from(address).toString("hex")}`);
}

/** The stepped migration of upgrade v3 (module bank: its txs wait until every balance is indexed). */
export function holdersIndexMigration(): SteppedMigration {
  // Keepers are stateless over the context's stores: this one only reads the account counter.
  const accountKeeper = new AccountKeeper();
  return {
    module: "bank",
    name: "holders-index",
    budget: HOLDERS_BUDGET,
    step: prefixMigrationStep({
      storeKey: BANK_STORE_KEY,
      prefix: BALANCES_PREFIX,
      rewrite: (ctx, _bank, key, value) => ctx.kvStore(HOLDERS_STORE).set(holdersKey(key), value),
      // About one balance per account: the account count estimates the records.
      estimateTotal: (ctx) => accountKeeper.peekNextAccountNumber(ctx),
    }),
  };
}
