// Staking genesis: the JSON form (upstream's, including `last_total_power` as an integer string),
// validation, InitGenesis (validators and delegations written directly, pools checked against the
// bank, the first validator set computed) and ExportGenesis.
import { create, type JsonObject, type JsonValue, type Registry } from "@bufbuild/protobuf";
import { type Coin, coinsToString } from "../../app/coins.ts";
import type { Context } from "../../app/context.ts";
import { parseDecimalInput } from "../../app/dec.ts";
import type { ValidatorUpdate } from "../../app/module.ts";
import { fromProtoJson, toProtoJson } from "../../app/proto-json.ts";
import { buildTypeRegistry } from "../../app/type-registry.ts";
import { toHex } from "../../bytes/hex.ts";
import { fromUtf8, utf8 } from "../../bytes/text.ts";
import { UserError } from "../../errors/user-error.ts";
import {
  file_chain_staking_v1beta1_genesis,
  type GenesisState,
  GenesisStateSchema,
} from "../../gen/chain/staking/v1beta1/genesis_pb.js";
import { BondStatus } from "../../gen/chain/staking/v1beta1/staking_pb.js";
import type { StakingKeeper } from "./keeper.ts";
import { BONDED_POOL_NAME, NOT_BONDED_POOL_NAME } from "./keys.ts";
import { defaultStakingParams, validateStakingParams } from "./params.ts";
import {
  consensusAddress,
  valAddressFromBech32,
  valAddressToBech32,
  validatorShares,
  validatorTokens,
  validatorUpdate,
} from "./validator.ts";

/** Thrown for a staking genesis that cannot be used; the message says which entry and why. */
export class StakingGenesisError extends UserError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StakingGenesisError";
  }
}

let registry: Registry | undefined;

/** The registry staking JSON needs (validators carry ed25519 consensus keys as Any). */
export function stakingTypeRegistry(): Registry {
  registry ??= buildTypeRegistry([file_chain_staking_v1beta1_genesis]);
  return registry;
}

/** The default staking genesis (upstream defaults, no validators). */
export function defaultStakingGenesis(): GenesisState {
  return create(GenesisStateSchema, { params: defaultStakingParams(), lastTotalPower: utf8("0") });
}

/** Staking genesis as upstream's JSON (snake_case, defaults emitted, last_total_power as "<int>"). */
export function stakingGenesisToJson(genesis: GenesisState): JsonValue {
  const json = toProtoJson(GenesisStateSchema, genesis, stakingTypeRegistry()) as JsonObject;
  json.last_total_power = lastTotalPowerText(genesis.lastTotalPower);
  return json;
}

/** Parses staking genesis JSON; throws StakingGenesisError naming what is wrong. */
export function stakingGenesisFromJson(json: JsonValue): GenesisState {
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    throw new StakingGenesisError("staking genesis must be a JSON object");
  }
  const { last_total_power: lastTotalPower, lastTotalPower: camel, ...rest } = json as JsonObject;
  const power = lastTotalPower ?? camel ?? "0";
  if (typeof power !== "string" || !/^[0-9]+$/.test(power)) {
    throw new StakingGenesisError(
      `last_total_power must be a non-negative integer string, got ${JSON.stringify(power)}`,
    );
  }
  let genesis: GenesisState;
  try {
    genesis = fromProtoJson(GenesisStateSchema, rest, stakingTypeRegistry());
  } catch (err) {
    throw new StakingGenesisError(`cannot parse staking genesis: ${(err as Error).message}`, { cause: err });
  }
  genesis.lastTotalPower = utf8(power);
  return genesis;
}

/** Upstream ValidateGenesis: params, validators (keys, duplicates, status) and delegations. */
export function validateStakingGenesis(genesis: GenesisState): void {
  if (genesis.params === undefined) throw new StakingGenesisError("params must be set");
  try {
    validateStakingParams(genesis.params);
  } catch (err) {
    throw new StakingGenesisError((err as Error).message, { cause: err });
  }
  const seenConsensus = new Set<string>();
  const seenOperators = new Set<string>();
  for (const validator of genesis.validators) {
    const moniker = validator.description?.moniker ?? "";
    const where = `moniker ${moniker}, address ${validator.operatorAddress}`;
    let consensus: string;
    try {
      valAddressFromBech32(validator.operatorAddress);
      consensus = toHex(consensusAddress(validator));
      validatorTokens(validator);
      validatorShares(validator);
    } catch (err) {
      throw new StakingGenesisError(`invalid validator in genesis state (${where}): ${(err as Error).message}`, {
        cause: err,
      });
    }
    if (seenConsensus.has(consensus) || seenOperators.has(validator.operatorAddress)) {
      throw new StakingGenesisError(`duplicate validator in genesis state: ${where}`);
    }
    seenConsensus.add(consensus);
    seenOperators.add(validator.operatorAddress);
    if (validator.jailed && validator.status === BondStatus.BONDED) {
      throw new StakingGenesisError(`validator is bonded and jailed in genesis state: ${where}`);
    }
    if (validatorShares(validator) === 0n && validator.status !== BondStatus.UNBONDING) {
      throw new StakingGenesisError(
        `bonded/unbonded genesis validator cannot have zero delegator shares, validator: ${validator.operatorAddress}`,
      );
    }
    if (validator.status === BondStatus.UNSPECIFIED) {
      throw new StakingGenesisError(`invalid validator status in genesis state: ${where}`);
    }
  }
  for (const delegation of genesis.delegations) {
    try {
      valAddressFromBech32(delegation.validatorAddress);
      // "" is a left-out field (zero shares, as before); any other text is checked as upstream's LegacyDec JSON is.
      if (delegation.shares !== "") parseDecimalInput(delegation.shares, "delegation shares");
    } catch (err) {
      throw new StakingGenesisError(`invalid delegation in genesis state: ${(err as Error).message}`, { cause: err });
    }
    if (delegation.delegatorAddress === "")
      throw new StakingGenesisError("delegator address is empty in genesis delegation");
  }
  if (genesis.unbondingDelegations.length > 0 || genesis.redelegations.length > 0) {
    throw new StakingGenesisError(
      "unbonding delegations and redelegations are not supported by this chain's minimal staking; the lists must be empty",
    );
  }
}

/**
 * Writes the genesis into state (upstream InitGenesis): params, last total power, validators with
 * their indexes, delegations; checks that the pools' bank balances equal the validators' tokens;
 * returns the validator set (from last_validator_powers when `exported`, else computed).
 */
export async function initStakingGenesis(
  ctx: Context,
  keeper: StakingKeeper,
  genesis: GenesisState,
): Promise<ValidatorUpdate[]> {
  const params = genesis.params ?? defaultStakingParams();
  keeper.setParams(ctx, params);
  keeper.setLastTotalPower(ctx, BigInt(lastTotalPowerText(genesis.lastTotalPower)));

  let bonded = 0n;
  let notBonded = 0n;
  for (const validator of genesis.validators) {
    keeper.setValidator(ctx, validator);
    keeper.setValidatorByConsAddr(ctx, validator);
    keeper.setValidatorByPowerIndex(ctx, validator);
    if (validator.status === BondStatus.BONDED) bonded += validatorTokens(validator);
    else notBonded += validatorTokens(validator);
  }
  for (const delegation of genesis.delegations) keeper.setDelegation(ctx, delegation);

  await checkPool(
    ctx,
    keeper,
    BONDED_POOL_NAME,
    params.bondDenom,
    bonded,
    "bonded pool balance is different from bonded coins",
  );
  await checkPool(
    ctx,
    keeper,
    NOT_BONDED_POOL_NAME,
    params.bondDenom,
    notBonded,
    "not bonded pool balance is different from not bonded coins",
  );

  if (genesis.exported) {
    const updates: ValidatorUpdate[] = [];
    for (const entry of genesis.lastValidatorPowers) {
      const operator = valAddressFromBech32(entry.address);
      keeper.setLastValidatorPower(ctx, operator, entry.power);
      const validator = await keeper.getValidator(ctx, operator);
      if (validator === undefined) throw new StakingGenesisError(`validator ${entry.address} not found`);
      updates.push({ ...validatorUpdate(validator, keeper.powerReduction), power: entry.power });
    }
    return updates;
  }
  return keeper.applyAndReturnValidatorSetUpdates(ctx);
}

/** Reads the state back (upstream ExportGenesis, `exported: true`). */
export async function exportStakingGenesis(ctx: Context, keeper: StakingKeeper): Promise<GenesisState> {
  const delegations = [];
  for await (const delegation of keeper.iterateAllDelegations(ctx)) delegations.push(delegation);
  const lastValidatorPowers = (await keeper.getLastValidatorPowers(ctx)).map(({ operator, power }) => ({
    address: valAddressToBech32(operator),
    power,
  }));
  return create(GenesisStateSchema, {
    params: await keeper.getParams(ctx),
    lastTotalPower: utf8((await keeper.getLastTotalPower(ctx)).toString()),
    lastValidatorPowers,
    validators: await keeper.getAllValidators(ctx),
    delegations,
    unbondingDelegations: [],
    redelegations: [],
    exported: true,
  });
}

async function checkPool(
  ctx: Context,
  keeper: StakingKeeper,
  poolName: string,
  denom: string,
  expected: bigint,
  message: string,
): Promise<void> {
  // Creating the module account here gives it its account number at staking genesis, as upstream.
  await keeper.accountKeeper.getModuleAccount(ctx, poolName);
  const balance = await keeper.bankKeeper.getAllBalances(ctx, keeper.accountKeeper.getModuleAddress(poolName));
  const expectedCoins: Coin[] = expected === 0n ? [] : [{ denom, amount: expected }];
  if (coinsToString(balance) !== coinsToString(expectedCoins)) {
    throw new StakingGenesisError(`${message}: ${coinsToString(balance)} <-> ${coinsToString(expectedCoins)}`);
  }
}

function lastTotalPowerText(bytes: Uint8Array): string {
  if (bytes.length === 0) return "0";
  const text = fromUtf8(bytes);
  if (!/^[0-9]+$/.test(text))
    throw new StakingGenesisError(`last_total_power is not an integer: ${JSON.stringify(text)}`);
  return text;
}
