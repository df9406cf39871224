// The chain of the big-state bench (big-state.bench.ts): the reference chain's v1 release plus `bigstate`, a module
// that writes BIG_STATE_ACCOUNTS accounts with balances through the keepers (so through the store, as any state
// gets there), FILL_PER_BLOCK of them in the EndBlock of each block from height 2 until all are written. The
// accounts' addresses are sha256("big-state/" + i)'s first 20 bytes, so the same count gives the same state.
import { createHash } from "node:crypto";
import { v1 } from "../../chain/releases.ts";
import type { AppModule, Context } from "../../src/app/index.ts";
import { type ChainDefinition, defineChain, type Release } from "../../src/runtime/index.ts";
import type { StandardKeepers } from "../../src/runtime/keepers.ts";

/** Accounts written per block while filling. */
export const FILL_PER_BLOCK = 50_000;
const DENOM = "stake";
const BALANCE = 1_000_000n;

/** How many accounts this process's chain writes (BIG_STATE_ACCOUNTS; 0 when unset). */
export function bigStateAccounts(): number {
  const text = process.env.BIG_STATE_ACCOUNTS ?? "0";
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`BIG_STATE_ACCOUNTS must be a count, got "${text}"`);
  return n;
}

/** The last height whose EndBlock writes accounts, for `accounts` accounts. */
export function lastFillHeight(accounts: number): bigint {
  return 1n + BigInt(Math.ceil(accounts / FILL_PER_BLOCK));
}

/** The raw address of big-state account `i`. */
export function bigStateAddress(i: number): Uint8Array {
  return new Uint8Array(createHash("sha256").update(`big-state/${i}`).digest().subarray(0, 20));
}

function bigStateModule({ accountKeeper, bankKeeper }: StandardKeepers): AppModule {
  const total = bigStateAccounts();
  return {
    name: "bigstate",
    consensusVersion: 1n,
    storeKeys: [],
    defaultGenesis: () => ({}),
    validateGenesis: () => {},
    initGenesis: async () => undefined,
    exportGenesis: async () => ({}),
    registerServices: () => {},
    async endBlock(ctx: Context) {
      const from = Number(ctx.header.height - 2n) * FILL_PER_BLOCK;
      if (ctx.header.height < 2n || from >= total) return undefined;
      const to = Math.min(total, from + FILL_PER_BLOCK);
      for (let i = from; i < to; i++) {
        const address = bigStateAddress(i);
        accountKeeper.setAccount(ctx, await accountKeeper.newAccountWithAddress(ctx, address));
        bankKeeper.setBalance(ctx, address, { denom: DENOM, amount: BALANCE });
      }
      const supply = await bankKeeper.getSupply(ctx, DENOM);
      bankKeeper.setSupply(ctx, { denom: DENOM, amount: supply.amount + BigInt(to - from) * BALANCE });
      return undefined;
    },
  };
}

const release: Release = {
  ...v1,
  modules: (keepers) => [...(v1.modules?.(keepers) ?? []), bigStateModule(keepers)],
};

/** The big-state bench's chain: `chaind` v1 plus the filling module. */
export const bigStateChain: ChainDefinition = defineChain({
  name: "chaind",
  releases: [release],
  defaultRelease: "v1",
  releaseEnv: "BIG_STATE_RELEASE",
});
