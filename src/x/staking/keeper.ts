// The staking keeper: validators, delegations, bonded power, the validator set handed to the
// consensus engine, and the pools. This chain's staking is minimal: tokens go in (genesis
// transactions, MsgCreateValidator, MsgDelegate) and never come out (no undelegation, redelegation,
// slashing or rewards), which is all governance and consensus need (docs/CONTRACT.md §3).
//
// `StakingKeeper` is the one object callers hold; each method delegates to the file of its concern, as
// upstream splits x/staking/keeper: params-store.ts, validator-store.ts, delegations.ts, pools.ts,
// last-validator-set.ts, validator-set-updates.ts and historical-info.ts. The functions call back
// through the keeper's methods, so every store read and write happens in the order it always has
// (gas counts them).
import type { Context } from "../../app/context.ts";
import type { ValidatorUpdate } from "../../app/module.ts";
import type { Delegation, HistoricalInfo, Params, Validator } from "../../gen/chain/staking/v1beta1/staking_pb.js";
import * as delegations from "./delegations.ts";
import type { StakingAccountKeeper, StakingBankKeeper } from "./expected-keepers.ts";
import * as historicalInfo from "./historical-info.ts";
import { STAKING_STORE_KEY } from "./keys.ts";
import * as lastValidatorSet from "./last-validator-set.ts";
import { DEFAULT_POWER_REDUCTION } from "./params.ts";
import * as paramsStore from "./params-store.ts";
import * as pools from "./pools.ts";
import * as validatorSetUpdates from "./validator-set-updates.ts";
import * as validatorStore from "./validator-store.ts";

export type { DelegationInfo } from "./delegations.ts";
export type { StakingAccountKeeper, StakingBankKeeper } from "./expected-keepers.ts";
export type { PoolAmounts } from "./pools.ts";
export type { BondedValidatorInfo } from "./validator-store.ts";

/** Options of the staking keeper. */
export interface StakingKeeperOptions {
  bankKeeper: StakingBankKeeper;
  accountKeeper: StakingAccountKeeper;
  /** Who may update params (bech32); default the gov module account. */
  authority?: string;
  /** Tokens per unit of consensus power (default 10^6). */
  powerReduction?: bigint;
}

/** Validators, delegations, power and the validator set. */
export class StakingKeeper {
  readonly storeKey = STAKING_STORE_KEY;
  readonly authority: string;
  readonly powerReduction: bigint;
  readonly bankKeeper: StakingBankKeeper;
  readonly accountKeeper: StakingAccountKeeper;

  constructor(options: StakingKeeperOptions) {
    this.bankKeeper = options.bankKeeper;
    this.accountKeeper = options.accountKeeper;
    this.authority =
      options.authority ?? options.accountKeeper.addressToString(options.accountKeeper.getModuleAddress("gov"));
    this.powerReduction = options.powerReduction ?? DEFAULT_POWER_REDUCTION;
  }

  // ---- params (params-store.ts) -----------------------------------------------------------------

  /** The staking params (upstream defaults until set). */
  getParams(ctx: Context): Promise<Params> {
    return paramsStore.getParams(ctx, this);
  }

  /** Stores the params (validate first with validateStakingParams). */
  setParams(ctx: Context, params: Params): void {
    paramsStore.setParams(ctx, this, params);
  }

  /** The bond denom. */
  bondDenom(ctx: Context): Promise<string> {
    return paramsStore.bondDenom(ctx, this);
  }

  // ---- validators (validator-store.ts) ----------------------------------------------------------

  /** The validator operated by `operator`, if any. */
  getValidator(ctx: Context, operator: Uint8Array): Promise<Validator | undefined> {
    return validatorStore.getValidator(ctx, this, operator);
  }

  /** The validator operated by `operator`; staking 3 `validator does not exist` otherwise. */
  mustGetValidator(ctx: Context, operator: Uint8Array): Promise<Validator> {
    return validatorStore.mustGetValidator(ctx, this, operator);
  }

  /** Stores a validator record (indexes are separate). */
  setValidator(ctx: Context, validator: Validator): void {
    validatorStore.setValidator(ctx, this, validator);
  }

  /** Indexes the validator by its consensus address. */
  setValidatorByConsAddr(ctx: Context, validator: Validator): void {
    validatorStore.setValidatorByConsAddr(ctx, this, validator);
  }

  /** The validator whose consensus address is `consAddress`, if any. */
  getValidatorByConsAddr(ctx: Context, consAddress: Uint8Array): Promise<Validator | undefined> {
    return validatorStore.getValidatorByConsAddr(ctx, this, consAddress);
  }

  /** Adds the validator to the power index (jailed validators are never indexed). */
  setValidatorByPowerIndex(ctx: Context, validator: Validator): void {
    validatorStore.setValidatorByPowerIndex(ctx, this, validator);
  }

  /** Removes the validator's current power index entry. */
  deleteValidatorByPowerIndex(ctx: Context, validator: Validator): void {
    validatorStore.deleteValidatorByPowerIndex(ctx, this, validator);
  }

  /** Every validator, in operator-address order. */
  iterateValidators(ctx: Context): AsyncIterable<Validator> {
    return validatorStore.iterateValidators(ctx, this);
  }

  /** Every validator, in operator-address order. */
  getAllValidators(ctx: Context): Promise<Validator[]> {
    return validatorStore.getAllValidators(ctx, this);
  }

  /** Operator addresses by power, highest first (non-jailed validators, any status). */
  iterateOperatorsByPower(ctx: Context): AsyncIterable<Uint8Array> {
    return validatorStore.iterateOperatorsByPower(ctx, this);
  }

  /**
   * Bonded validators by power, highest first, at most max_validators (upstream
   * IterateBondedValidatorsByPower); what the gov tally iterates.
   */
  iterateBondedValidatorsByPower(ctx: Context): AsyncIterable<validatorStore.BondedValidatorInfo> {
    return validatorStore.iterateBondedValidatorsByPower(ctx, this);
  }

  /** Adds tokens to a validator, keeping the power index in step; returns the issued shares. */
  addValidatorTokensAndShares(ctx: Context, validator: Validator, amount: bigint): bigint {
    return validatorStore.addValidatorTokensAndShares(ctx, this, validator, amount);
  }

  // ---- delegations (delegations.ts) -------------------------------------------------------------

  /** The delegation of `delegator` to `operator`, if any. */
  getDelegation(ctx: Context, delegator: Uint8Array, operator: Uint8Array): Promise<Delegation | undefined> {
    return delegations.getDelegation(ctx, this, delegator, operator);
  }

  /** Stores a delegation and its by-validator index entry. */
  setDelegation(ctx: Context, delegation: Delegation): void {
    delegations.setDelegation(ctx, this, delegation);
  }

  /** Every delegation of `delegator`, in validator order. */
  iterateDelegatorDelegations(ctx: Context, delegator: Uint8Array): AsyncIterable<Delegation> {
    return delegations.iterateDelegatorDelegations(ctx, this, delegator);
  }

  /** Every delegation to `operator`, in delegator order. */
  iterateValidatorDelegations(ctx: Context, operator: Uint8Array): AsyncIterable<Delegation> {
    return delegations.iterateValidatorDelegations(ctx, this, operator);
  }

  /** Every delegation, in (delegator, validator) order. */
  iterateAllDelegations(ctx: Context): AsyncIterable<Delegation> {
    return delegations.iterateAllDelegations(ctx, this);
  }

  /** The delegations of `delegator` as governance sees them (upstream IterateDelegations). */
  iterateDelegations(ctx: Context, delegator: Uint8Array): AsyncIterable<delegations.DelegationInfo> {
    return delegations.iterateDelegations(ctx, this, delegator);
  }

  /**
   * Delegates `amount` bond-denom tokens from `delegator`'s account to `validator` (upstream
   * Delegate with tokens from an account): moves the coins into the pool matching the validator's
   * status, issues shares, updates the delegation. Returns the new shares.
   */
  delegate(ctx: Context, delegator: Uint8Array, amount: bigint, validator: Validator): Promise<bigint> {
    return delegations.delegate(ctx, this, delegator, amount, validator);
  }

  // ---- pools (pools.ts) -------------------------------------------------------------------------

  /** Tokens in the bonded pool (upstream TotalBondedTokens). */
  totalBondedTokens(ctx: Context): Promise<bigint> {
    return pools.totalBondedTokens(ctx, this);
  }

  /** Both pools' bond-denom balances. */
  pool(ctx: Context): Promise<pools.PoolAmounts> {
    return pools.pool(ctx, this);
  }

  // ---- last validator set (last-validator-set.ts) -----------------------------------------------

  /** The power `operator` had in the last validator set, if it was in it. */
  getLastValidatorPower(ctx: Context, operator: Uint8Array): Promise<bigint | undefined> {
    return lastValidatorSet.getLastValidatorPower(ctx, this, operator);
  }

  /** Records the power of a member of the validator set. */
  setLastValidatorPower(ctx: Context, operator: Uint8Array, power: bigint): void {
    lastValidatorSet.setLastValidatorPower(ctx, this, operator, power);
  }

  /** Removes a validator from the last validator set. */
  deleteLastValidatorPower(ctx: Context, operator: Uint8Array): void {
    lastValidatorSet.deleteLastValidatorPower(ctx, this, operator);
  }

  /** The last validator set: operator bytes and power, in operator order. */
  getLastValidatorPowers(ctx: Context): Promise<{ operator: Uint8Array; power: bigint }[]> {
    return lastValidatorSet.getLastValidatorPowers(ctx, this);
  }

  /** The last total power (sum of the set's powers). */
  getLastTotalPower(ctx: Context): Promise<bigint> {
    return lastValidatorSet.getLastTotalPower(ctx, this);
  }

  /** Stores the last total power. */
  setLastTotalPower(ctx: Context, power: bigint): void {
    lastValidatorSet.setLastTotalPower(ctx, this, power);
  }

  // ---- validator set updates (validator-set-updates.ts) -----------------------------------------

  /**
   * Recomputes the bonded set (upstream ApplyAndReturnValidatorSetUpdates): the top max_validators
   * by power with power > 0 are bonded, everyone else leaves the set; the pools are settled with one
   * transfer; returns only the changed powers (0 for validators that left).
   */
  applyAndReturnValidatorSetUpdates(ctx: Context): Promise<ValidatorUpdate[]> {
    return validatorSetUpdates.applyAndReturnValidatorSetUpdates(ctx, this);
  }

  /** Unbonding validators whose unbonding time and height have passed become unbonded. */
  unbondAllMatureValidators(ctx: Context): Promise<void> {
    return validatorSetUpdates.unbondAllMatureValidators(ctx, this);
  }

  // ---- historical info (historical-info.ts) -----------------------------------------------------

  /**
   * Records this block's header and validator set (upstream TrackHistoricalInfo) and prunes entries
   * older than historical_entries blocks.
   */
  trackHistoricalInfo(ctx: Context): Promise<void> {
    return historicalInfo.trackHistoricalInfo(ctx, this);
  }

  /** The historical info recorded at `height`, if kept. */
  getHistoricalInfo(ctx: Context, height: bigint): Promise<HistoricalInfo | undefined> {
    return historicalInfo.getHistoricalInfo(ctx, this, height);
  }
}
