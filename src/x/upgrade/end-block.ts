// EndBlock of the upgrade module (docs/CONTRACT.md §2.4, steps 4–7): after the block's transactions, skip, apply or halt
// for a due plan. The migrated state is what the block commits.
import type { Context } from "../../app/context.ts";
import { UpgradeHaltError } from "./errors.ts";
import { haltForUpgrade } from "./halt.ts";
import type { UpgradeKeeper } from "./keeper.ts";
import { isDue } from "./plan.ts";

/**
 * EndBlock of the upgrade module. With H the block height and a plan due at H:
 * - H is a skip height: log `UPGRADE "<name>" SKIPPED at <plan height>: <info>` and clear the plan (no done
 *   record, the name stays schedulable);
 * - this binary has the handler: log `applying upgrade "<name>" at height: <plan height>` and apply it; a failing
 *   handler or migration halts (exit 22) with the cause in the message;
 * - no handler (a plan scheduled during H for H): halt exactly as PreBlock does (exit 20).
 */
export async function upgradeEndBlock(keeper: UpgradeKeeper, ctx: Context): Promise<void> {
  const height = ctx.blockHeight;
  const plan = await keeper.getUpgradePlan(ctx);
  if (plan === undefined || !isDue(plan, height)) return;
  const logger = ctx.logger.child({ module: "x/upgrade" });

  if (keeper.isSkipHeight(height)) {
    logger.info(`UPGRADE "${plan.name}" SKIPPED at ${plan.height}: ${plan.info}`);
    await keeper.clearUpgradePlan(ctx);
    return;
  }
  if (!keeper.hasHandler(plan.name)) await haltForUpgrade(keeper, ctx, plan);

  logger.info(`applying upgrade "${plan.name}" at height: ${plan.height}`);
  // A branch, so a failing handler leaves nothing behind even in an app that would not discard the block.
  const { ctx: upgradeCtx, write } = ctx.branch();
  try {
    await keeper.applyUpgrade(upgradeCtx, plan);
  } catch (err) {
    const message = `failed to apply upgrade "${plan.name}" at height ${height}: ${(err as Error).message}`;
    logger.error({ err }, message);
    throw new UpgradeHaltError("upgradeFailed", message, height, { cause: err });
  }
  write();
}
