// Validators in the store (upstream x/staking/keeper/validator.go): the validator records, their
// consensus-address and power indexes, and the iterations over them. The record's own arithmetic (tokens,
// shares, power) lives in validator.ts.
import type { Context } from "../../app/context.ts";
import type { Validator } from "../../gen/chain/staking/v1beta1/staking_pb.js";
import { ErrNoValidatorFound } from "./errors.ts";
import type { StakingKeeper } from "./keeper.ts";
import {
  VALIDATORS_BY_POWER_PREFIX,
  VALIDATORS_PREFIX,
  validatorByConsAddrKey,
  validatorByPowerKey,
  validatorKey,
} from "./keys.ts";
import {
  addTokensFromDelegation,
  consensusAddress,
  decodeValidator,
  encodeValidator,
  isBonded,
  operatorBytes,
  potentialConsensusPower,
  validatorShares,
  validatorTokens,
} from "./validator.ts";

/** A bonded validator as governance sees it (the tally's ValidatorGovInfo inputs). */
export interface BondedValidatorInfo {
  /** Operator address bytes (the same 20 bytes as the operator's account). */
  operator: Uint8Array;
  bondedTokens: bigint;
  /** Delegator shares, a 10^18-scaled decimal. */
  delegatorShares: bigint;
}

/** The validator operated by `operator`, if any. */
export async function getValidator(
  ctx: Context,
  keeper: StakingKeeper,
  operator: Uint8Array,
): Promise<Validator | undefined> {
  const bytes = await ctx.kvStore(keeper.storeKey).get(validatorKey(operator));
  return bytes === undefined ? undefined : decodeValidator(bytes);
}

/** The validator operated by `operator`; staking 3 `validator does not exist` otherwise. */
export async function mustGetValidator(ctx: Context, keeper: StakingKeeper, operator: Uint8Array): Promise<Validator> {
  const validator = await keeper.getValidator(ctx, operator);
  if (validator === undefined) throw ErrNoValidatorFound.error();
  return validator;
}

/** Stores a validator record (indexes are separate). */
export function setValidator(ctx: Context, keeper: StakingKeeper, validator: Validator): void {
  ctx.kvStore(keeper.storeKey).set(validatorKey(operatorBytes(validator)), encodeValidator(validator));
}

/** Indexes the validator by its consensus address. */
export function setValidatorByConsAddr(ctx: Context, keeper: StakingKeeper, validator: Validator): void {
  ctx.kvStore(keeper.storeKey).set(validatorByConsAddrKey(consensusAddress(validator)), operatorBytes(validator));
}

/** The validator whose consensus address is `consAddress`, if any. */
export async function getValidatorByConsAddr(
  ctx: Context,
  keeper: StakingKeeper,
  consAddress: Uint8Array,
): Promise<Validator | undefined> {
  const operator = await ctx.kvStore(keeper.storeKey).get(validatorByConsAddrKey(consAddress));
  return operator === undefined ? undefined : keeper.getValidator(ctx, operator);
}

/** Adds the validator to the power index (jailed validators are never indexed). */
export function setValidatorByPowerIndex(ctx: Context, keeper: StakingKeeper, validator: Validator): void {
  if (validator.jailed) return;
  const operator = operatorBytes(validator);
  ctx
    .kvStore(keeper.storeKey)
    .set(validatorByPowerKey(potentialConsensusPower(validator, keeper.powerReduction), operator), operator);
}

/** Removes the validator's current power index entry. */
export function deleteValidatorByPowerIndex(ctx: Context, keeper: StakingKeeper, validator: Validator): void {
  ctx
    .kvStore(keeper.storeKey)
    .delete(validatorByPowerKey(potentialConsensusPower(validator, keeper.powerReduction), operatorBytes(validator)));
}

/** Every validator, in operator-address order. */
export async function* iterateValidators(ctx: Context, keeper: StakingKeeper): AsyncIterable<Validator> {
  for await (const [, value] of ctx.kvStore(keeper.storeKey).iterate({ prefix: VALIDATORS_PREFIX })) {
    yield decodeValidator(value);
  }
}

/** Every validator, in operator-address order. */
export async function getAllValidators(ctx: Context, keeper: StakingKeeper): Promise<Validator[]> {
  const out: Validator[] = [];
  for await (const validator of keeper.iterateValidators(ctx)) out.push(validator);
  return out;
}

/** Operator addresses by power, highest first (non-jailed validators, any status). */
export async function* iterateOperatorsByPower(ctx: Context, keeper: StakingKeeper): AsyncIterable<Uint8Array> {
  const iteration = ctx.kvStore(keeper.storeKey).iterate({ prefix: VALIDATORS_BY_POWER_PREFIX, reverse: true });
  for await (const [, operator] of iteration) yield operator;
}

/**
 * Bonded validators by power, highest first, at most max_validators (upstream
 * IterateBondedValidatorsByPower); what the gov tally iterates.
 */
export async function* iterateBondedValidatorsByPower(
  ctx: Context,
  keeper: StakingKeeper,
): AsyncIterable<BondedValidatorInfo> {
  const { maxValidators } = await keeper.getParams(ctx);
  let count = 0;
  for await (const operator of keeper.iterateOperatorsByPower(ctx)) {
    if (count >= maxValidators) break;
    const validator = await keeper.mustGetValidator(ctx, operator);
    if (!isBonded(validator)) continue;
    count++;
    yield { operator, bondedTokens: validatorTokens(validator), delegatorShares: validatorShares(validator) };
  }
}

/** Adds tokens to a validator, keeping the power index in step; returns the issued shares. */
export function addValidatorTokensAndShares(
  ctx: Context,
  keeper: StakingKeeper,
  validator: Validator,
  amount: bigint,
): bigint {
  keeper.deleteValidatorByPowerIndex(ctx, validator);
  const { validator: updated, issued } = addTokensFromDelegation(validator, amount);
  keeper.setValidator(ctx, updated);
  keeper.setValidatorByPowerIndex(ctx, updated);
  return issued;
}
