// The staking keeper: validators, delegations, bonded power, the validator set handed to the
// consensus engine, and the pools. This chain's staking is minimal: tokens go in (genesis
// transactions, MsgCreateValidator, MsgDelegate) and never come out (no undelegation, redelegation,
// slashing or rewards), which is all governance and consensus need (docs/CONTRACT.md §3).
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import type { Coin } from "../../app/coins.ts";
import type { Context } from "../../app/context.ts";
import { formatDecimal, parseDecimal } from "../../app/dec.ts";
import { decodedOnce } from "../../app/decoded-once.ts";
import { ErrLogic } from "../../app/errors.ts";
import type { ValidatorUpdate } from "../../app/module.ts";
import { addDuration, compareTimestamps } from "../../app/time.ts";
import { compareBytes } from "../../bytes/compare.ts";
import { toHex } from "../../bytes/hex.ts";
import { fromUtf8, utf8 } from "../../bytes/text.ts";
import {
  BondStatus,
  type Delegation,
  DelegationSchema,
  type HistoricalInfo,
  HistoricalInfoSchema,
  type Params,
  ParamsSchema,
  ValAddressesSchema,
  type Validator,
  ValidatorSchema,
} from "../../gen/chain/staking/v1beta1/staking_pb.js";
import { ErrDelegatorShareExRateInvalid, ErrNoValidatorFound } from "./errors.ts";
import {
  BONDED_POOL_NAME,
  DELEGATION_PREFIX,
  delegationByValidatorKey,
  delegationKey,
  delegationsOfDelegatorPrefix,
  delegationsOfValidatorPrefix,
  historicalInfoKey,
  LAST_TOTAL_POWER_KEY,
  LAST_VALIDATOR_POWER_PREFIX,
  lastValidatorPowerKey,
  NOT_BONDED_POOL_NAME,
  PARAMS_KEY,
  readLengthPrefixed,
  readUint64BigEndian,
  STAKING_STORE_KEY,
  uint64BigEndian,
  VALIDATOR_QUEUE_PREFIX,
  VALIDATORS_BY_POWER_PREFIX,
  VALIDATORS_PREFIX,
  validatorByConsAddrKey,
  validatorByPowerKey,
  validatorKey,
  validatorQueueKey,
} from "./keys.ts";
import { DEFAULT_POWER_REDUCTION, defaultStakingParams } from "./params.ts";
import {
  addTokensFromDelegation,
  consensusAddress,
  consensusPower,
  decodeValidator,
  encodeValidator,
  freezeValidator,
  hasInvalidExchangeRate,
  isBonded,
  operatorBytes,
  potentialConsensusPower,
  valAddressFromBech32,
  validatorShares,
  validatorTokens,
  validatorUpdate,
  validatorUpdateZero,
  withStatus,
} from "./validator.ts";

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

/** Options of the staking keeper. */
export interface StakingKeeperOptions {
  bankKeeper: StakingBankKeeper;
  accountKeeper: StakingAccountKeeper;
  /** Who may update params (bech32); default the gov module account. */
  authority?: string;
  /** Tokens per unit of consensus power (default 10^6). */
  powerReduction?: bigint;
}

/** A bonded validator as governance sees it (the tally's ValidatorGovInfo inputs). */
export interface BondedValidatorInfo {
  /** Operator address bytes (the same 20 bytes as the operator's account). */
  operator: Uint8Array;
  bondedTokens: bigint;
  /** Delegator shares, a 10^18-scaled decimal. */
  delegatorShares: bigint;
}

/** One delegation as governance sees it. */
export interface DelegationInfo {
  /** Operator address bytes of the validator. */
  validator: Uint8Array;
  /** Shares, a 10^18-scaled decimal. */
  shares: bigint;
}

/** The staking pools (bond denom amounts). */
export interface PoolAmounts {
  notBondedTokens: bigint;
  bondedTokens: bigint;
}

/** The header fields a historical info records (upstream's HistoricalInfo header: the rest left zero). */
interface HistoricalHeader {
  chainId: string;
  height: bigint;
  time: Timestamp | undefined;
  appHash: Uint8Array;
  proposerAddress: Uint8Array;
}

/** Validators, delegations, power and the validator set. */
export class StakingKeeper {
  readonly storeKey = STAKING_STORE_KEY;
  readonly authority: string;
  readonly powerReduction: bigint;
  readonly bankKeeper: StakingBankKeeper;
  readonly accountKeeper: StakingAccountKeeper;
  // Every block reads the params and the set's validators several times (historical info, the set's updates):
  // decoded once per stored value — branches hand back the same bytes object until the key is rewritten, as for
  // auth's accounts — and frozen, since the readers share them.
  private readonly decodeParams = decodedOnce((bytes) => fromBinary(ParamsSchema, bytes));
  private readonly decodedValidators = new WeakMap<Uint8Array, Validator>();
  /** The valset of the last historical info written (its frozen records) and its encoding. */
  private lastValset: { validators: readonly Validator[]; bytes: Uint8Array } | undefined;

  constructor(options: StakingKeeperOptions) {
    this.bankKeeper = options.bankKeeper;
    this.accountKeeper = options.accountKeeper;
    this.authority =
      options.authority ?? options.accountKeeper.addressToString(options.accountKeeper.getModuleAddress("gov"));
    this.powerReduction = options.powerReduction ?? DEFAULT_POWER_REDUCTION;
  }

  // ---- params ----------------------------------------------------------------------------------

  /** The staking params (upstream defaults until set). Frozen when stored: change a copy and `setParams` it. */
  async getParams(ctx: Context): Promise<Params> {
    const bytes = await ctx.kvStore(this.storeKey).get(PARAMS_KEY);
    return bytes === undefined ? defaultStakingParams() : this.decodeParams(bytes);
  }

  /** Stores the params (validate first with validateStakingParams). */
  setParams(ctx: Context, params: Params): void {
    ctx.kvStore(this.storeKey).set(PARAMS_KEY, toBinary(ParamsSchema, create(ParamsSchema, params)));
  }

  /** The bond denom. */
  async bondDenom(ctx: Context): Promise<string> {
    return (await this.getParams(ctx)).bondDenom;
  }

  // ---- validators -----------------------------------------------------------------------------

  /** The validator operated by `operator`, if any. The record is frozen: change a copy and `setValidator` it. */
  async getValidator(ctx: Context, operator: Uint8Array): Promise<Validator | undefined> {
    const bytes = await ctx.kvStore(this.storeKey).get(validatorKey(operator));
    return bytes === undefined ? undefined : this.validatorOf(bytes);
  }

  /** The frozen record stored as `bytes`, decoded once per bytes object. */
  private validatorOf(bytes: Uint8Array): Validator {
    let validator = this.decodedValidators.get(bytes);
    if (validator === undefined) {
      validator = freezeValidator(decodeValidator(bytes));
      this.decodedValidators.set(bytes, validator);
    }
    return validator;
  }

  /** The validator operated by `operator`; staking 3 `validator does not exist` otherwise. */
  async mustGetValidator(ctx: Context, operator: Uint8Array): Promise<Validator> {
    const validator = await this.getValidator(ctx, operator);
    if (validator === undefined) throw ErrNoValidatorFound.error();
    return validator;
  }

  /** Stores a validator record (indexes are separate). */
  setValidator(ctx: Context, validator: Validator): void {
    ctx.kvStore(this.storeKey).set(validatorKey(operatorBytes(validator)), encodeValidator(validator));
  }

  /** Indexes the validator by its consensus address. */
  setValidatorByConsAddr(ctx: Context, validator: Validator): void {
    ctx.kvStore(this.storeKey).set(validatorByConsAddrKey(consensusAddress(validator)), operatorBytes(validator));
  }

  /** The validator whose consensus address is `consAddress`, if any. */
  async getValidatorByConsAddr(ctx: Context, consAddress: Uint8Array): Promise<Validator | undefined> {
    const operator = await ctx.kvStore(this.storeKey).get(validatorByConsAddrKey(consAddress));
    return operator === undefined ? undefined : this.getValidator(ctx, operator);
  }

  /** Adds the validator to the power index (jailed validators are never indexed). */
  setValidatorByPowerIndex(ctx: Context, validator: Validator): void {
    if (validator.jailed) return;
    const operator = operatorBytes(validator);
    ctx
      .kvStore(this.storeKey)
      .set(validatorByPowerKey(potentialConsensusPower(validator, this.powerReduction), operator), operator);
  }

  /** Removes the validator's current power index entry. */
  deleteValidatorByPowerIndex(ctx: Context, validator: Validator): void {
    ctx
      .kvStore(this.storeKey)
      .delete(validatorByPowerKey(potentialConsensusPower(validator, this.powerReduction), operatorBytes(validator)));
  }

  /** Every validator (frozen records), in operator-address order. */
  async *iterateValidators(ctx: Context): AsyncIterable<Validator> {
    for await (const [, value] of ctx.kvStore(this.storeKey).iterate({ prefix: VALIDATORS_PREFIX })) {
      yield this.validatorOf(value);
    }
  }

  /** Every validator, in operator-address order. */
  async getAllValidators(ctx: Context): Promise<Validator[]> {
    const out: Validator[] = [];
    for await (const validator of this.iterateValidators(ctx)) out.push(validator);
    return out;
  }

  /** Operator addresses by power, highest first (non-jailed validators, any status). */
  async *iterateOperatorsByPower(ctx: Context): AsyncIterable<Uint8Array> {
    const iteration = ctx.kvStore(this.storeKey).iterate({ prefix: VALIDATORS_BY_POWER_PREFIX, reverse: true });
    for await (const [, operator] of iteration) yield operator;
  }

  /**
   * Bonded validators by power, highest first, at most max_validators (upstream
   * IterateBondedValidatorsByPower); what the gov tally iterates.
   */
  async *iterateBondedValidatorsByPower(ctx: Context): AsyncIterable<BondedValidatorInfo> {
    const { maxValidators } = await this.getParams(ctx);
    let count = 0;
    for await (const operator of this.iterateOperatorsByPower(ctx)) {
      if (count >= maxValidators) break;
      const validator = await this.mustGetValidator(ctx, operator);
      if (!isBonded(validator)) continue;
      count++;
      yield { operator, bondedTokens: validatorTokens(validator), delegatorShares: validatorShares(validator) };
    }
  }

  // ---- delegations ----------------------------------------------------------------------------

  /** The delegation of `delegator` to `operator`, if any. */
  async getDelegation(ctx: Context, delegator: Uint8Array, operator: Uint8Array): Promise<Delegation | undefined> {
    const bytes = await ctx.kvStore(this.storeKey).get(delegationKey(delegator, operator));
    return bytes === undefined ? undefined : fromBinary(DelegationSchema, bytes);
  }

  /** Stores a delegation and its by-validator index entry. */
  setDelegation(ctx: Context, delegation: Delegation): void {
    const delegator = this.accountKeeper.addressFromString(delegation.delegatorAddress);
    const operator = valAddressFromBech32(delegation.validatorAddress);
    const store = ctx.kvStore(this.storeKey);
    store.set(delegationKey(delegator, operator), toBinary(DelegationSchema, delegation));
    store.set(delegationByValidatorKey(operator, delegator), new Uint8Array());
  }

  /** Every delegation of `delegator`, in validator order. */
  async *iterateDelegatorDelegations(ctx: Context, delegator: Uint8Array): AsyncIterable<Delegation> {
    const prefix = delegationsOfDelegatorPrefix(delegator);
    for await (const [, value] of ctx.kvStore(this.storeKey).iterate({ prefix })) {
      yield fromBinary(DelegationSchema, value);
    }
  }

  /** Every delegation to `operator`, in delegator order. */
  async *iterateValidatorDelegations(ctx: Context, operator: Uint8Array): AsyncIterable<Delegation> {
    const prefix = delegationsOfValidatorPrefix(operator);
    for await (const [key] of ctx.kvStore(this.storeKey).iterate({ prefix })) {
      const { address: delegator } = readLengthPrefixed(key, prefix.length);
      const delegation = await this.getDelegation(ctx, delegator, operator);
      if (delegation !== undefined) yield delegation;
    }
  }

  /** Every delegation, in (delegator, validator) order. */
  async *iterateAllDelegations(ctx: Context): AsyncIterable<Delegation> {
    for await (const [, value] of ctx.kvStore(this.storeKey).iterate({ prefix: DELEGATION_PREFIX })) {
      yield fromBinary(DelegationSchema, value);
    }
  }

  /** The delegations of `delegator` as governance sees them (upstream IterateDelegations). */
  async *iterateDelegations(ctx: Context, delegator: Uint8Array): AsyncIterable<DelegationInfo> {
    for await (const delegation of this.iterateDelegatorDelegations(ctx, delegator)) {
      yield {
        validator: valAddressFromBech32(delegation.validatorAddress),
        shares: parseDecimal(delegation.shares, "delegation shares"),
      };
    }
  }

  /**
   * Delegates `amount` bond-denom tokens from `delegator`'s account to `validator` (upstream
   * Delegate with tokens from an account): moves the coins into the pool matching the validator's
   * status, issues shares, updates the delegation. Returns the new shares.
   */
  async delegate(ctx: Context, delegator: Uint8Array, amount: bigint, validator: Validator): Promise<bigint> {
    if (hasInvalidExchangeRate(validator)) throw ErrDelegatorShareExRateInvalid.error();
    const operator = operatorBytes(validator);
    const existing = await this.getDelegation(ctx, delegator, operator);
    const delegation =
      existing ??
      create(DelegationSchema, {
        delegatorAddress: this.accountKeeper.addressToString(delegator),
        validatorAddress: validator.operatorAddress,
        shares: formatDecimal(0n),
      });

    const pool = isBonded(validator) ? BONDED_POOL_NAME : NOT_BONDED_POOL_NAME;
    const coins = [{ denom: await this.bondDenom(ctx), amount }];
    if (this.bankKeeper.delegateCoinsFromAccountToModule !== undefined) {
      await this.bankKeeper.delegateCoinsFromAccountToModule(ctx, delegator, pool, coins);
    } else {
      await this.bankKeeper.sendCoinsFromAccountToModule(ctx, delegator, pool, coins);
    }

    const issued = this.addValidatorTokensAndShares(ctx, validator, amount);
    const shares = parseDecimal(delegation.shares, "delegation shares") + issued;
    this.setDelegation(ctx, create(DelegationSchema, { ...delegation, shares: formatDecimal(shares) }));
    return issued;
  }

  /** Adds tokens to a validator, keeping the power index in step; returns the issued shares. */
  addValidatorTokensAndShares(ctx: Context, validator: Validator, amount: bigint): bigint {
    this.deleteValidatorByPowerIndex(ctx, validator);
    const { validator: updated, issued } = addTokensFromDelegation(validator, amount);
    this.setValidator(ctx, updated);
    this.setValidatorByPowerIndex(ctx, updated);
    return issued;
  }

  // ---- pools ----------------------------------------------------------------------------------

  /** Tokens in the bonded pool (upstream TotalBondedTokens). */
  async totalBondedTokens(ctx: Context): Promise<bigint> {
    const denom = await this.bondDenom(ctx);
    return (await this.bankKeeper.getBalance(ctx, this.accountKeeper.getModuleAddress(BONDED_POOL_NAME), denom)).amount;
  }

  /** Both pools' bond-denom balances. */
  async pool(ctx: Context): Promise<PoolAmounts> {
    const denom = await this.bondDenom(ctx);
    const notBonded = await this.bankKeeper.getBalance(
      ctx,
      this.accountKeeper.getModuleAddress(NOT_BONDED_POOL_NAME),
      denom,
    );
    return { notBondedTokens: notBonded.amount, bondedTokens: await this.totalBondedTokens(ctx) };
  }

  // ---- last validator set -----------------------------------------------------------------------

  /** The power `operator` had in the last validator set, if it was in it. */
  async getLastValidatorPower(ctx: Context, operator: Uint8Array): Promise<bigint | undefined> {
    const bytes = await ctx.kvStore(this.storeKey).get(lastValidatorPowerKey(operator));
    return bytes === undefined ? undefined : readUint64BigEndian(bytes);
  }

  /** Records the power of a member of the validator set. */
  setLastValidatorPower(ctx: Context, operator: Uint8Array, power: bigint): void {
    ctx.kvStore(this.storeKey).set(lastValidatorPowerKey(operator), uint64BigEndian(power));
  }

  /** Removes a validator from the last validator set. */
  deleteLastValidatorPower(ctx: Context, operator: Uint8Array): void {
    ctx.kvStore(this.storeKey).delete(lastValidatorPowerKey(operator));
  }

  /** The last validator set: operator bytes and power, in operator order. */
  async getLastValidatorPowers(ctx: Context): Promise<{ operator: Uint8Array; power: bigint }[]> {
    const out: { operator: Uint8Array; power: bigint }[] = [];
    const prefix = LAST_VALIDATOR_POWER_PREFIX;
    for await (const [key, value] of ctx.kvStore(this.storeKey).iterate({ prefix })) {
      out.push({ operator: readLengthPrefixed(key, prefix.length).address, power: readUint64BigEndian(value) });
    }
    return out;
  }

  /** The last total power (sum of the set's powers). */
  async getLastTotalPower(ctx: Context): Promise<bigint> {
    const bytes = await ctx.kvStore(this.storeKey).get(LAST_TOTAL_POWER_KEY);
    return bytes === undefined ? 0n : BigInt(fromUtf8(bytes));
  }

  /** Stores the last total power. */
  setLastTotalPower(ctx: Context, power: bigint): void {
    ctx.kvStore(this.storeKey).set(LAST_TOTAL_POWER_KEY, utf8(power.toString()));
  }

  // ---- validator set updates --------------------------------------------------------------------

  /**
   * Recomputes the bonded set (upstream ApplyAndReturnValidatorSetUpdates): the top max_validators
   * by power with power > 0 are bonded, everyone else leaves the set; the pools are settled with one
   * transfer; returns only the changed powers (0 for validators that left).
   */
  async applyAndReturnValidatorSetUpdates(ctx: Context): Promise<ValidatorUpdate[]> {
    const params = await this.getParams(ctx);
    const updates: ValidatorUpdate[] = [];
    const last = new Map<string, { operator: Uint8Array; power: bigint }>();
    for (const entry of await this.getLastValidatorPowers(ctx)) last.set(toHex(entry.operator), entry);

    let totalPower = 0n;
    let notBondedToBonded = 0n;
    let bondedToNotBonded = 0n;
    let count = 0;
    for await (const operator of this.iterateOperatorsByPower(ctx)) {
      if (count >= params.maxValidators) break;
      let validator = await this.mustGetValidator(ctx, operator);
      if (validator.jailed) throw ErrLogic.wrap("should never retrieve a jailed validator from the power store");
      // Power is sorted: from the first zero-power validator on, nobody can be bonded.
      if (potentialConsensusPower(validator, this.powerReduction) === 0n) break;

      if (validator.status === BondStatus.UNBONDED || validator.status === BondStatus.UNBONDING) {
        validator = await this.bondValidator(ctx, validator);
        notBondedToBonded += validatorTokens(validator);
      } else if (validator.status !== BondStatus.BONDED) {
        throw ErrLogic.wrap(`unexpected validator status ${validator.status}`);
      }

      const key = toHex(operator);
      const newPower = consensusPower(validator, this.powerReduction);
      const old = last.get(key);
      if (old === undefined || old.power !== newPower) {
        updates.push(validatorUpdate(validator, this.powerReduction));
        this.setLastValidatorPower(ctx, operator, newPower);
      }
      last.delete(key);
      count++;
      totalPower += newPower;
    }

    // Whoever is left in `last` fell out of the set; upstream handles them in address order.
    const leaving = [...last.values()].sort((a, b) => compareBytes(a.operator, b.operator));
    for (const { operator } of leaving) {
      const validator = await this.beginUnbondingValidator(ctx, await this.mustGetValidator(ctx, operator));
      bondedToNotBonded += validatorTokens(validator);
      this.deleteLastValidatorPower(ctx, operator);
      updates.push(validatorUpdateZero(validator));
    }

    const denom = params.bondDenom;
    if (notBondedToBonded > bondedToNotBonded) {
      await this.movePoolTokens(
        ctx,
        NOT_BONDED_POOL_NAME,
        BONDED_POOL_NAME,
        denom,
        notBondedToBonded - bondedToNotBonded,
      );
    } else if (notBondedToBonded < bondedToNotBonded) {
      await this.movePoolTokens(
        ctx,
        BONDED_POOL_NAME,
        NOT_BONDED_POOL_NAME,
        denom,
        bondedToNotBonded - notBondedToBonded,
      );
    }
    if (updates.length > 0) this.setLastTotalPower(ctx, totalPower);
    return updates;
  }

  /** Unbonding validators whose unbonding time and height have passed become unbonded. */
  async unbondAllMatureValidators(ctx: Context): Promise<void> {
    const store = ctx.kvStore(this.storeKey);
    const now = ctx.blockTime;
    const height = ctx.blockHeight;
    const mature: { key: Uint8Array; operators: string[] }[] = [];
    for await (const [key, value] of store.iterate({ prefix: VALIDATOR_QUEUE_PREFIX })) {
      const seconds = readUint64BigEndian(key, 1);
      const nanos = new DataView(key.buffer, key.byteOffset, key.byteLength).getUint32(9);
      const queuedHeight = readUint64BigEndian(key, 13);
      const time = { $typeName: "google.protobuf.Timestamp" as const, seconds, nanos };
      if (compareTimestamps(time, now) > 0) break;
      if (queuedHeight > height) continue;
      mature.push({ key, operators: fromBinary(ValAddressesSchema, value).addresses });
    }
    for (const { key, operators } of mature) {
      for (const address of operators) {
        const validator = await this.mustGetValidator(ctx, valAddressFromBech32(address));
        if (validator.status !== BondStatus.UNBONDING) {
          throw ErrLogic.wrap(`unexpected validator in unbonding queue; status was not unbonding: ${address}`);
        }
        this.setValidator(ctx, withStatus(validator, BondStatus.UNBONDED));
      }
      store.delete(key);
    }
  }

  private async bondValidator(ctx: Context, validator: Validator): Promise<Validator> {
    await this.deleteValidatorQueueEntry(ctx, validator);
    const bonded = withStatus(validator, BondStatus.BONDED);
    this.setValidator(ctx, bonded);
    return bonded;
  }

  private async beginUnbondingValidator(ctx: Context, validator: Validator): Promise<Validator> {
    if (validator.status !== BondStatus.BONDED) {
      throw ErrLogic.wrap(`should not already be unbonded or unbonding, validator: ${validator.operatorAddress}`);
    }
    const params = await this.getParams(ctx);
    const unbonding = create(ValidatorSchema, {
      ...validator,
      status: BondStatus.UNBONDING,
      unbondingTime: addDuration(ctx.blockTime, params.unbondingTime),
      unbondingHeight: ctx.blockHeight,
    });
    this.setValidator(ctx, unbonding);
    await this.insertValidatorQueueEntry(ctx, unbonding);
    return unbonding;
  }

  private async insertValidatorQueueEntry(ctx: Context, validator: Validator): Promise<void> {
    const store = ctx.kvStore(this.storeKey);
    const key = validatorQueueKey(validator.unbondingTime ?? ctx.blockTime, validator.unbondingHeight);
    const existing = await store.get(key);
    const addresses = existing === undefined ? [] : fromBinary(ValAddressesSchema, existing).addresses;
    addresses.push(validator.operatorAddress);
    store.set(key, toBinary(ValAddressesSchema, create(ValAddressesSchema, { addresses })));
  }

  private async deleteValidatorQueueEntry(ctx: Context, validator: Validator): Promise<void> {
    if (validator.status !== BondStatus.UNBONDING || validator.unbondingTime === undefined) return;
    const store = ctx.kvStore(this.storeKey);
    const key = validatorQueueKey(validator.unbondingTime, validator.unbondingHeight);
    const existing = await store.get(key);
    if (existing === undefined) return;
    const addresses = fromBinary(ValAddressesSchema, existing).addresses.filter(
      (address) => address !== validator.operatorAddress,
    );
    if (addresses.length === 0) store.delete(key);
    else store.set(key, toBinary(ValAddressesSchema, create(ValAddressesSchema, { addresses })));
  }

  private async movePoolTokens(ctx: Context, from: string, to: string, denom: string, amount: bigint): Promise<void> {
    await this.bankKeeper.sendCoinsFromModuleToModule(ctx, from, to, [{ denom, amount }]);
  }

  // ---- historical info --------------------------------------------------------------------------

  /**
   * Records this block's header and validator set (upstream TrackHistoricalInfo) and prunes entries
   * older than historical_entries blocks.
   */
  async trackHistoricalInfo(ctx: Context): Promise<void> {
    const { historicalEntries } = await this.getParams(ctx);
    const store = ctx.kvStore(this.storeKey);
    for (let height = ctx.blockHeight - BigInt(historicalEntries); height >= 0n; height--) {
      const key = historicalInfoKey(height);
      if (!(await store.has(key))) break;
      store.delete(key);
    }
    if (historicalEntries === 0) return;
    const valset: Validator[] = [];
    for (const { operator } of await this.getLastValidatorPowers(ctx)) {
      const validator = await this.getValidator(ctx, operator);
      if (validator !== undefined) valset.push(validator);
    }
    valset.sort((a, b) => {
      const byPower = consensusPower(b, this.powerReduction) - consensusPower(a, this.powerReduction);
      if (byPower !== 0n) return byPower < 0n ? -1 : 1;
      return compareBytes(consensusAddress(a), consensusAddress(b));
    });
    const header: HistoricalHeader = {
      chainId: ctx.chainId,
      height: ctx.blockHeight,
      time: ctx.blockTime,
      appHash: ctx.header.lastAppHash,
      proposerAddress: ctx.header.proposerAddress,
    };
    store.set(historicalInfoKey(ctx.blockHeight), this.encodeHistoricalInfo(header, valset));
  }

  /**
   * `toBinary(HistoricalInfoSchema, create(HistoricalInfoSchema, { header, valset }))`, written field by field as
   * toBinary writes them (fields in number order, zero scalars and empty bytes left out): the header (1) with its
   * five fields, then each of the valset (2). The valset's part is encoded again only when its records changed —
   * the same frozen records (validatorOf) in the same order encode to the same bytes, and the set rarely changes
   * between blocks. `staking.test.ts` ("historical info") checks the bytes against toBinary.
   */
  private encodeHistoricalInfo(header: HistoricalHeader, valset: Validator[]): Uint8Array {
    let last = this.lastValset;
    if (
      last === undefined ||
      last.validators.length !== valset.length ||
      last.validators.some((validator, i) => validator !== valset[i] || !Object.isFrozen(validator))
    ) {
      const writer = new BinaryWriter();
      for (const validator of valset) {
        writer.tag(2, WireType.LengthDelimited).bytes(toBinary(ValidatorSchema, validator));
      }
      last = { validators: valset, bytes: writer.finish() };
      this.lastValset = last;
    }
    // tendermint.types.Header: chain_id = 2, height = 3, time = 4 (seconds = 1, nanos = 2), app_hash = 11,
    // proposer_address = 14.
    const writer = new BinaryWriter().tag(1, WireType.LengthDelimited).fork();
    if (header.chainId !== "") writer.tag(2, WireType.LengthDelimited).string(header.chainId);
    if (header.height !== 0n) writer.tag(3, WireType.Varint).int64(header.height);
    const time = header.time;
    if (time !== undefined) {
      writer.tag(4, WireType.LengthDelimited).fork();
      if (time.seconds !== 0n) writer.tag(1, WireType.Varint).int64(time.seconds);
      if (time.nanos !== 0) writer.tag(2, WireType.Varint).int32(time.nanos);
      writer.join();
    }
    if (header.appHash.length > 0) writer.tag(11, WireType.LengthDelimited).bytes(header.appHash);
    if (header.proposerAddress.length > 0) writer.tag(14, WireType.LengthDelimited).bytes(header.proposerAddress);
    return writer.join().raw(last.bytes).finish();
  }

  /** The historical info recorded at `height`, if kept. */
  async getHistoricalInfo(ctx: Context, height: bigint): Promise<HistoricalInfo | undefined> {
    const bytes = await ctx.kvStore(this.storeKey).get(historicalInfoKey(height));
    return bytes === undefined ? undefined : fromBinary(HistoricalInfoSchema, bytes);
  }
}
