// While a module's stepped migration runs, its transactions are refused (its state is half old, half new); queries
// keep working. The guard wraps the chain's ante handler so a refused tx is turned away before any fee is taken, in
// CheckTx as in the block; the fee itself is not a message of the module (the ante handler moves it through the bank
// keeper), so every other tx still pays it while bank migrates. Messages that run without a tx — a passed proposal's,
// run by gov's EndBlock — go through guardMigratingRoutes instead. Both read the upgrade store without gas, so a
// chain with nothing migrating keeps the gas (and so the results hash) of every tx exactly as before.
import type { AnteHandler } from "../../app/ante.ts";
import type { Context } from "../../app/context.ts";
import { ChainError } from "../../app/errors.ts";
import type { MsgRoute } from "../../app/router.ts";
import type { DecodedTx } from "../../app/tx-decode.ts";
import { ErrModuleMigrating } from "./errors.ts";
import { noMigrationRunningNow, readRunningMigrations, type StoredMigration } from "./migration-store.ts";
import { percentOf, type SteppedMigration } from "./stepped-migration.ts";

/** What the guard needs: the upgrade store's key, which module routes a message, and the declared migrations. */
export interface MigrationGuardOptions {
  storeKey: string;
  /** The module whose Msg service handles `typeUrl` (ModuleManager.moduleOfMsg), undefined when none. */
  moduleOfMsg(typeUrl: string): string | undefined;
  /** The stepped migrations an upgrade declares (for their safe messages). */
  steppedMigrationsOf(upgrade: string): readonly SteppedMigration[];
}

/**
 * `module bank is migrating: 41% done, started at height 1200` (without the percentage when the migration cannot
 * estimate it: `module bank is migrating, started at height 1200`).
 */
export function moduleMigratingMessage(module: string, progress: string, startedHeight: bigint): string {
  const percent = percentOf(progress);
  return percent === undefined
    ? `module ${module} is migrating, started at height ${startedHeight}`
    : `module ${module} is migrating: ${percent}% done, started at height ${startedHeight}`;
}

/** `ante` preceded by the refusal of txs carrying a message of a migrating module (upgrade 7). */
export function guardMigratingModules(ante: AnteHandler, options: MigrationGuardOptions): AnteHandler {
  const refuseThenRun = async (ctx: Context, tx: DecodedTx): Promise<void> => {
    await refuseMigratingModules(ctx, tx, options);
    await ante(ctx, tx);
  };
  // The guard runs twice for every tx (CheckTx, the block). When a branch says at once that nothing migrates, the
  // tx goes straight to the ante handler: the same read, without the async frames, promises and message list of the
  // full check, which were ~8 KB of garbage a tx. Anything else (a migration, a store that must wait) takes the
  // full check.
  const guarded: AnteHandler = (ctx, tx) => {
    if (nothingMigratingNow(ctx, options.storeKey)) return ante(ctx, tx);
    return refuseThenRun(ctx, tx);
  };
  if (ante.prepareBlock !== undefined) guarded.prepareBlock = ante.prepareBlock;
  if (ante.prepareCheck !== undefined) guarded.prepareCheck = ante.prepareCheck;
  if (ante.preparesCheck !== undefined) guarded.preparesCheck = ante.preparesCheck;
  return guarded;
}

/** Throws ErrModuleMigrating for the first message of `tx` whose module is migrating and that is not declared safe. */
export async function refuseMigratingModules(
  ctx: Context,
  tx: DecodedTx,
  options: MigrationGuardOptions,
): Promise<void> {
  await refuseMigratingMessages(
    ctx,
    tx.msgs.map((msg) => msg.typeUrl),
    options,
  );
}

/** Throws ErrModuleMigrating for the first of `typeUrls` whose module is migrating and that is not declared safe. */
async function refuseMigratingMessages(
  ctx: Context,
  typeUrls: readonly string[],
  options: MigrationGuardOptions,
): Promise<void> {
  // The raw store: no gas for this read (see the file comment).
  const running = await readRunningMigrations(ctx.multiStore.store(options.storeKey));
  if (running.length === 0) return;
  for (const typeUrl of typeUrls) {
    const module = options.moduleOfMsg(typeUrl);
    if (module === undefined) continue;
    const blocking = running.find((m) => m.status.module === module && !isSafe(m, typeUrl, options));
    if (blocking !== undefined) {
      const { status } = blocking;
      throw new ChainError(ErrModuleMigrating, moduleMigratingMessage(module, status.progress, status.startedHeight), {
        details: { upgrade: status.upgrade, migration: status.name },
      });
    }
  }
}

/**
 * `router` whose handlers first refuse a message of a migrating module (ErrModuleMigrating, upgrade 7): for the
 * messages that run without a tx, so without the ante handler's guard — a passed proposal's messages, run by gov's
 * EndBlock, which then fails the proposal with that error as its `failed_reason`. Only the handler is wrapped: looking
 * a route up (gov checks a proposal's messages when it is submitted) is unchanged, so a proposal may be submitted
 * while the module migrates and is refused only if it still migrates when the proposal executes.
 */
export function guardMigratingRoutes(
  router: { route(typeUrl: string): MsgRoute | undefined },
  options: MigrationGuardOptions,
): { route(typeUrl: string): MsgRoute | undefined } {
  return {
    route(typeUrl) {
      const route = router.route(typeUrl);
      if (route === undefined) return undefined;
      return {
        ...route,
        handler: async (msg, ctx) => {
          await refuseMigratingMessages(ctx, [typeUrl], options);
          return route.handler(msg, ctx);
        },
      };
    },
  };
}

function nothingMigratingNow(ctx: Context, storeKey: string): boolean {
  try {
    return noMigrationRunningNow(ctx.multiStore.store(storeKey));
  } catch {
    return false;
  }
}

function isSafe(stored: StoredMigration, typeUrl: string, options: MigrationGuardOptions): boolean {
  const declared = options
    .steppedMigrationsOf(stored.status.upgrade)
    .find((m) => m.module === stored.status.module && m.name === stored.status.name);
  return declared?.safeMessages?.includes(typeUrl) ?? false;
}
