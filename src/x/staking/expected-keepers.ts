// What staking needs from the rest of the app (upstream x/staking/types/expected_keepers.go): narrow
// interfaces the bank and auth keepers satisfy as they are.
import type { Coin } from "../../app/coins.ts";
import type { Context } from "../../app/context.ts";

/** What staking needs from the bank. Addresses are raw 20-byte account addresses. */
export interface StakingBankKeeper {
  getBalance(ctx: Context, address: Uint8Array, denom: string): Promise<Coin>;
  getAllBalances(ctx: Context, address: Uint8Array): Promise<Coin[]>;
  sendCoinsFromAccountToModule(ctx: Context, from: Uint8Array, moduleName: string, amount: Coin[]): Promise<void>;
  sendCoinsFromModuleToModule(ctx: Context, fromModule: string, toModule: string, amount: Coin[]): Promise<void>;
  /** Upstream's DelegateCoinsFromAccountToModule; used instead of the plain send when the bank has it. */
  delegateCoinsFromAccountToModule?(ctx: Context, from: Uint8Array, moduleName: string, amount: Coin[]): Promise<void>;
}

/** What staking needs from auth: the pools' module accounts and the account address codec. */
export interface StakingAccountKeeper {
  getModuleAddress(moduleName: string): Uint8Array;
  /** Returns the module account, creating it on first use. */
  getModuleAccount(ctx: Context, moduleName: string): Promise<unknown>;
  addressToString(address: Uint8Array): string;
  addressFromString(address: string): Uint8Array;
}
