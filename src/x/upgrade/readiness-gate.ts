// The readiness gate (opt-in, params readiness_*): at the height a plan comes due, a network whose ready fraction
// (signals recorded up to H − 1, readiness-query.ts) is below readiness_threshold does not halt: the plan moves
// readiness_postpone_blocks later, or, after readiness_max_postponements moves, is cleared for governance to decide
// again. A ready network goes on exactly as without the gate.
import type { Context } from "../../app/context.ts";
import type { Plan } from "../../gen/chain/upgrade/v1beta1/upgrade_pb.js";
import type { UpgradeKeeper } from "./keeper.ts";
import { getPostponements, getUpgradeParams } from "./params.ts";
import { type BondedValidatorsReader, fractionText, readinessOf } from "./readiness-query.ts";

/** The highest plan height: Plan.height is an int64. */
const MAX_PLAN_HEIGHT = (1n << 63n) - 1n;

/**
 * Applies the gate to `plan`, due at the context's height. Returns true when the plan was postponed or abandoned
 * (the caller must then neither halt nor apply it in this block), false when the gate is off or the network ready.
 */
export async function applyReadinessGate(
  keeper: UpgradeKeeper,
  ctx: Context,
  plan: Plan,
  bonded: BondedValidatorsReader,
): Promise<boolean> {
  const params = await getUpgradeParams(ctx, keeper.storeKey);
  if (params.readinessThreshold === 0n) return false;
  const readiness = await readinessOf(ctx, keeper, bonded);
  if (readiness.readyFraction >= params.readinessThreshold) return false;

  const height = ctx.blockHeight;
  const ready = fractionText(readiness.readyFraction);
  const needed = fractionText(params.readinessThreshold);
  const logger = ctx.logger.child({ module: "x/upgrade" });
  const count = await getPostponements(ctx, keeper.storeKey);
  if (params.readinessMaxPostponements !== 0 && count >= BigInt(params.readinessMaxPostponements)) {
    await keeper.clearUpgradePlan(ctx);
    ctx.events.emit("upgrade_abandoned", { name: plan.name, height: height.toString(), ready_fraction: ready });
    logger.info(
      `upgrade "${plan.name}" abandoned at height ${height} after ${count} postponements: ${ready} of voting power ready, ${needed} needed`,
    );
    return true;
  }
  // readiness_postpone_blocks is a uint64, so a governance-set value can carry the plan past the largest int64
  // height; the Plan could then not be stored and every node would fail this block forever. Past it is "never":
  // the plan stays at the largest height, where it waits for governance like any far-off plan.
  const postponed = height + params.readinessPostponeBlocks;
  const newHeight = postponed > MAX_PLAN_HEIGHT ? MAX_PLAN_HEIGHT : postponed;
  await keeper.postponeUpgradePlan(ctx, plan, newHeight, count + 1n);
  ctx.events.emit("upgrade_postponed", {
    name: plan.name,
    height: height.toString(),
    new_height: newHeight.toString(),
    ready_fraction: ready,
  });
  logger.info(
    `upgrade "${plan.name}" postponed to height ${newHeight}: ${ready} of voting power ready, ${needed} needed`,
  );
  return true;
}
