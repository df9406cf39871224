// The staking Msg service: MsgCreateValidator and MsgDelegate as upstream v0.50's msg server checks
// and applies them, MsgUpdateParams for governance, and a clear "not supported" for everything
// that would take tokens out (undelegate, redelegate, cancel unbonding) or edit a validator.
import { create } from "@bufbuild/protobuf";
import { isValidDenom } from "../../app/coins.ts";
import type { Context } from "../../app/context.ts";
import { DecimalError, formatDecimal, parseDecimal } from "../../app/dec.ts";
import { ErrInvalidAddress, ErrInvalidRequest, ErrNotSupported } from "../../app/errors.ts";
import type { ServiceHandlers } from "../../app/module.ts";
import {
  CommissionRatesSchema,
  CommissionSchema,
  type Description,
} from "../../gen/chain/staking/v1beta1/staking_pb.js";
import type { Msg, MsgCreateValidator, MsgDelegate, MsgUpdateParams } from "../../gen/chain/staking/v1beta1/tx_pb.js";
import {
  ErrCommissionChangeRateGTMaxRate,
  ErrCommissionChangeRateNegative,
  ErrCommissionGTMaxRate,
  ErrCommissionHuge,
  ErrCommissionLTMinRate,
  ErrCommissionNegative,
  ErrEmptyValidatorPubKey,
  ErrGovInvalidSigner,
  ErrSelfDelegationBelowMinimum,
  ErrValidatorOwnerExists,
  ErrValidatorPubKeyExists,
} from "./errors.ts";
import type { StakingKeeper } from "./keeper.ts";
import { validateStakingParams } from "./params.ts";
import {
  consAddressOfKey,
  decodeConsensusPubKey,
  newValidator,
  ONE_DEC,
  parseCommissionRates,
  valAddressFromBech32,
} from "./validator.ts";

/** Upstream's description length limits (bytes). */
export const DESCRIPTION_LIMITS = {
  moniker: 70,
  identity: 3000,
  website: 140,
  securityContact: 140,
  details: 280,
} as const;

const NOT_SUPPORTED =
  "this chain's minimal staking keeps delegated tokens bonded: undelegation, redelegation and unbonding are not supported";

/** The Msg service handlers of staking. */
export function stakingMsgServer(keeper: StakingKeeper): ServiceHandlers<typeof Msg> {
  return {
    createValidator: async (msg, ctx) => {
      await createValidator(keeper, msg, ctx);
      return {};
    },
    editValidator: async () => {
      throw ErrNotSupported.wrap("MsgEditValidator: validators cannot be edited on this chain's minimal staking");
    },
    delegate: async (msg, ctx) => {
      await delegate(keeper, msg, ctx);
      return {};
    },
    beginRedelegate: async () => {
      throw ErrNotSupported.wrap(`MsgBeginRedelegate: ${NOT_SUPPORTED}`);
    },
    undelegate: async () => {
      throw ErrNotSupported.wrap(`MsgUndelegate: ${NOT_SUPPORTED}`);
    },
    cancelUnbondingDelegation: async () => {
      throw ErrNotSupported.wrap(`MsgCancelUnbondingDelegation: ${NOT_SUPPORTED}`);
    },
    updateParams: async (msg, ctx) => {
      await updateParams(keeper, msg, ctx);
      return {};
    },
  };
}

/** Upstream CreateValidator, checks in upstream's order. */
async function createValidator(keeper: StakingKeeper, msg: MsgCreateValidator, ctx: Context): Promise<void> {
  const operator = valAddressFromBech32(msg.validatorAddress);
  const { amount, commission, minSelfDelegation } = validateCreateValidator(msg);

  const params = await keeper.getParams(ctx);
  const minRate = parseDecimal(params.minCommissionRate, "minimum commission rate");
  if (commission.rate < minRate) {
    throw ErrCommissionLTMinRate.wrap(
      `cannot set validator commission to less than minimum rate of ${formatDecimal(minRate)}`,
    );
  }
  if ((await keeper.getValidator(ctx, operator)) !== undefined) throw ErrValidatorOwnerExists.error();

  const consensusKey = decodeConsensusPubKey(msg.pubkey);
  if ((await keeper.getValidatorByConsAddr(ctx, consAddressOfKey(consensusKey))) !== undefined) {
    throw ErrValidatorPubKeyExists.error();
  }
  const value = msg.value!;
  if (value.denom !== params.bondDenom) {
    throw ErrInvalidRequest.wrap(`invalid coin denomination: got ${value.denom}, expected ${params.bondDenom}`);
  }
  ensureDescriptionLength(msg.description);

  const validator = newValidator({
    operatorAddress: msg.validatorAddress,
    consensusPubkey: msg.pubkey!,
    description: msg.description,
    commission: create(CommissionSchema, {
      commissionRates: create(CommissionRatesSchema, {
        rate: formatDecimal(commission.rate),
        maxRate: formatDecimal(commission.maxRate),
        maxChangeRate: formatDecimal(commission.maxChangeRate),
      }),
      updateTime: ctx.blockTime,
    }),
    minSelfDelegation,
  });
  keeper.setValidator(ctx, validator);
  keeper.setValidatorByConsAddr(ctx, validator);
  keeper.setValidatorByPowerIndex(ctx, validator);

  // The self-delegation comes from the operator's account (the same 20 bytes).
  await keeper.delegate(ctx, operator, amount, validator);

  ctx.events.emit("create_validator", {
    validator: msg.validatorAddress,
    amount: `${value.amount}${value.denom}`,
  });
}

/** The stateless checks of MsgCreateValidator (upstream msg.Validate), returning the parsed numbers. */
export function validateCreateValidator(msg: MsgCreateValidator): {
  amount: bigint;
  commission: { rate: bigint; maxRate: bigint; maxChangeRate: bigint };
  minSelfDelegation: bigint;
} {
  valAddressFromBech32(msg.validatorAddress);
  if (msg.pubkey === undefined) throw ErrEmptyValidatorPubKey.error();
  const amount = parseCoinAmount(msg.value);
  if (amount === undefined || amount <= 0n) throw ErrInvalidRequest.wrap("invalid delegation amount");
  if (isEmptyDescription(msg.description)) throw ErrInvalidRequest.wrap("empty description");
  const rates = msg.commission;
  if (rates === undefined || (rates.rate === "" && rates.maxRate === "" && rates.maxChangeRate === "")) {
    throw ErrInvalidRequest.wrap("empty commission");
  }
  let commission: { rate: bigint; maxRate: bigint; maxChangeRate: bigint };
  try {
    commission = parseCommissionRates(rates);
  } catch (err) {
    if (err instanceof DecimalError) throw ErrInvalidRequest.wrap(err.message, { cause: err });
    throw err;
  }
  validateCommission(commission);
  const minSelfDelegation = parseInteger(msg.minSelfDelegation);
  if (minSelfDelegation === undefined || minSelfDelegation <= 0n) {
    throw ErrInvalidRequest.wrap("minimum self delegation must be a positive integer");
  }
  if (amount < minSelfDelegation) throw ErrSelfDelegationBelowMinimum.error();
  return { amount, commission, minSelfDelegation };
}

/** Upstream CommissionRates.Validate. */
export function validateCommission(rates: { rate: bigint; maxRate: bigint; maxChangeRate: bigint }): void {
  if (rates.maxRate < 0n) throw ErrCommissionNegative.error();
  if (rates.maxRate > ONE_DEC) throw ErrCommissionHuge.error();
  if (rates.rate < 0n) throw ErrCommissionNegative.error();
  if (rates.rate > rates.maxRate) throw ErrCommissionGTMaxRate.error();
  if (rates.maxChangeRate < 0n) throw ErrCommissionChangeRateNegative.error();
  if (rates.maxChangeRate > rates.maxRate) throw ErrCommissionChangeRateGTMaxRate.error();
}

/** Upstream Description.EnsureLength (Go byte lengths). */
export function ensureDescriptionLength(description: Description | undefined): void {
  if (description === undefined) return;
  const checks: [string, string, number][] = [
    ["moniker", description.moniker, DESCRIPTION_LIMITS.moniker],
    ["identity", description.identity, DESCRIPTION_LIMITS.identity],
    ["website", description.website, DESCRIPTION_LIMITS.website],
    ["security contact", description.securityContact, DESCRIPTION_LIMITS.securityContact],
    ["details", description.details, DESCRIPTION_LIMITS.details],
  ];
  for (const [name, value, max] of checks) {
    const length = Buffer.byteLength(value, "utf8");
    if (length > max) throw ErrInvalidRequest.wrap(`invalid ${name} length; got: ${length}, max: ${max}`);
  }
}

/** Upstream Delegate msg server. */
async function delegate(keeper: StakingKeeper, msg: MsgDelegate, ctx: Context): Promise<void> {
  const operator = valAddressFromBech32(msg.validatorAddress);
  let delegator: Uint8Array;
  try {
    delegator = keeper.accountKeeper.addressFromString(msg.delegatorAddress);
  } catch (err) {
    throw ErrInvalidAddress.wrap(`invalid delegator address: ${innerMessage(err)}`, { cause: err });
  }
  const amount = parseCoinAmount(msg.amount);
  if (amount === undefined || amount <= 0n) throw ErrInvalidRequest.wrap("invalid delegation amount");
  const validator = await keeper.mustGetValidator(ctx, operator);
  const bondDenom = await keeper.bondDenom(ctx);
  const coin = msg.amount!;
  if (coin.denom !== bondDenom) {
    throw ErrInvalidRequest.wrap(`invalid coin denomination: got ${coin.denom}, expected ${bondDenom}`);
  }
  const newShares = await keeper.delegate(ctx, delegator, amount, validator);
  ctx.events.emit("delegate", {
    validator: msg.validatorAddress,
    delegator: msg.delegatorAddress,
    amount: `${coin.amount}${coin.denom}`,
    new_shares: formatDecimal(newShares),
  });
}

/** Governance's MsgUpdateParams: the authority must match; the params must validate. */
async function updateParams(keeper: StakingKeeper, msg: MsgUpdateParams, ctx: Context): Promise<void> {
  if (msg.authority !== keeper.authority) {
    throw ErrGovInvalidSigner.wrap(`invalid authority; expected ${keeper.authority}, got ${msg.authority}`);
  }
  if (msg.params === undefined) throw ErrInvalidRequest.wrap("params cannot be empty");
  validateStakingParams(msg.params);
  keeper.setParams(ctx, msg.params);
}

function isEmptyDescription(description: Description | undefined): boolean {
  if (description === undefined) return true;
  return (
    description.moniker === "" &&
    description.identity === "" &&
    description.website === "" &&
    description.securityContact === "" &&
    description.details === ""
  );
}

// A Coin is "valid" upstream when its denom is valid and its amount a non-negative integer.
function parseCoinAmount(coin: { denom: string; amount: string } | undefined): bigint | undefined {
  if (coin === undefined || !isValidDenom(coin.denom)) return undefined;
  return parseInteger(coin.amount);
}

function parseInteger(text: string): bigint | undefined {
  return /^-?[0-9]+$/.test(text) ? BigInt(text) : undefined;
}

function innerMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.endsWith(": invalid address") ? message.slice(0, -": invalid address".length) : message;
}
