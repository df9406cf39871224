// The upgrade keeper (docs/CONTRACT.md §2.3): the scheduled plan, done records, the module version map, the protocol
// version, the in-memory upgrade handlers of this binary, skip heights and the upgrade-info.json file.
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import type { Context } from "../../app/context.ts";
import { decodedOnce } from "../../app/decoded-once.ts";
import { ErrInvalidRequest } from "../../app/errors.ts";
import type { VersionMap } from "../../app/module.ts";
import { fromUtf8 } from "../../bytes/text.ts";
import { addressToBech32, moduleAddress } from "../../crypto/index.ts";
import { UserError } from "../../errors/user-error.ts";
import {
  type ModuleVersion,
  type Plan,
  PlanSchema,
  type SteppedMigration as SteppedMigrationStatus,
} from "../../gen/chain/upgrade/v1beta1/upgrade_pb.js";
import type { KVStore, ReadableKVStore } from "../../store/types.ts";
import { binaryUpdatedBeforeTriggerMessage, wrongAppVersionMessage } from "./guard-messages.ts";
import {
  DONE_PREFIX,
  decodeUint64,
  doneKey,
  encodeUint64,
  moduleVersionKey,
  PLAN_KEY,
  POSTPONEMENTS_KEY,
  PROTOCOL_VERSION_KEY,
  UPGRADE_STORE_KEY,
  VERSION_MAP_PREFIX,
} from "./keys.ts";
import { MigrationLookahead } from "./migration-lookahead.ts";
import { startSteppedMigrations } from "./migration-runner.ts";
import { readMigrations } from "./migration-store.ts";
import { isDue, storedForm, validatePlan } from "./plan.ts";
import { type SteppedMigration, validateSteppedMigrations } from "./stepped-migration.ts";
import {
  dumpUpgradeInfoToDisk,
  readUpgradeInfoFromDisk,
  type UpgradeInfo,
  upgradeInfoPath,
} from "./upgrade-info-file.ts";

/**
 * An upgrade handler: runs the named upgrade's state changes (usually `moduleManager.runMigrations`) with the
 * stored version map and returns the new one, which the keeper merges into the store.
 */
export type UpgradeHandler = (ctx: Context, plan: Plan, fromVM: VersionMap) => Promise<VersionMap>;

/** A done record: the plan `name` was applied at block `height`. */
export interface CompletedUpgrade {
  name: string;
  height: bigint;
}

/** Options of {@link UpgradeKeeper}. */
export interface UpgradeKeeperOptions {
  /** The node home; upgrade-info.json lives at `<home>/data/upgrade-info.json`. */
  home: string;
  /** Heights whose plans are skipped (`chaind start --unsafe-skip-upgrades`). Fixed for the process. */
  skipUpgradeHeights?: Iterable<bigint | number>;
  /** Who may schedule and cancel (bech32); default the gov module account. */
  authority?: string;
  /** Store key of the module's store (default `upgrade`). */
  storeKey?: string;
  /**
   * Told the new protocol version after each applied upgrade (upstream's version setter): the App reports
   * it as ABCI `Info.app_version`.
   */
  onProtocolVersion?: (version: bigint) => void;
}

/** The gov module account, the default upgrade authority: `chain10d07y265gmmuvt4z0w9aw880jnsr700j0q8wax`. */
export function defaultUpgradeAuthority(): string {
  return addressToBech32(moduleAddress("gov"));
}

/**
 * The upgrade keeper.
 *
 * @example
 * const keeper = new UpgradeKeeper({ home, skipUpgradeHeights: [] });
 * keeper.setUpgradeHandler("v2", async (ctx, plan, fromVM) => moduleManager.runMigrations(ctx, fromVM));
 */
export class UpgradeKeeper {
  readonly storeKey: string;
  readonly authority: string;
  readonly home: string;
  private readonly skipHeights: ReadonlySet<bigint>;
  private readonly handlers = new Map<string, UpgradeHandler>();
  private readonly stepped = new Map<string, readonly SteppedMigration[]>();
  private onProtocolVersion: ((version: bigint) => void) | undefined;
  /** Told of each upgrade applied in this process, with its handler's seconds (the node's metrics). */
  onApplied: ((applied: { name: string; height: bigint; handlerSeconds: number }) => void) | undefined;
  /** Whether this process has run the downgrade guard (once: before the mount or at the first PreBlock). */
  private downgradeChecked = false;
  /** The next block's migration steps, done after each commit (migration-lookahead.ts). */
  readonly lookahead: MigrationLookahead = new MigrationLookahead(this);

  constructor(options: UpgradeKeeperOptions) {
    this.home = options.home;
    this.storeKey = options.storeKey ?? UPGRADE_STORE_KEY;
    this.authority = options.authority ?? defaultUpgradeAuthority();
    this.skipHeights = new Set([...(options.skipUpgradeHeights ?? [])].map((h) => BigInt(h)));
    this.onProtocolVersion = options.onProtocolVersion;
  }

  /**
   * The downgrade guard (docs/CONTRACT.md §2.4 step 1), run once per process: at `height`, unless `plan` is due and
   * `height` is not skipped, the last applied upgrade must have a handler in this binary. Returns the halt message
   * (`wrong app version <v>, upgrade handler is missing for <name> upgrade plan`), or undefined when the binary fits
   * and on every later call. The state is read through `read` only when the guard runs.
   */
  async downgradeGuard(
    height: bigint,
    plan: Plan | undefined,
    read: { lastCompleted(): Promise<{ name: string } | undefined>; protocolVersion(): Promise<bigint> },
  ): Promise<string | undefined> {
    if (this.downgradeChecked) return undefined;
    this.downgradeChecked = true;
    const due = plan !== undefined && isDue(plan, height);
    if (due && this.isSkipHeight(height) === false) return undefined;
    const last = await read.lastCompleted();
    if (last === undefined || this.hasHandler(last.name)) return undefined;
    return wrongAppVersionMessage(await read.protocolVersion(), last.name);
  }

  /**
   * The early-binary guard (docs/CONTRACT.md §2.4 step 3): a plan not yet due at `height` whose handler this binary
   * already has. Returns the halt message (`BINARY UPDATED BEFORE TRIGGER! …`), or undefined.
   */
  earlyBinaryGuard(height: bigint, plan: Plan | undefined): string | undefined {
    if (plan === undefined || isDue(plan, height) || !this.hasHandler(plan.name)) return undefined;
    return binaryUpdatedBeforeTriggerMessage(plan.name);
  }

  /** Registers (or replaces) the handler of the upgrade `name`. Handlers live in memory: they are this binary's knowledge. */
  setUpgradeHandler(name: string, handler: UpgradeHandler): void {
    this.handlers.set(name, handler);
  }

  /**
   * Declares the stepped migrations of the upgrade `name` (stepped-migration.ts): started in the block that applies
   * it, then run one step per block by PreBlock. Checked here: a module and a name each, distinct, a positive budget.
   */
  setSteppedMigrations(name: string, migrations: readonly SteppedMigration[]): void {
    validateSteppedMigrations(name, migrations);
    this.stepped.set(name, [...migrations]);
  }

  /** Whether this binary carries any stepped migration (only then are a block's steps done ahead). */
  carriesSteppedMigrations(): boolean {
    return this.stepped.size > 0;
  }

  /** The stepped migrations this binary carries for the upgrade `name` ([] when none). */
  steppedMigrationsOf(name: string): readonly SteppedMigration[] {
    return this.stepped.get(name) ?? [];
  }

  /** Every stepped migration started on this chain, running (`finishedHeight` 0) or finished, in store order. */
  async getMigrations(ctx: Context): Promise<SteppedMigrationStatus[]> {
    return (await readMigrations(this.store(ctx))).map((m) => m.status);
  }

  /** True when this binary has a handler for `name`. */
  hasHandler(name: string): boolean {
    return this.handlers.has(name);
  }

  /** Sets the listener told the new protocol version after each applied upgrade. */
  setProtocolVersionListener(listener: ((version: bigint) => void) | undefined): void {
    this.onProtocolVersion = listener;
  }

  /** True when `height` is one of the configured skip heights. */
  isSkipHeight(height: bigint): boolean {
    return this.skipHeights.has(height);
  }

  /** The configured skip heights, ascending. */
  skipUpgradeHeights(): bigint[] {
    return [...this.skipHeights].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /**
   * Schedules `plan`, replacing any scheduled plan. Errors (sdk 18 `invalid request`): a plan validation
   * failure; a height below the current block height (`upgrade cannot be scheduled in the past`; equal is
   * allowed); a name already applied (`upgrade with name <name> has already been completed`).
   */
  async scheduleUpgrade(ctx: Context, plan: Plan): Promise<void> {
    validatePlan(plan);
    if (plan.height < ctx.blockHeight) throw ErrInvalidRequest.wrap("upgrade cannot be scheduled in the past");
    if ((await this.getDoneHeight(ctx, plan.name)) !== 0n) {
      throw ErrInvalidRequest.wrap(`upgrade with name ${plan.name} has already been completed`);
    }
    this.store(ctx).set(PLAN_KEY, toBinary(PlanSchema, storedForm(plan)));
    await this.resetPostponements(ctx);
  }

  /**
   * Moves the scheduled plan to `height` without any other change, counting the postponement (the readiness gate;
   * scheduleUpgrade, clearUpgradePlan and applyUpgrade reset the count).
   */
  async postponeUpgradePlan(ctx: Context, plan: Plan, height: bigint, count: bigint): Promise<void> {
    this.store(ctx).set(PLAN_KEY, toBinary(PlanSchema, storedForm({ ...plan, height })));
    this.store(ctx).set(POSTPONEMENTS_KEY, encodeUint64(count));
  }

  private async resetPostponements(ctx: Context): Promise<void> {
    const store = this.store(ctx);
    if (await store.has(POSTPONEMENTS_KEY)) store.delete(POSTPONEMENTS_KEY);
  }

  /** The scheduled plan, if any. */
  async getUpgradePlan(ctx: Context): Promise<Plan | undefined> {
    return readPlan(this.store(ctx));
  }

  /** Removes the scheduled plan; succeeds when there is none. */
  async clearUpgradePlan(ctx: Context): Promise<void> {
    const store = this.store(ctx);
    if (await store.has(PLAN_KEY)) store.delete(PLAN_KEY);
    await this.resetPostponements(ctx);
  }

  /** The height at which the plan `name` was applied; 0 when it never was. */
  async getDoneHeight(ctx: Context, name: string): Promise<bigint> {
    const value = await this.store(ctx).get(doneKey(name));
    return value === undefined ? 0n : decodeUint64(value, `the done record of "${name}"`);
  }

  /** The done record with the highest height (ties: the greatest name); undefined before any upgrade. */
  async getLastCompletedUpgrade(ctx: Context): Promise<CompletedUpgrade | undefined> {
    return readLastCompletedUpgrade(this.store(ctx));
  }

  /** Every done record, in name order. */
  async getCompletedUpgrades(ctx: Context): Promise<CompletedUpgrade[]> {
    const out: CompletedUpgrade[] = [];
    for await (const [key, value] of this.store(ctx).iterate({ prefix: DONE_PREFIX })) {
      const name = fromUtf8(key.subarray(DONE_PREFIX.length));
      out.push({ name, height: decodeUint64(value, `the done record of "${name}"`) });
    }
    return out;
  }

  /** The stored module version map (module → consensus version), in name order. */
  async getModuleVersionMap(ctx: Context): Promise<VersionMap> {
    const map: VersionMap = new Map();
    for (const { name, version } of await this.getModuleVersions(ctx)) map.set(name, version);
    return map;
  }

  /** The stored module versions as ModuleVersion entries, sorted by name (store order). */
  async getModuleVersions(ctx: Context): Promise<Pick<ModuleVersion, "name" | "version">[]> {
    const out: Pick<ModuleVersion, "name" | "version">[] = [];
    for await (const [key, value] of this.store(ctx).iterate({ prefix: VERSION_MAP_PREFIX })) {
      const name = fromUtf8(key.subarray(VERSION_MAP_PREFIX.length));
      out.push({ name, version: decodeUint64(value, `the version of module "${name}"`) });
    }
    return out;
  }

  /** The stored consensus version of `moduleName`, if any. */
  async getModuleVersion(ctx: Context, moduleName: string): Promise<bigint | undefined> {
    const value = await this.store(ctx).get(moduleVersionKey(moduleName));
    return value === undefined ? undefined : decodeUint64(value, `the version of module "${moduleName}"`);
  }

  /** Writes every entry of `versionMap` (a merge: stored entries not in the map stay). */
  async setModuleVersionMap(ctx: Context, versionMap: VersionMap): Promise<void> {
    const store = this.store(ctx);
    for (const [name, version] of versionMap) store.set(moduleVersionKey(name), encodeUint64(version));
  }

  /** The protocol version: the number of applied upgrades (0 at genesis). */
  async getProtocolVersion(ctx: Context): Promise<bigint> {
    return readProtocolVersion(this.store(ctx));
  }

  /**
   * Applies `plan` at the current block: runs its handler with the stored version map, merges the returned
   * map, bumps the protocol version (telling the listener), clears the plan and records `name` as done at the
   * current block height, and starts the upgrade's stepped migrations (their first step runs in the next block's
   * PreBlock). Errors from the handler propagate unchanged.
   */
  async applyUpgrade(ctx: Context, plan: Plan): Promise<void> {
    const handler = this.handlers.get(plan.name);
    if (handler === undefined) throw new Error("ApplyUpgrade should never be called without first checking HasHandler");
    const started = performance.now();
    const updated = await handler(ctx, plan, await this.getModuleVersionMap(ctx));
    const handlerSeconds = (performance.now() - started) / 1000;
    await this.setModuleVersionMap(ctx, updated);
    const protocolVersion = (await this.getProtocolVersion(ctx)) + 1n;
    const store = this.store(ctx);
    store.set(PROTOCOL_VERSION_KEY, encodeUint64(protocolVersion));
    await this.clearUpgradePlan(ctx);
    store.set(doneKey(plan.name), encodeUint64(ctx.blockHeight));
    await startSteppedMigrations(this, ctx, plan.name);
    this.onProtocolVersion?.(protocolVersion);
    this.onApplied?.({ name: plan.name, height: ctx.blockHeight, handlerSeconds });
  }

  /** `<home>/data/upgrade-info.json`. */
  upgradeInfoPath(): string {
    return upgradeInfoPath(this.home);
  }

  /** Reads upgrade-info.json: undefined when missing; an error naming the file when it is unreadable or invalid. */
  readUpgradeInfoFromDisk(): Promise<UpgradeInfo | undefined> {
    return readUpgradeInfoFromDisk(this.home);
  }

  /** Writes upgrade-info.json for a halt at `height` (atomic, mode 0600); returns its path. */
  dumpUpgradeInfoToDisk(height: bigint, plan: Pick<Plan, "name" | "info">): Promise<string> {
    return dumpUpgradeInfoToDisk(this.home, height, plan);
  }

  private store(ctx: Context): KVStore {
    return ctx.kvStore(this.storeKey);
  }
}

// PreBlock, EndBlock and the replay mode's switch read the plan every block: decoded once per stored value.
const decodePlan = decodedOnce((bytes) => fromBinary(PlanSchema, bytes));

/**
 * The plan stored in an upgrade store (any version of it), if any. The record is frozen (its readers share it):
 * change a copy.
 */
export async function readPlan(store: ReadableKVStore): Promise<Plan | undefined> {
  const bytes = await store.get(PLAN_KEY);
  return bytes === undefined ? undefined : decodePlan(bytes);
}

/**
 * The protocol version held by an upgrade store (0 when absent). The App reads it from the latest committed
 * state to answer ABCI `Info.app_version`, including after a restart.
 */
export async function readProtocolVersion(store: ReadableKVStore): Promise<bigint> {
  const value = await store.get(PROTOCOL_VERSION_KEY);
  return value === undefined ? 0n : decodeUint64(value, "the protocol version");
}

/** The done record with the highest height in an upgrade store (ties: the greatest name). */
export async function readLastCompletedUpgrade(store: ReadableKVStore): Promise<CompletedUpgrade | undefined> {
  let last: CompletedUpgrade | undefined;
  for await (const [key, value] of store.iterate({ prefix: DONE_PREFIX })) {
    const name = fromUtf8(key.subarray(DONE_PREFIX.length));
    const height = decodeUint64(value, `the done record of "${name}"`);
    // Names iterate ascending, so ">=" keeps the greatest name among equal heights.
    if (last === undefined || height >= last.height) last = { name, height };
  }
  return last;
}

/** The highest skip height `--unsafe-skip-upgrades` takes: heights are int64 (upstream's flag is a Go int slice). */
export const MAX_SKIP_UPGRADE_HEIGHT = (1n << 63n) - 1n;

/**
 * Parses `--unsafe-skip-upgrades` values: each argument a height or a comma-separated list of heights (positive
 * integers up to 9223372036854775807), as the flag may be repeated or given a list. Like upstream's int-slice flag,
 * an empty item (`""`, `"5,"`, `"5,,6"`) or a number out of range is refused, not ignored; spaces around an item are
 * allowed. The error (a {@link UserError}, so one line) names the flag, the value, the bad item and what is expected.
 *
 * @example parseSkipUpgradeHeights(["120,340", "500"]) // [120n, 340n, 500n]
 */
export function parseSkipUpgradeHeights(values: readonly string[]): bigint[] {
  const heights: bigint[] = [];
  for (const value of values) {
    const parts = value.split(",");
    parts.forEach((part, index) => {
      const text = part.trim();
      const problem =
        text === ""
          ? parts.length === 1
            ? "the value is empty"
            : `item ${index + 1} is empty`
          : !/^\d+$/.test(text) || BigInt(text) === 0n
            ? `${JSON.stringify(part)} is not a positive integer`
            : BigInt(text) > MAX_SKIP_UPGRADE_HEIGHT
              ? `${JSON.stringify(part)} is out of range`
              : undefined;
      if (problem !== undefined) {
        throw new UserError(
          `invalid --unsafe-skip-upgrades ${JSON.stringify(value)}: ${problem}; expected positive integers up to ${MAX_SKIP_UPGRADE_HEIGHT}, comma-separated, e.g. 120,340`,
        );
      }
      heights.push(BigInt(text));
    });
  }
  return heights;
}
