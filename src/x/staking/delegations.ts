// Delegations (upstream x/staking/keeper/delegation.go): the delegation records and their by-validator
// index, the iterations over them, and Delegate from an account. Tokens only go in: this chain has no
// undelegation or redelegation (docs/CONTRACT.md §3).
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { Context } from "../../app/context.ts";
import { formatDecimal, parseDecimal } from "../../app/dec.ts";
import { type Delegation, DelegationSchema, type Validator } from "../../gen/chain/staking/v1beta1/staking_pb.js";
import { ErrDelegatorShareExRateInvalid } from "./errors.ts";
import type { StakingKeeper } from "./keeper.ts";
import {
  BONDED_POOL_NAME,
  DELEGATION_PREFIX,
  delegationByValidatorKey,
  delegationKey,
  delegationsOfDelegatorPrefix,
  delegationsOfValidatorPrefix,
  NOT_BONDED_POOL_NAME,
  readLengthPrefixed,
} from "./keys.ts";
import { hasInvalidExchangeRate, isBonded, operatorBytes, valAddressFromBech32 } from "./validator.ts";

/** One delegation as governance sees it. */
export interface DelegationInfo {
  /** Operator address bytes of the validator. */
  validator: Uint8Array;
  /** Shares, a 10^18-scaled decimal. */
  shares: bigint;
}

/** The delegation of `delegator` to `operator`, if any. */
export async function getDelegation(
  ctx: Context,
  keeper: StakingKeeper,
  delegator: Uint8Array,
  operator: Uint8Array,
): Promise<Delegation | undefined> {
  const bytes = await ctx.kvStore(keeper.storeKey).get(delegationKey(delegator, operator));
  return bytes === undefined ? undefined : fromBinary(DelegationSchema, bytes);
}

/** Stores a delegation and its by-validator index entry. */
export function setDelegation(ctx: Context, keeper: StakingKeeper, delegation: Delegation): void {
  const delegator = keeper.accountKeeper.addressFromString(delegation.delegatorAddress);
  const operator = valAddressFromBech32(delegation.validatorAddress);
  const store = ctx.kvStore(keeper.storeKey);
  store.set(delegationKey(delegator, operator), toBinary(DelegationSchema, delegation));
  store.set(delegationByValidatorKey(operator, delegator), new Uint8Array());
}

/** Every delegation of `delegator`, in validator order. */
export async function* iterateDelegatorDelegations(
  ctx: Context,
  keeper: StakingKeeper,
  delegator: Uint8Array,
): AsyncIterable<Delegation> {
  const prefix = delegationsOfDelegatorPrefix(delegator);
  for await (const [, value] of ctx.kvStore(keeper.storeKey).iterate({ prefix })) {
    yield fromBinary(DelegationSchema, value);
  }
}

/** Every delegation to `operator`, in delegator order. */
export async function* iterateValidatorDelegations(
  ctx: Context,
  keeper: StakingKeeper,
  operator: Uint8Array,
): AsyncIterable<Delegation> {
  const prefix = delegationsOfValidatorPrefix(operator);
  for await (const [key] of ctx.kvStore(keeper.storeKey).iterate({ prefix })) {
    const { address: delegator } = readLengthPrefixed(key, prefix.length);
    const delegation = await keeper.getDelegation(ctx, delegator, operator);
    if (delegation !== undefined) yield delegation;
  }
}

/** Every delegation, in (delegator, validator) order. */
export async function* iterateAllDelegations(ctx: Context, keeper: StakingKeeper): AsyncIterable<Delegation> {
  for await (const [, value] of ctx.kvStore(keeper.storeKey).iterate({ prefix: DELEGATION_PREFIX })) {
    yield fromBinary(DelegationSchema, value);
  }
}

/** The delegations of `delegator` as governance sees them (upstream IterateDelegations). */
export async function* iterateDelegations(
  ctx: Context,
  keeper: StakingKeeper,
  delegator: Uint8Array,
): AsyncIterable<DelegationInfo> {
  for await (const delegation of keeper.iterateDelegatorDelegations(ctx, delegator)) {
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
export async function delegate(
  ctx: Context,
  keeper: StakingKeeper,
  delegator: Uint8Array,
  amount: bigint,
  validator: Validator,
): Promise<bigint> {
  if (hasInvalidExchangeRate(validator)) throw ErrDelegatorShareExRateInvalid.error();
  const operator = operatorBytes(validator);
  const existing = await keeper.getDelegation(ctx, delegator, operator);
  const delegation =
    existing ??
    create(DelegationSchema, {
      delegatorAddress: keeper.accountKeeper.addressToString(delegator),
      validatorAddress: validator.operatorAddress,
      shares: formatDecimal(0n),
    });

  const pool = isBonded(validator) ? BONDED_POOL_NAME : NOT_BONDED_POOL_NAME;
  const coins = [{ denom: await keeper.bondDenom(ctx), amount }];
  if (keeper.bankKeeper.delegateCoinsFromAccountToModule !== undefined) {
    await keeper.bankKeeper.delegateCoinsFromAccountToModule(ctx, delegator, pool, coins);
  } else {
    await keeper.bankKeeper.sendCoinsFromAccountToModule(ctx, delegator, pool, coins);
  }

  const issued = keeper.addValidatorTokensAndShares(ctx, validator, amount);
  const shares = parseDecimal(delegation.shares, "delegation shares") + issued;
  keeper.setDelegation(ctx, create(DelegationSchema, { ...delegation, shares: formatDecimal(shares) }));
  return issued;
}
