// The upgrade-needed halt shared by PreBlock (docs/CONTRACT.md §2.4 step 2) and EndBlock (step 7): write upgrade-info.json,
// log the NEEDED line, and throw the halt error that makes the App commit nothing of the block.
import type { Context } from "../../app/context.ts";
import type { Plan } from "../../gen/chain/upgrade/v1beta1/upgrade_pb.js";
import { UpgradeHaltError } from "./errors.ts";
import type { UpgradeKeeper } from "./keeper.ts";

/** The log line and halt message: `UPGRADE "<name>" NEEDED at height: <plan height>: <info>`. */
export function upgradeNeededMessage(plan: Pick<Plan, "name" | "height" | "info">): string {
  return `UPGRADE "${plan.name}" NEEDED at height: ${plan.height}: ${plan.info}`;
}

/**
 * Halts for `plan` at the current block height H: writes upgrade-info.json with height H (the height the new
 * binary starts from, which differs from the plan's for an overdue plan), logs the NEEDED line at error level and
 * throws an {@link UpgradeHaltError} of kind `needed` (exit status 20).
 */
export async function haltForUpgrade(keeper: UpgradeKeeper, ctx: Context, plan: Plan): Promise<never> {
  const message = upgradeNeededMessage(plan);
  const logger = ctx.logger.child({ module: "x/upgrade" });
  try {
    await keeper.dumpUpgradeInfoToDisk(ctx.blockHeight, plan);
  } catch (err) {
    logger.error({ err }, `${message} (and ${(err as Error).message})`);
    throw new UpgradeHaltError("needed", (err as Error).message, ctx.blockHeight, { cause: err });
  }
  logger.error(message);
  throw new UpgradeHaltError("needed", message, ctx.blockHeight);
}
