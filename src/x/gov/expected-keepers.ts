// What gov needs from the rest of the app (upstream x/gov/types/expected_keepers.go): narrow interfaces
// the bank, auth and staking keepers and the App's MsgRouter satisfy as they are.
import type { DescMessage, Message } from "@bufbuild/protobuf";
import type { Coin } from "../../app/coins.ts";
import type { Context } from "../../app/context.ts";

/** What gov needs from the bank. Addresses are raw 20-byte account addresses. */
export interface GovBankKeeper {
  getAllBalances(ctx: Context, address: Uint8Array): Promise<Coin[]>;
  sendCoinsFromAccountToModule(ctx: Context, from: Uint8Array, moduleName: string, amount: Coin[]): Promise<void>;
  sendCoinsFromModuleToAccount(ctx: Context, moduleName: string, to: Uint8Array, amount: Coin[]): Promise<void>;
  burnCoins(ctx: Context, moduleName: string, amount: Coin[]): Promise<void>;
}

/** What gov needs from auth: its module account and the account address codec. */
export interface GovAccountKeeper {
  getModuleAddress(moduleName: string): Uint8Array;
  /** Returns the module account, creating it on first use. */
  getModuleAccount(ctx: Context, moduleName: string): Promise<unknown>;
  addressToString(address: Uint8Array): string;
  /** Throws sdk 7 for a malformed address. */
  addressFromString(address: string): Uint8Array;
}

/** What gov needs from staking: bonded voting power (the tally's inputs). */
export interface GovStakingKeeper {
  /** Tokens in the bonded pool. */
  totalBondedTokens(ctx: Context): Promise<bigint>;
  /** Bonded validators, highest power first: operator bytes, bonded tokens, delegator shares (10^18-scaled). */
  iterateBondedValidatorsByPower(
    ctx: Context,
  ): AsyncIterable<{ operator: Uint8Array; bondedTokens: bigint; delegatorShares: bigint }>;
  /** The delegations of `delegator`: validator operator bytes and shares (10^18-scaled). */
  iterateDelegations(ctx: Context, delegator: Uint8Array): AsyncIterable<{ validator: Uint8Array; shares: bigint }>;
}

/** A routable Msg as gov sees it (a subset of the app's MsgRoute). */
export interface GovMsgRoute {
  input: DescMessage;
  handler: (msg: Message, ctx: Context) => Promise<Message>;
}

/** Finds the handler of a Msg type URL (the app's MsgRouter satisfies this). */
export interface GovMsgRouter {
  route(typeUrl: string): GovMsgRoute | undefined;
}
