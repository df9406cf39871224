// The upgrade guard, run in PreBlock of every block before any other module's hook and before any transaction
// (docs/CONTRACT.md §2.4, steps 1–3). It only reads state; it stops the node by throwing an UpgradeHaltError.
import type { Logger } from "pino";
import type { Context } from "../../app/context.ts";
import { UpgradeHaltError } from "./errors.ts";
import { haltForUpgrade } from "./halt.ts";
import type { UpgradeKeeper } from "./keeper.ts";
import { runMigrationSteps } from "./migration-runner.ts";
import { isDue } from "./plan.ts";
import { applyReadinessGate } from "./readiness-gate.ts";
import type { BondedValidatorsReader } from "./readiness-query.ts";

/**
 * PreBlock of the upgrade module. With H the block height:
 * 1. once per process, unless a plan is due at H and H is not skipped: the last applied upgrade must have a
 *    handler in this binary, else halt `wrong app version …` (exit 21);
 * 2. a plan is due, H is not skipped and there is no handler: write upgrade-info.json, log
 *    `UPGRADE "<name>" NEEDED at height: <h>: <info>` and halt (exit 20);
 * 3. a plan is not yet due but this binary has its handler: halt `BINARY UPDATED BEFORE TRIGGER! …` (exit 21).
 * Before 2, a due plan meets the readiness gate (readiness-gate.ts): when it postpones or abandons the plan, nothing
 * else happens. A due plan with a handler, or a skipped one, is left to EndBlock.
 * Then, unless the node halted: one step of each running stepped migration (migration-runner.ts), joined from the
 * work done ahead after the last commit when it fits this block (migration-lookahead.ts), else run here.
 */
export async function upgradePreBlock(
  keeper: UpgradeKeeper,
  ctx: Context,
  bonded: BondedValidatorsReader = async () => [],
): Promise<void> {
  await upgradeGuard(keeper, ctx, bonded);
  if (!(await keeper.lookahead.take(ctx))) await runMigrationSteps(keeper, ctx);
}

async function upgradeGuard(keeper: UpgradeKeeper, ctx: Context, bonded: BondedValidatorsReader): Promise<void> {
  const height = ctx.blockHeight;
  const plan = await keeper.getUpgradePlan(ctx);
  const due = plan !== undefined && isDue(plan, height);
  const skipped = keeper.isSkipHeight(height);

  const downgrade = await keeper.downgradeGuard(height, plan, {
    lastCompleted: () => keeper.getLastCompletedUpgrade(ctx),
    protocolVersion: () => keeper.getProtocolVersion(ctx),
  });
  if (downgrade !== undefined) throw wrongBinaryHalt(ctx.logger, downgrade, height);

  if (plan === undefined) return;
  if (due) {
    if (skipped) return;
    // The readiness gate (params readiness_*): a network not ready enough moves the plan instead of halting.
    if (await applyReadinessGate(keeper, ctx, plan, bonded)) return;
    if (!keeper.hasHandler(plan.name)) await haltForUpgrade(keeper, ctx, plan);
    return;
  }
  const early = keeper.earlyBinaryGuard(height, plan);
  if (early !== undefined) throw wrongBinaryHalt(ctx.logger, early, height);
}

/** Logs a binary guard's halt line (module `x/upgrade`) and returns the halt (exit 21) to throw. */
export function wrongBinaryHalt(logger: Logger | undefined, message: string, height: bigint): UpgradeHaltError {
  logger?.child({ module: "x/upgrade" }).error(message);
  return new UpgradeHaltError("wrongBinary", message, height);
}
