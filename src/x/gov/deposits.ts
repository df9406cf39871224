// Deposits (upstream x/gov/keeper/deposit.go, v0.50): the deposit store, AddDeposit with its denom and
// min_deposit_ratio checks (the voting period starts when the total reaches the minimum), and the three ways
// deposits leave the gov account: refunded, burned, or charged at cancellation.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  addCoins,
  type Coin,
  coinsFromProto,
  coinsToProto,
  coinsToString,
  isAllGTE,
  isZeroCoins,
} from "../../app/coins.ts";
import type { Context } from "../../app/context.ts";
import { mulDec, parseDecimal, truncateDec } from "../../app/dec.ts";
import { CoinSchema, type Coin as ProtoCoin } from "../../gen/chain/base/v1beta1/coin_pb.js";
import {
  type Deposit,
  DepositSchema,
  type Params,
  ProposalSchema,
  ProposalStatus,
} from "../../gen/chain/gov/v1/gov_pb.js";
import { ErrInactiveProposal, ErrInvalidDepositDenom, ErrMinDepositTooSmall } from "./errors.ts";
import type { GovKeeper } from "./keeper.ts";
import { DEPOSITS_PREFIX, depositKey, depositsOfProposalPrefix, GOV_MODULE_NAME } from "./keys.ts";
import { minDepositOf } from "./params.ts";

/** The deposit of `depositor` on proposal `id`, if any. */
export async function getDeposit(
  ctx: Context,
  keeper: GovKeeper,
  id: bigint,
  depositor: Uint8Array,
): Promise<Deposit | undefined> {
  const bytes = await ctx.kvStore(keeper.storeKey).get(depositKey(id, depositor));
  return bytes === undefined ? undefined : fromBinary(DepositSchema, bytes);
}

/** Stores a deposit. */
export function setDeposit(ctx: Context, keeper: GovKeeper, deposit: Deposit): void {
  const depositor = keeper.accountKeeper.addressFromString(deposit.depositor);
  ctx.kvStore(keeper.storeKey).set(depositKey(deposit.proposalId, depositor), toBinary(DepositSchema, deposit));
}

/** The deposits on proposal `id`, by depositor address. */
export async function getDeposits(
  ctx: Context,
  keeper: GovKeeper,
  id: bigint,
): Promise<{ depositor: Uint8Array; deposit: Deposit }[]> {
  const prefix = depositsOfProposalPrefix(id);
  const out: { depositor: Uint8Array; deposit: Deposit }[] = [];
  for await (const [key, value] of ctx.kvStore(keeper.storeKey).iterate({ prefix })) {
    out.push({ depositor: key.slice(prefix.length), deposit: fromBinary(DepositSchema, value) });
  }
  return out;
}

/** Every deposit of every proposal. */
export async function* iterateAllDeposits(ctx: Context, keeper: GovKeeper): AsyncIterable<Deposit> {
  for await (const [, value] of ctx.kvStore(keeper.storeKey).iterate({ prefix: DEPOSITS_PREFIX })) {
    yield fromBinary(DepositSchema, value);
  }
}

/** Refunds every deposit of proposal `id` to its depositor and deletes it. */
export async function refundAndDeleteDeposits(ctx: Context, keeper: GovKeeper, id: bigint): Promise<void> {
  const store = ctx.kvStore(keeper.storeKey);
  for (const { depositor, deposit } of await keeper.getDeposits(ctx, id)) {
    await keeper.bankKeeper.sendCoinsFromModuleToAccount(
      ctx,
      GOV_MODULE_NAME,
      depositor,
      coinsFromProto(deposit.amount),
    );
    store.delete(depositKey(id, depositor));
  }
}

/** Burns every deposit of proposal `id` (supply decreases) and deletes them. */
export async function deleteAndBurnDeposits(ctx: Context, keeper: GovKeeper, id: bigint): Promise<void> {
  const store = ctx.kvStore(keeper.storeKey);
  let total: Coin[] = [];
  for (const { depositor, deposit } of await keeper.getDeposits(ctx, id)) {
    total = addCoins(total, coinsFromProto(deposit.amount));
    store.delete(depositKey(id, depositor));
  }
  if (total.length > 0) await keeper.bankKeeper.burnCoins(ctx, GOV_MODULE_NAME, total);
}

/**
 * Upstream AddDeposit: the proposal must be in its deposit or voting period, the denoms accepted,
 * the min_deposit_ratio met; moves the coins to the gov account, adds to the total, starts the
 * voting period when the minimum is reached. Returns whether voting started.
 */
export async function addDeposit(
  ctx: Context,
  keeper: GovKeeper,
  id: bigint,
  depositor: Uint8Array,
  amount: Coin[],
): Promise<boolean> {
  let proposal = await keeper.mustGetProposal(ctx, id);
  if (proposal.status !== ProposalStatus.DEPOSIT_PERIOD && proposal.status !== ProposalStatus.VOTING_PERIOD) {
    throw ErrInactiveProposal.wrap(id.toString());
  }
  const params = await keeper.getParams(ctx);
  const minDeposit = minDepositOf(params, proposal.expedited);
  validateDepositDenom(params, amount);

  const ratio = parseDecimal(params.minDepositRatio);
  if (ratio !== 0n) {
    const thresholds: string[] = [];
    let met = false;
    for (const min of minDeposit) {
      const threshold = truncateDec(mulDec(min.amount * 10n ** 18n, ratio));
      thresholds.push(`${threshold}${min.denom}`);
      const deposited = amount.find((coin) => coin.denom === min.denom);
      if (deposited === undefined) continue;
      if (deposited.amount >= threshold) {
        met = true;
        break;
      }
    }
    if (!met) {
      throw ErrMinDepositTooSmall.wrap(
        `received ${coinsToString(amount)} but need at least one of the following: ${thresholds.join(",")}`,
      );
    }
  }

  await keeper.bankKeeper.sendCoinsFromAccountToModule(ctx, depositor, GOV_MODULE_NAME, amount);

  proposal = create(ProposalSchema, {
    ...proposal,
    totalDeposit: coinMessages(addCoins(coinsFromProto(proposal.totalDeposit), amount)),
  });
  keeper.setProposal(ctx, proposal);

  let activated = false;
  if (
    proposal.status === ProposalStatus.DEPOSIT_PERIOD &&
    isAllGTE(coinsFromProto(proposal.totalDeposit), minDeposit)
  ) {
    await keeper.activateVotingPeriod(ctx, proposal);
    activated = true;
  }

  const existing = await keeper.getDeposit(ctx, id, depositor);
  const deposit = create(DepositSchema, {
    proposalId: id,
    depositor: keeper.accountKeeper.addressToString(depositor),
    amount: coinsToProto(existing === undefined ? amount : addCoins(coinsFromProto(existing.amount), amount)),
  });
  ctx.events.emit("proposal_deposit", {
    depositor: keeper.accountKeeper.addressToString(depositor),
    amount: coinsToString(amount),
    proposal_id: id.toString(),
  });
  keeper.setDeposit(ctx, deposit);
  return activated;
}

/**
 * Upstream ChargeDeposit (at cancellation): takes `rate` of every deposit of proposal `id`, refunds
 * the rest to each depositor, deletes the deposits, then burns the charges or sends them to
 * `destination` (a bech32 address; "" burns).
 */
export async function chargeDeposit(
  ctx: Context,
  keeper: GovKeeper,
  id: bigint,
  destination: string,
  rate: bigint,
): Promise<void> {
  const store = ctx.kvStore(keeper.storeKey);
  let charges: Coin[] = [];
  for (const { depositor, deposit } of await keeper.getDeposits(ctx, id)) {
    const remaining: Coin[] = [];
    for (const coin of coinsFromProto(deposit.amount)) {
      const burn = truncateDec(mulDec(coin.amount * 10n ** 18n, rate));
      remaining.push({ denom: coin.denom, amount: coin.amount - burn });
      charges = addCoins(charges, [{ denom: coin.denom, amount: burn }]);
    }
    const refund = remaining.filter((coin) => coin.amount > 0n);
    if (!isZeroCoins(refund)) {
      await keeper.bankKeeper.sendCoinsFromModuleToAccount(ctx, GOV_MODULE_NAME, depositor, refund);
    }
    store.delete(depositKey(id, depositor));
  }
  if (isZeroCoins(charges)) return;
  if (destination === "") {
    await keeper.bankKeeper.burnCoins(ctx, GOV_MODULE_NAME, charges);
  } else {
    await keeper.bankKeeper.sendCoinsFromModuleToAccount(
      ctx,
      GOV_MODULE_NAME,
      keeper.accountKeeper.addressFromString(destination),
      charges,
    );
  }
}

/** Every deposited denom must be one of min_deposit's (gov 23). */
export function validateDepositDenom(params: Params, amount: readonly Coin[]): void {
  const accepted = params.minDeposit.map((coin) => coin.denom);
  for (const coin of amount) {
    if (!accepted.includes(coin.denom)) {
      throw ErrInvalidDepositDenom.wrap(
        `deposited ${coinsToString(amount)}, but gov accepts only the following denom(s): [${accepted.join(" ")}]`,
      );
    }
  }
}

/** Coins as generated Coin messages (for fields of messages built by spreading another message). */
export function coinMessages(coins: readonly Coin[]): ProtoCoin[] {
  return coinsToProto(coins).map((coin) => create(CoinSchema, coin));
}
