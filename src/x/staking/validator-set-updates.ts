// Validator set updates (upstream x/staking/keeper/val_state_change.go): the bonded set recomputed at
// EndBlock, validators moved between bonded, unbonding and unbonded with the unbonding queue kept in step,
// and the pools settled with one transfer.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { Context } from "../../app/context.ts";
import { ErrLogic } from "../../app/errors.ts";
import type { ValidatorUpdate } from "../../app/module.ts";
import { addDuration, compareTimestamps } from "../../app/time.ts";
import {
  BondStatus,
  ValAddressesSchema,
  type Validator,
  ValidatorSchema,
} from "../../gen/chain/staking/v1beta1/staking_pb.js";
import { compareBytes, toHex } from "../../store/bytes.ts";
import type { StakingKeeper } from "./keeper.ts";
import {
  BONDED_POOL_NAME,
  NOT_BONDED_POOL_NAME,
  readUint64BigEndian,
  VALIDATOR_QUEUE_PREFIX,
  validatorQueueKey,
} from "./keys.ts";
import {
  consensusPower,
  potentialConsensusPower,
  valAddressFromBech32,
  validatorTokens,
  validatorUpdate,
  validatorUpdateZero,
  withStatus,
} from "./validator.ts";

/**
 * Recomputes the bonded set (upstream ApplyAndReturnValidatorSetUpdates): the top max_validators
 * by power with power > 0 are bonded, everyone else leaves the set; the pools are settled with one
 * transfer; returns only the changed powers (0 for validators that left).
 */
export async function applyAndReturnValidatorSetUpdates(
  ctx: Context,
  keeper: StakingKeeper,
): Promise<ValidatorUpdate[]> {
  const params = await keeper.getParams(ctx);
  const updates: ValidatorUpdate[] = [];
  const last = new Map<string, { operator: Uint8Array; power: bigint }>();
  for (const entry of await keeper.getLastValidatorPowers(ctx)) last.set(toHex(entry.operator), entry);

  let totalPower = 0n;
  let notBondedToBonded = 0n;
  let bondedToNotBonded = 0n;
  let count = 0;
  for await (const operator of keeper.iterateOperatorsByPower(ctx)) {
    if (count >= params.maxValidators) break;
    let validator = await keeper.mustGetValidator(ctx, operator);
    if (validator.jailed) throw ErrLogic.wrap("should never retrieve a jailed validator from the power store");
    // Power is sorted: from the first zero-power validator on, nobody can be bonded.
    if (potentialConsensusPower(validator, keeper.powerReduction) === 0n) break;

    if (validator.status === BondStatus.UNBONDED || validator.status === BondStatus.UNBONDING) {
      validator = await bondValidator(ctx, keeper, validator);
      notBondedToBonded += validatorTokens(validator);
    } else if (validator.status !== BondStatus.BONDED) {
      throw ErrLogic.wrap(`unexpected validator status ${validator.status}`);
    }

    const key = toHex(operator);
    const newPower = consensusPower(validator, keeper.powerReduction);
    const old = last.get(key);
    if (old === undefined || old.power !== newPower) {
      updates.push(validatorUpdate(validator, keeper.powerReduction));
      keeper.setLastValidatorPower(ctx, operator, newPower);
    }
    last.delete(key);
    count++;
    totalPower += newPower;
  }

  // Whoever is left in `last` fell out of the set; upstream handles them in address order.
  const leaving = [...last.values()].sort((a, b) => compareBytes(a.operator, b.operator));
  for (const { operator } of leaving) {
    const validator = await beginUnbondingValidator(ctx, keeper, await keeper.mustGetValidator(ctx, operator));
    bondedToNotBonded += validatorTokens(validator);
    keeper.deleteLastValidatorPower(ctx, operator);
    updates.push(validatorUpdateZero(validator));
  }

  const denom = params.bondDenom;
  if (notBondedToBonded > bondedToNotBonded) {
    await movePoolTokens(
      ctx,
      keeper,
      NOT_BONDED_POOL_NAME,
      BONDED_POOL_NAME,
      denom,
      notBondedToBonded - bondedToNotBonded,
    );
  } else if (notBondedToBonded < bondedToNotBonded) {
    await movePoolTokens(
      ctx,
      keeper,
      BONDED_POOL_NAME,
      NOT_BONDED_POOL_NAME,
      denom,
      bondedToNotBonded - notBondedToBonded,
    );
  }
  if (updates.length > 0) keeper.setLastTotalPower(ctx, totalPower);
  return updates;
}

/** Unbonding validators whose unbonding time and height have passed become unbonded. */
export async function unbondAllMatureValidators(ctx: Context, keeper: StakingKeeper): Promise<void> {
  const store = ctx.kvStore(keeper.storeKey);
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
      const validator = await keeper.mustGetValidator(ctx, valAddressFromBech32(address));
      if (validator.status !== BondStatus.UNBONDING) {
        throw ErrLogic.wrap(`unexpected validator in unbonding queue; status was not unbonding: ${address}`);
      }
      keeper.setValidator(ctx, withStatus(validator, BondStatus.UNBONDED));
    }
    store.delete(key);
  }
}

// An unbonded or unbonding validator enters the set: out of the unbonding queue, status BONDED.
async function bondValidator(ctx: Context, keeper: StakingKeeper, validator: Validator): Promise<Validator> {
  await deleteValidatorQueueEntry(ctx, keeper, validator);
  const bonded = withStatus(validator, BondStatus.BONDED);
  keeper.setValidator(ctx, bonded);
  return bonded;
}

// A bonded validator leaves the set: status UNBONDING until unbonding_time from now, queued for maturity.
async function beginUnbondingValidator(ctx: Context, keeper: StakingKeeper, validator: Validator): Promise<Validator> {
  if (validator.status !== BondStatus.BONDED) {
    throw ErrLogic.wrap(`should not already be unbonded or unbonding, validator: ${validator.operatorAddress}`);
  }
  const params = await keeper.getParams(ctx);
  const unbonding = create(ValidatorSchema, {
    ...validator,
    status: BondStatus.UNBONDING,
    unbondingTime: addDuration(ctx.blockTime, params.unbondingTime),
    unbondingHeight: ctx.blockHeight,
  });
  keeper.setValidator(ctx, unbonding);
  await insertValidatorQueueEntry(ctx, keeper, unbonding);
  return unbonding;
}

// Adds the validator to the queue entry of its (unbonding time, height).
async function insertValidatorQueueEntry(ctx: Context, keeper: StakingKeeper, validator: Validator): Promise<void> {
  const store = ctx.kvStore(keeper.storeKey);
  const key = validatorQueueKey(validator.unbondingTime ?? ctx.blockTime, validator.unbondingHeight);
  const existing = await store.get(key);
  const addresses = existing === undefined ? [] : fromBinary(ValAddressesSchema, existing).addresses;
  addresses.push(validator.operatorAddress);
  store.set(key, toBinary(ValAddressesSchema, create(ValAddressesSchema, { addresses })));
}

// Removes an unbonding validator from its queue entry, deleting the entry when it empties.
async function deleteValidatorQueueEntry(ctx: Context, keeper: StakingKeeper, validator: Validator): Promise<void> {
  if (validator.status !== BondStatus.UNBONDING || validator.unbondingTime === undefined) return;
  const store = ctx.kvStore(keeper.storeKey);
  const key = validatorQueueKey(validator.unbondingTime, validator.unbondingHeight);
  const existing = await store.get(key);
  if (existing === undefined) return;
  const addresses = fromBinary(ValAddressesSchema, existing).addresses.filter(
    (address) => address !== validator.operatorAddress,
  );
  if (addresses.length === 0) store.delete(key);
  else store.set(key, toBinary(ValAddressesSchema, create(ValAddressesSchema, { addresses })));
}

// One transfer between the pools for the net of this update's bondings and unbondings.
async function movePoolTokens(
  ctx: Context,
  keeper: StakingKeeper,
  from: string,
  to: string,
  denom: string,
  amount: bigint,
): Promise<void> {
  await keeper.bankKeeper.sendCoinsFromModuleToModule(ctx, from, to, [{ denom, amount }]);
}
