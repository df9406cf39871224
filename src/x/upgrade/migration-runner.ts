// Runs stepped migrations: the upgrade handler's block starts those its upgrade declares (a record each, cursor
// empty), and from the next block on the upgrade module's PreBlock runs one step of each running migration, in
// store order, before any transaction. Everything a step needs next time is in the upgrade store, so a node that
// crashes or restarts resumes at the same cursor and every node computes the same state at every height.
import type { Context } from "../../app/context.ts";
import { UpgradeHaltError } from "./errors.ts";
import {
  migrationLabel,
  newMigrationStatus,
  readMigrations,
  readRunningMigrations,
  runningMigrationCount,
  setRunningMigrationCount,
  writeMigration,
} from "./migration-store.ts";
import type { SteppedMigration } from "./stepped-migration.ts";
import { progressText } from "./stepped-migration.ts";

/** Where the runner finds an upgrade's declared stepped migrations (the keeper). */
export interface SteppedMigrationSource {
  readonly storeKey: string;
  steppedMigrationsOf(upgrade: string): readonly SteppedMigration[];
}

/**
 * Starts the stepped migrations `upgrade` declares, at the current block (its handler's): one record each,
 * `started_height` = this height, no step run yet. A migration already recorded (the same upgrade applied twice
 * cannot happen; kept for safety) is left alone.
 */
export async function startSteppedMigrations(
  source: SteppedMigrationSource,
  ctx: Context,
  upgrade: string,
): Promise<number> {
  const declared = source.steppedMigrationsOf(upgrade);
  if (declared.length === 0) return 0;
  const store = ctx.kvStore(source.storeKey);
  const known = new Set((await readMigrations(store)).map((m) => migrationLabel(m.status)));
  let started = 0;
  for (const migration of declared) {
    const id = { upgrade, module: migration.module, name: migration.name };
    if (known.has(migrationLabel(id))) continue;
    writeMigration(store, { status: newMigrationStatus(id, ctx.blockHeight), cursor: new Uint8Array() });
    started++;
  }
  setRunningMigrationCount(store, (await runningMigrationCount(store)) + BigInt(started));
  ctx.logger
    .child({ module: "x/upgrade" })
    .info({ upgrade, migrations: declared.map((m) => `${m.module}/${m.name}`) }, "stepped migrations started");
  return started;
}

/**
 * One block's steps (PreBlock): for each running migration, in store order, one step from its cursor; the new cursor,
 * progress and step count are stored, event `migration_step`; a step that says "done" finishes it at this height,
 * event `migration_done`. A running migration this binary does not carry halts the node (exit 21); a step that
 * throws halts it (exit 22) with nothing of the block committed.
 */
export async function runMigrationSteps(source: SteppedMigrationSource, ctx: Context): Promise<void> {
  const store = ctx.kvStore(source.storeKey);
  const running = await readRunningMigrations(store);
  if (running.length === 0) return;
  let finished = 0n;
  for (const stored of running) {
    const { status } = stored;
    const label = migrationLabel(status);
    const migration = source
      .steppedMigrationsOf(status.upgrade)
      .find((m) => m.module === status.module && m.name === status.name);
    if (migration === undefined) {
      throw new UpgradeHaltError(
        "wrongBinary",
        `stepped migration ${label} is running on chain but this binary does not carry it: start a release that does`,
        ctx.blockHeight,
      );
    }
    let result: Awaited<ReturnType<SteppedMigration["step"]>>;
    try {
      result = await migration.step(ctx, status.steps === 0n ? undefined : stored.cursor, migration.budget);
    } catch (err) {
      throw new UpgradeHaltError(
        "upgradeFailed",
        `stepped migration ${label} failed at height ${ctx.blockHeight}: ${(err as Error).message}`,
        ctx.blockHeight,
        { cause: err },
      );
    }
    status.steps += 1n;
    if (result === "done") {
      status.finishedHeight = ctx.blockHeight;
      status.progress = status.progress === "" ? "" : progressText({ done: 1n, total: 1n });
      writeMigration(store, { status, cursor: new Uint8Array() });
      finished++;
      ctx.events.emit("migration_done", {
        upgrade: status.upgrade,
        module: status.module,
        name: status.name,
        progress: status.progress,
        steps: status.steps.toString(),
        height: ctx.blockHeight.toString(),
      });
      ctx.logger
        .child({ module: "x/upgrade" })
        .info({ migration: label, steps: status.steps.toString() }, "stepped migration done");
      continue;
    }
    status.progress = progressText(result.progress);
    writeMigration(store, { status, cursor: result.cursor });
    ctx.events.emit("migration_step", {
      upgrade: status.upgrade,
      module: status.module,
      name: status.name,
      progress: status.progress,
      steps: status.steps.toString(),
    });
  }
  if (finished > 0n) setRunningMigrationCount(store, (await runningMigrationCount(store)) - finished);
}

/** One stepped migration run to its end outside the chain (the dry run, the rehearsal). */
export interface DrainedMigration {
  upgrade: string;
  module: string;
  name: string;
  /** Its budget: records per block. */
  budget: number;
  /** Steps it took, so blocks at one step per block. */
  steps: bigint;
  /** The height whose step finished it, had the chain run these blocks. */
  finishedHeight: bigint;
}

/**
 * Runs every running stepped migration to its end, one block's steps per call of `contextAt(height)` from `fromHeight`
 * on (contexts over one branch the caller discards; each a new block height), exactly as PreBlock would run them.
 * Resolves with each migration that was running, in store order. Throws after `maxBlocks` blocks (a step that never
 * finishes).
 */
export async function drainSteppedMigrations(
  source: SteppedMigrationSource,
  contextAt: (height: bigint) => Context,
  fromHeight: bigint,
  maxBlocks = 10_000_000,
): Promise<DrainedMigration[]> {
  let height = fromHeight;
  const first = contextAt(height);
  const started = (await readRunningMigrations(first.kvStore(source.storeKey))).map((m) => migrationLabel(m.status));
  if (started.length === 0) return [];
  let ctx = first;
  for (let blocks = 0; ; blocks++) {
    if (blocks >= maxBlocks) throw new Error(`stepped migrations still running after ${maxBlocks} blocks`);
    await runMigrationSteps(source, ctx);
    if ((await runningMigrationCount(ctx.kvStore(source.storeKey))) === 0n) break;
    height += 1n;
    ctx = contextAt(height);
  }
  const all = await readMigrations(ctx.kvStore(source.storeKey));
  return all
    .filter((m) => started.includes(migrationLabel(m.status)))
    .map(({ status }) => ({
      upgrade: status.upgrade,
      module: status.module,
      name: status.name,
      budget:
        source.steppedMigrationsOf(status.upgrade).find((d) => d.module === status.module && d.name === status.name)
          ?.budget ?? 0,
      steps: status.steps,
      finishedHeight: status.finishedHeight,
    }));
}
