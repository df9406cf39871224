// What an upgrade declares to spread a long migration over many blocks (Substrate's multi-block migrations, which no
// Cosmos SDK chain has): a step function that does a bounded slice of work from a cursor. The upgrade handler's block
// starts it; the upgrade module's PreBlock then runs one step per block until it says "done" (migration-runner.ts).
import type { Context } from "../../app/context.ts";

/** How far a migration has come: `done` of `total` units (records, keys); the runner turns it into a fraction. */
export interface MigrationProgress {
  done: bigint;
  total: bigint;
}

/**
 * What one step returns: `"done"` when nothing is left, else the cursor the next step starts from (opaque bytes the
 * upgrade store keeps, so a restart resumes there) and, when the migration can estimate it, its progress.
 */
export type MigrationStepResult = "done" | { cursor: Uint8Array; progress?: MigrationProgress };

/**
 * One step: the work of one block. `cursor` is undefined for the first step, else the cursor the previous step
 * returned. `budget` is the migration's {@link SteppedMigration.budget}: the step must touch at most that many
 * records, so a block's extra time stays bounded. Deterministic: it may read and write state through `ctx` only.
 */
export type MigrationStep = (
  ctx: Context,
  cursor: Uint8Array | undefined,
  budget: number,
) => Promise<MigrationStepResult>;

/**
 * A migration an upgrade runs across blocks.
 *
 * @example
 * const rewriteBalances: SteppedMigration = {
 *   module: "bank",
 *   name: "balances-v3",
 *   budget: 5000,
 *   step: (ctx, cursor, budget) => prefixMigrationStep(...), // or any function of this shape
 * };
 * const upgradeV3: Upgrade = { name: "v3", steppedMigrations: [rewriteBalances] };
 */
export interface SteppedMigration {
  /** The module whose transactions are refused while it runs (except {@link safeMessages}). */
  module: string;
  /** Its name, unique within the upgrade (events, the Migrations query, the store key). */
  name: string;
  /** The most records (keys) one step may touch: a positive integer, handed to {@link step}. */
  budget: number;
  /** One block's work. */
  step: MigrationStep;
  /** Message type URLs of {@link module} that stay accepted while it runs (they touch nothing it migrates). */
  safeMessages?: readonly string[];
}

/**
 * Checks an upgrade's stepped migrations: a module and a name each, names distinct, a positive integer budget.
 * Throws an Error naming the upgrade and what was wrong.
 */
export function validateSteppedMigrations(upgrade: string, migrations: readonly SteppedMigration[]): void {
  const seen = new Set<string>();
  for (const migration of migrations) {
    if (migration.module === "" || migration.name === "") {
      throw new Error(
        `upgrade "${upgrade}": a stepped migration needs a module and a name: got "${migration.module}"/"${migration.name}"`,
      );
    }
    const id = `${migration.module}/${migration.name}`;
    if (seen.has(id)) throw new Error(`upgrade "${upgrade}": stepped migration ${id} is listed twice`);
    seen.add(id);
    if (!Number.isSafeInteger(migration.budget) || migration.budget < 1) {
      throw new Error(
        `upgrade "${upgrade}": stepped migration ${id} has budget ${migration.budget}: expected a positive integer (records per block)`,
      );
    }
  }
}

const DEC_ONE = 10n ** 18n;

/**
 * The progress as LegacyDec text with 18 decimals, clamped to [0, 1]; "" when unknown or the total is 0.
 *
 * @example progressText({ done: 41n, total: 100n }) // "0.410000000000000000"
 */
export function progressText(progress: MigrationProgress | undefined): string {
  if (progress === undefined || progress.total <= 0n) return "";
  let scaled = (progress.done * DEC_ONE) / progress.total;
  if (scaled < 0n) scaled = 0n;
  if (scaled > DEC_ONE) scaled = DEC_ONE;
  const fraction = (scaled % DEC_ONE).toString().padStart(18, "0");
  return `${scaled / DEC_ONE}.${fraction}`;
}

/** Whole percent (floor) of a LegacyDec progress text; undefined for "". */
export function percentOf(progress: string): number | undefined {
  if (progress === "") return undefined;
  const [whole, fraction = ""] = progress.split(".");
  return Number(whole) * 100 + Number(fraction.padEnd(18, "0").slice(0, 2));
}
