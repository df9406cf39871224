// The bonded and not-bonded pools (upstream x/staking/keeper/pool.go): module accounts whose bond-denom
// balances are the staked tokens.
import type { Context } from "../../app/context.ts";
import type { StakingKeeper } from "./keeper.ts";
import { BONDED_POOL_NAME, NOT_BONDED_POOL_NAME } from "./keys.ts";

/** The staking pools (bond denom amounts). */
export interface PoolAmounts {
  notBondedTokens: bigint;
  bondedTokens: bigint;
}

/** Tokens in the bonded pool (upstream TotalBondedTokens). */
export async function totalBondedTokens(ctx: Context, keeper: StakingKeeper): Promise<bigint> {
  const denom = await keeper.bondDenom(ctx);
  return (await keeper.bankKeeper.getBalance(ctx, keeper.accountKeeper.getModuleAddress(BONDED_POOL_NAME), denom))
    .amount;
}

/** Both pools' bond-denom balances. */
export async function pool(ctx: Context, keeper: StakingKeeper): Promise<PoolAmounts> {
  const denom = await keeper.bondDenom(ctx);
  const notBonded = await keeper.bankKeeper.getBalance(
    ctx,
    keeper.accountKeeper.getModuleAddress(NOT_BONDED_POOL_NAME),
    denom,
  );
  return { notBondedTokens: notBonded.amount, bondedTokens: await keeper.totalBondedTokens(ctx) };
}
