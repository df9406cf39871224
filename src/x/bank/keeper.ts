// The bank keeper: balances, supply, send-enabled flags, denom metadata, and the narrow BankKeeperApi
// other modules use (sends, module transfers, mint, burn). Events as upstream's x/bank keeper emits them.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { type Coin, coinsToString, coinToString, isValidCoins, parseAmount } from "../../app/coins.ts";
import type { Context } from "../../app/context.ts";
import { decodedOnce } from "../../app/decoded-once.ts";
import { ErrInsufficientFunds, ErrInvalidCoins, ErrUnauthorized } from "../../app/errors.ts";
import { fromUtf8, utf8 } from "../../bytes/text.ts";
import { type Metadata, MetadataSchema, type Params, ParamsSchema } from "../../gen/chain/bank/v1beta1/bank_pb.js";
import type { KVStore } from "../../store/types.ts";
import { type AccountKeeperApi, Permission } from "../auth/keeper.ts";
import { ErrInputOutputMismatch, ErrSendDisabled } from "./errors.ts";
import {
  addressBalancesPrefix,
  BANK_STORE_KEY,
  balanceKey,
  DENOM_METADATA_PREFIX,
  denomMetadataKey,
  denomOwnerKey,
  PARAMS_KEY,
  SEND_ENABLED_PREFIX,
  SUPPLY_PREFIX,
  sendEnabledKey,
  supplyKey,
} from "./keys.ts";
import { defaultBankParams } from "./params.ts";

/** What other modules may do with coins. Addresses are raw 20-byte account addresses. */
export interface BankKeeperApi {
  getBalance(ctx: Context, address: Uint8Array, denom: string): Promise<Coin>;
  getAllBalances(ctx: Context, address: Uint8Array): Promise<Coin[]>;
  spendableCoins(ctx: Context, address: Uint8Array): Promise<Coin[]>;
  /** Moves coins between accounts, creating the recipient account if needed (sdk 5 when short). */
  sendCoins(ctx: Context, from: Uint8Array, to: Uint8Array, amount: Coin[]): Promise<void>;
  sendCoinsFromAccountToModule(ctx: Context, from: Uint8Array, moduleName: string, amount: Coin[]): Promise<void>;
  /** Refuses blocked recipients (`<addr> is not allowed to receive funds: unauthorized`). */
  sendCoinsFromModuleToAccount(ctx: Context, moduleName: string, to: Uint8Array, amount: Coin[]): Promise<void>;
  sendCoinsFromModuleToModule(ctx: Context, fromModule: string, toModule: string, amount: Coin[]): Promise<void>;
  /** Needs the `minter` permission; raises the supply. */
  mintCoins(ctx: Context, moduleName: string, amount: Coin[]): Promise<void>;
  /** Needs the `burner` permission; lowers the supply. */
  burnCoins(ctx: Context, moduleName: string, amount: Coin[]): Promise<void>;
  getSupply(ctx: Context, denom: string): Promise<Coin>;
}

/** One input or output of a multi-send. */
export interface InputOutput {
  address: Uint8Array;
  coins: Coin[];
}

/** Options of the bank keeper. */
export interface BankKeeperOptions {
  accountKeeper: AccountKeeperApi & { moduleAccountNames(): string[] };
  /** Who may update params (bech32); default the account keeper's (gov). */
  authority?: string;
  /**
   * Addresses that may not receive funds through MsgSend/MultiSend or from module accounts.
   * Default: every configured module account except gov (upstream simapp's rule).
   */
  blockedAddresses?: Iterable<Uint8Array>;
}

/** Balances, supply, send-enabled flags and denom metadata. */
export class BankKeeper implements BankKeeperApi {
  // The ante handler and sends read params several times per tx; decode them once per stored value.
  private readonly decodeParams = decodedOnce((bytes) => fromBinary(ParamsSchema, bytes));
  readonly storeKey = BANK_STORE_KEY;
  readonly authority: string;
  readonly accountKeeper: BankKeeperOptions["accountKeeper"];
  private readonly blocked: Set<string>;

  constructor(options: BankKeeperOptions) {
    this.accountKeeper = options.accountKeeper;
    this.authority =
      options.authority ?? options.accountKeeper.addressToString(options.accountKeeper.getModuleAddress("gov"));
    const blocked =
      options.blockedAddresses ??
      options.accountKeeper
        .moduleAccountNames()
        .filter((name) => name !== "gov")
        .map((name) => options.accountKeeper.getModuleAddress(name));
    this.blocked = new Set([...blocked].map(hex));
  }

  /** Whether `address` may not receive funds from users and module accounts. */
  isBlockedAddress(address: Uint8Array): boolean {
    return this.blocked.has(hex(address));
  }

  /** The balance of `address` in `denom` (amount 0 when none). */
  async getBalance(ctx: Context, address: Uint8Array, denom: string): Promise<Coin> {
    const bytes = await this.store(ctx).get(balanceKey(address, denom));
    return { denom, amount: bytes === undefined ? 0n : parseAmount(fromUtf8(bytes)) };
  }

  /** Every non-zero balance of `address`, sorted by denom. */
  async getAllBalances(ctx: Context, address: Uint8Array): Promise<Coin[]> {
    const prefix = addressBalancesPrefix(address);
    const out: Coin[] = [];
    for await (const [key, value] of this.store(ctx).iterate({ prefix })) {
      out.push({ denom: fromUtf8(key.slice(prefix.length)), amount: parseAmount(fromUtf8(value)) });
    }
    return out;
  }

  /** Spendable coins (= all balances: this chain has no vesting accounts). */
  async spendableCoins(ctx: Context, address: Uint8Array): Promise<Coin[]> {
    return this.getAllBalances(ctx, address);
  }

  /** Whether `address` holds at least `coin`. */
  async hasBalance(ctx: Context, address: Uint8Array, coin: Coin): Promise<boolean> {
    return (await this.getBalance(ctx, address, coin.denom)).amount >= coin.amount;
  }

  /**
   * Moves `amount` from `from` to `to`: coin_spent, coin_received, transfer{recipient, sender, amount}
   * and message{sender}; creates `to`'s account when it has none.
   */
  async sendCoins(ctx: Context, from: Uint8Array, to: Uint8Array, amount: Coin[]): Promise<void> {
    await this.subUnlockedCoins(ctx, from, amount);
    await this.addCoins(ctx, to, amount);
    if (!(await this.accountKeeper.hasAccount(ctx, to))) {
      this.accountKeeper.setAccount(ctx, await this.accountKeeper.newAccountWithAddress(ctx, to));
    }
    if (!ctx.events.recording) return;
    const sender = this.accountKeeper.addressToString(from);
    ctx.events.emit("transfer", {
      recipient: this.accountKeeper.addressToString(to),
      sender,
      amount: coinsToString(amount),
    });
    ctx.events.emit("message", { sender });
  }

  /** A multi-send with one input: the outputs must add up to the input (upstream InputOutputCoins). */
  async inputOutputCoins(ctx: Context, input: InputOutput, outputs: InputOutput[]): Promise<void> {
    await this.subUnlockedCoins(ctx, input.address, input.coins);
    const sender = this.accountKeeper.addressToString(input.address);
    ctx.events.emit("message", { sender });
    for (const output of outputs) {
      await this.addCoins(ctx, output.address, output.coins);
      ctx.events.emit("transfer", {
        recipient: this.accountKeeper.addressToString(output.address),
        sender,
        amount: coinsToString(output.coins),
      });
      if (!(await this.accountKeeper.hasAccount(ctx, output.address))) {
        this.accountKeeper.setAccount(ctx, await this.accountKeeper.newAccountWithAddress(ctx, output.address));
      }
    }
  }

  /** Moves coins from an account to a module account (created on first use). */
  async sendCoinsFromAccountToModule(
    ctx: Context,
    from: Uint8Array,
    moduleName: string,
    amount: Coin[],
  ): Promise<void> {
    const recipient = await this.accountKeeper.getModuleAccount(ctx, moduleName);
    await this.sendCoins(ctx, from, recipient.address, amount);
  }

  /** Moves coins from a module account to an account; blocked recipients are refused. */
  async sendCoinsFromModuleToAccount(ctx: Context, moduleName: string, to: Uint8Array, amount: Coin[]): Promise<void> {
    if (this.isBlockedAddress(to)) {
      throw ErrUnauthorized.wrap(`${this.accountKeeper.addressToString(to)} is not allowed to receive funds`);
    }
    await this.sendCoins(ctx, this.accountKeeper.getModuleAddress(moduleName), to, amount);
  }

  /** Moves coins between module accounts. */
  async sendCoinsFromModuleToModule(ctx: Context, fromModule: string, toModule: string, amount: Coin[]): Promise<void> {
    const recipient = await this.accountKeeper.getModuleAccount(ctx, toModule);
    await this.sendCoins(ctx, this.accountKeeper.getModuleAddress(fromModule), recipient.address, amount);
  }

  /** Creates coins in a module account with the `minter` permission; emits coinbase{minter, amount}. */
  async mintCoins(ctx: Context, moduleName: string, amount: Coin[]): Promise<void> {
    const account = await this.accountKeeper.getModuleAccount(ctx, moduleName);
    if (!this.accountKeeper.hasPermission(moduleName, Permission.minter)) {
      throw ErrUnauthorized.wrap(`module account ${moduleName} does not have permissions to mint tokens`);
    }
    if (!isValidCoins(amount)) throw ErrInvalidCoins.wrap(coinsToString(amount));
    await this.addCoins(ctx, account.address, amount);
    for (const coin of amount) {
      const supply = await this.getSupply(ctx, coin.denom);
      this.setSupply(ctx, { denom: coin.denom, amount: supply.amount + coin.amount });
    }
    ctx.events.emit("coinbase", {
      minter: this.accountKeeper.addressToString(account.address),
      amount: coinsToString(amount),
    });
  }

  /** Destroys coins held by a module account with the `burner` permission; emits burn{burner, amount}. */
  async burnCoins(ctx: Context, moduleName: string, amount: Coin[]): Promise<void> {
    const account = await this.accountKeeper.getModuleAccount(ctx, moduleName);
    if (!this.accountKeeper.hasPermission(moduleName, Permission.burner)) {
      throw ErrUnauthorized.wrap(`module account ${moduleName} does not have permissions to burn tokens`);
    }
    if (!isValidCoins(amount)) throw ErrInvalidCoins.wrap(coinsToString(amount));
    await this.subUnlockedCoins(ctx, account.address, amount);
    for (const coin of amount) {
      const supply = await this.getSupply(ctx, coin.denom);
      this.setSupply(ctx, { denom: coin.denom, amount: supply.amount - coin.amount });
    }
    ctx.events.emit("burn", {
      burner: this.accountKeeper.addressToString(account.address),
      amount: coinsToString(amount),
    });
  }

  /** Total supply of `denom` (0 when none). */
  async getSupply(ctx: Context, denom: string): Promise<Coin> {
    const bytes = await this.store(ctx).get(supplyKey(denom));
    return { denom, amount: bytes === undefined ? 0n : parseAmount(fromUtf8(bytes)) };
  }

  /** Every denom's supply, sorted by denom. */
  async getTotalSupply(ctx: Context): Promise<Coin[]> {
    const out: Coin[] = [];
    for await (const [key, value] of this.store(ctx).iterate({ prefix: SUPPLY_PREFIX })) {
      out.push({ denom: fromUtf8(key.slice(SUPPLY_PREFIX.length)), amount: parseAmount(fromUtf8(value)) });
    }
    return out;
  }

  /** Sets the supply of one denom (zero removes the entry). */
  setSupply(ctx: Context, coin: Coin): void {
    if (coin.amount === 0n) this.store(ctx).delete(supplyKey(coin.denom));
    else this.store(ctx).set(supplyKey(coin.denom), utf8(coin.amount.toString()));
  }

  /** Bank params (defaults until set). */
  async getParams(ctx: Context): Promise<Params> {
    const bytes = await this.store(ctx).get(PARAMS_KEY);
    return bytes === undefined ? defaultBankParams() : this.decodeParams(bytes);
  }

  /** Stores bank params. */
  setParams(ctx: Context, params: Params): void {
    this.store(ctx).set(PARAMS_KEY, toBinary(ParamsSchema, create(ParamsSchema, params)));
  }

  /** Whether `denom` may be sent: its own flag when set, else the default from params. */
  async isSendEnabledDenom(ctx: Context, denom: string): Promise<boolean> {
    const flag = await this.store(ctx).get(sendEnabledKey(denom));
    if (flag !== undefined) return flag.length > 0 && flag[0] === 1;
    return (await this.getParams(ctx)).defaultSendEnabled;
  }

  /** Throws bank 5 `<denom> transfers are currently disabled: send transactions are disabled` for the first disabled denom. */
  async assertSendEnabled(ctx: Context, coins: readonly Coin[]): Promise<void> {
    for (const coin of coins) {
      if (!(await this.isSendEnabledDenom(ctx, coin.denom))) {
        throw ErrSendDisabled.wrap(`${coin.denom} transfers are currently disabled`);
      }
    }
  }

  /** The explicitly set send-enabled flag of `denom`, if any. */
  async getSendEnabled(ctx: Context, denom: string): Promise<boolean | undefined> {
    const flag = await this.store(ctx).get(sendEnabledKey(denom));
    return flag === undefined ? undefined : flag[0] === 1;
  }

  /** Sets a denom's send-enabled flag. */
  setSendEnabled(ctx: Context, denom: string, enabled: boolean): void {
    this.store(ctx).set(sendEnabledKey(denom), new Uint8Array([enabled ? 1 : 0]));
  }

  /** Removes a denom's flag (it falls back to the default). */
  deleteSendEnabled(ctx: Context, denom: string): void {
    this.store(ctx).delete(sendEnabledKey(denom));
  }

  /** Every explicitly set send-enabled flag, sorted by denom. */
  async getAllSendEnabled(ctx: Context): Promise<{ denom: string; enabled: boolean }[]> {
    const out: { denom: string; enabled: boolean }[] = [];
    for await (const [key, value] of this.store(ctx).iterate({ prefix: SEND_ENABLED_PREFIX })) {
      out.push({ denom: fromUtf8(key.slice(SEND_ENABLED_PREFIX.length)), enabled: value[0] === 1 });
    }
    return out;
  }

  /** Metadata of `denom`, if set. */
  async getDenomMetadata(ctx: Context, denom: string): Promise<Metadata | undefined> {
    const bytes = await this.store(ctx).get(denomMetadataKey(denom));
    return bytes === undefined ? undefined : fromBinary(MetadataSchema, bytes);
  }

  /** Stores metadata under its base denom. */
  setDenomMetadata(ctx: Context, metadata: Metadata): void {
    this.store(ctx).set(denomMetadataKey(metadata.base), toBinary(MetadataSchema, metadata));
  }

  /** Every denom's metadata, sorted by base denom. */
  async getAllDenomMetadata(ctx: Context): Promise<Metadata[]> {
    const out: Metadata[] = [];
    for await (const [, value] of this.store(ctx).iterate({ prefix: DENOM_METADATA_PREFIX })) {
      out.push(fromBinary(MetadataSchema, value));
    }
    return out;
  }

  /** Sets a balance directly (genesis); also keeps the denom-owner index. */
  setBalance(ctx: Context, address: Uint8Array, coin: Coin): void {
    const store = this.store(ctx);
    if (coin.amount === 0n) {
      store.delete(balanceKey(address, coin.denom));
      store.delete(denomOwnerKey(coin.denom, address));
      return;
    }
    store.set(balanceKey(address, coin.denom), utf8(coin.amount.toString()));
    store.set(denomOwnerKey(coin.denom, address), new Uint8Array());
  }

  /** The module's store in `ctx` (gas-metered). */
  store(ctx: Context): KVStore {
    return ctx.kvStore(this.storeKey);
  }

  // Upstream subUnlockedCoins: per coin, spendable must cover it, else
  // `spendable balance <bal> is smaller than <coin>: insufficient funds`; emits coin_spent.
  private async subUnlockedCoins(ctx: Context, address: Uint8Array, amount: Coin[]): Promise<void> {
    if (!isValidCoins(amount)) throw ErrInvalidCoins.wrap(coinsToString(amount));
    for (const coin of amount) {
      const balance = await this.getBalance(ctx, address, coin.denom);
      if (balance.amount < coin.amount) {
        throw ErrInsufficientFunds.wrap(
          `spendable balance ${coinToString(balance)} is smaller than ${coinToString(coin)}`,
        );
      }
      this.setBalance(ctx, address, { denom: coin.denom, amount: balance.amount - coin.amount });
    }
    if (!ctx.events.recording) return; // a CheckTx whose caller reads no events: skip building them
    ctx.events.emit("coin_spent", {
      spender: this.accountKeeper.addressToString(address),
      amount: coinsToString(amount),
    });
  }

  // Upstream addCoins: credits each coin; emits coin_received.
  private async addCoins(ctx: Context, address: Uint8Array, amount: Coin[]): Promise<void> {
    if (!isValidCoins(amount)) throw ErrInvalidCoins.wrap(coinsToString(amount));
    for (const coin of amount) {
      const balance = await this.getBalance(ctx, address, coin.denom);
      this.setBalance(ctx, address, { denom: coin.denom, amount: balance.amount + coin.amount });
    }
    if (!ctx.events.recording) return;
    ctx.events.emit("coin_received", {
      receiver: this.accountKeeper.addressToString(address),
      amount: coinsToString(amount),
    });
  }
}

/** Checks a multi-send's single input against its outputs (bank 4 when the sums differ). */
export function validateInputOutputs(input: InputOutput, outputs: InputOutput[]): void {
  const totals = new Map<string, bigint>();
  for (const output of outputs) {
    for (const coin of output.coins) totals.set(coin.denom, (totals.get(coin.denom) ?? 0n) + coin.amount);
  }
  const inputTotals = new Map(input.coins.map((coin) => [coin.denom, coin.amount]));
  const same =
    totals.size === inputTotals.size && [...totals].every(([denom, amount]) => inputTotals.get(denom) === amount);
  if (!same) throw ErrInputOutputMismatch.error();
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}
