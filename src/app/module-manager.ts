// The module manager: holds the app's modules, runs their genesis and block hooks in the orders the
// app declares, keeps the version map and runs store migrations (docs/CONTRACT.md §2.7).
import { performance } from "node:perf_hooks";
import type { JsonValue } from "@bufbuild/protobuf";
import { UserError } from "../errors/user-error.ts";
import type { Context } from "./context.ts";
import { ErrInvalidVersion, ErrLogic, ErrNotFound } from "./errors.ts";
import type {
  AppModule,
  MigrationHandler,
  MigrationRegistrar,
  ServiceRegistrar,
  ValidatorUpdate,
  VersionMap,
} from "./module.ts";

/** Thrown for a wiring mistake: an unknown or duplicate module, an order that forgets a module. */
export class ModuleManagerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ModuleManagerError";
  }
}

/** Thrown when a module's genesis state is invalid; `module` names the module. */
export class GenesisError extends UserError {
  readonly module: string;

  constructor(module: string, message: string, options?: { cause?: unknown }) {
    super(`invalid genesis state for module "${module}": ${message}`, options);
    this.name = "GenesisError";
    this.module = module;
  }
}

type HookName = "preBlock" | "beginBlock" | "endBlock";

/**
 * Holds the modules and their orders. Orders default to the registration order; a declared order
 * must name known modules, each once, and every module that has the hook in question.
 *
 * @example
 * const mm = new ModuleManager([auth, bank, staking, gov, upgrade]);
 * mm.setOrderPreBlockers("upgrade");
 * mm.setOrderEndBlockers("gov", "staking", "upgrade");
 * mm.registerMigration("bank", 1, async (ctx) => { ... });
 */
export class ModuleManager implements MigrationRegistrar {
  private readonly byName = new Map<string, AppModule>();
  private readonly msgModules = new Map<string, string>();
  private readonly registrationOrder: string[] = [];
  private orderInitGenesis: string[];
  private orderExportGenesis: string[];
  private orderPreBlockers: string[];
  private orderBeginBlockers: string[];
  private orderEndBlockers: string[];
  private orderMigrations: string[] | undefined;
  private readonly migrations = new Map<string, Map<bigint, MigrationHandler>>();

  constructor(modules: readonly AppModule[]) {
    for (const module of modules) {
      if (this.byName.has(module.name)) throw new ModuleManagerError(`module "${module.name}" is registered twice`);
      if (module.consensusVersion < 1n) {
        throw new ModuleManagerError(
          `module "${module.name}" has consensus version ${module.consensusVersion}; expected ≥ 1`,
        );
      }
      this.byName.set(module.name, module);
      this.registrationOrder.push(module.name);
    }
    this.orderInitGenesis = [...this.registrationOrder];
    this.orderExportGenesis = [...this.registrationOrder];
    this.orderPreBlockers = this.withHook("preBlock", this.registrationOrder);
    this.orderBeginBlockers = this.withHook("beginBlock", this.registrationOrder);
    this.orderEndBlockers = this.withHook("endBlock", this.registrationOrder);
    for (const module of modules) module.registerMigrations?.(this);
  }

  /** The module called `name`, if any. */
  module(name: string): AppModule | undefined {
    return this.byName.get(name);
  }

  /** Every module, in registration order. */
  modules(): AppModule[] {
    return this.registrationOrder.map((name) => this.byName.get(name)!);
  }

  /** Module names in registration order. */
  moduleNames(): string[] {
    return [...this.registrationOrder];
  }

  /** Every store key of every module, sorted, each once. */
  storeKeys(): string[] {
    const keys = new Set<string>();
    for (const module of this.byName.values()) for (const key of module.storeKeys) keys.add(key);
    return [...keys].sort();
  }

  /** InitGenesis order; must list every module. */
  setOrderInitGenesis(...names: string[]): void {
    this.orderInitGenesis = this.checkOrder("SetOrderInitGenesis", names, () => true);
  }

  /** ExportGenesis order; must list every module. */
  setOrderExportGenesis(...names: string[]): void {
    this.orderExportGenesis = this.checkOrder("SetOrderExportGenesis", names, () => true);
  }

  /** PreBlock order; must list every module that has a preBlock hook. */
  setOrderPreBlockers(...names: string[]): void {
    this.orderPreBlockers = this.checkOrder("SetOrderPreBlockers", names, (m) => m.preBlock !== undefined);
  }

  /** BeginBlock order; must list every module that has a beginBlock hook. */
  setOrderBeginBlockers(...names: string[]): void {
    this.orderBeginBlockers = this.checkOrder("SetOrderBeginBlockers", names, (m) => m.beginBlock !== undefined);
  }

  /** EndBlock order; must list every module that has an endBlock hook. */
  setOrderEndBlockers(...names: string[]): void {
    this.orderEndBlockers = this.checkOrder("SetOrderEndBlockers", names, (m) => m.endBlock !== undefined);
  }

  /** Migration order for runMigrations; must list every module (default: alphabetical, auth last). */
  setOrderMigrations(...names: string[]): void {
    this.orderMigrations = this.checkOrder("SetOrderMigrations", names, () => true);
  }

  /** The declared orders (for docs and tests). */
  orders(): Record<"initGenesis" | "exportGenesis" | "preBlock" | "beginBlock" | "endBlock" | "migrations", string[]> {
    return {
      initGenesis: [...this.orderInitGenesis],
      exportGenesis: [...this.orderExportGenesis],
      preBlock: this.orderPreBlockers.filter((n) => this.byName.get(n)?.preBlock !== undefined),
      beginBlock: this.orderBeginBlockers.filter((n) => this.byName.get(n)?.beginBlock !== undefined),
      endBlock: this.orderEndBlockers.filter((n) => this.byName.get(n)?.endBlock !== undefined),
      migrations: this.migrationOrder(),
    };
  }

  /** Lets every module register its Msg and Query services, noting which module routes each Msg type. */
  registerServices(registrar: ServiceRegistrar): void {
    for (const module of this.modules()) {
      module.registerServices({
        registerMsgService: (service, handlers) => {
          for (const method of service.methods) this.msgModules.set(`/${method.input.typeName}`, module.name);
          registrar.registerMsgService(service, handlers);
        },
        registerQueryService: (service, handlers) => registrar.registerQueryService(service, handlers),
      });
    }
  }

  /** The module whose Msg service handles `typeUrl` (known once services are registered), if any. */
  moduleOfMsg(typeUrl: string): string | undefined {
    return this.msgModules.get(typeUrl);
  }

  /** Every module's default genesis, keyed by module name. */
  defaultGenesis(): Record<string, JsonValue> {
    const out: Record<string, JsonValue> = {};
    for (const module of this.modules()) out[module.name] = module.defaultGenesis();
    return out;
  }

  /**
   * Validates an app_state object: every module's entry (its default when absent). Throws
   * GenesisError naming the module; an entry for an unknown module is an error too.
   */
  validateGenesis(appState: Record<string, JsonValue>): void {
    for (const key of Object.keys(appState)) {
      if (!this.byName.has(key)) {
        throw new GenesisError(key, `no such module in this app (modules: ${this.registrationOrder.join(", ")})`);
      }
    }
    for (const module of this.modules()) {
      const genesis = appState[module.name] ?? module.defaultGenesis();
      try {
        module.validateGenesis(genesis);
      } catch (err) {
        throw new GenesisError(module.name, (err as Error).message, { cause: err });
      }
    }
  }

  /**
   * Runs every module's initGenesis in the declared order (absent entries use the default) and
   * returns the validator set. Only one module may return validators.
   */
  async initGenesis(ctx: Context, appState: Record<string, JsonValue>): Promise<ValidatorUpdate[]> {
    let validators: ValidatorUpdate[] = [];
    let from: string | undefined;
    for (const name of this.orderInitGenesis) {
      const module = this.byName.get(name)!;
      const updates = await module.initGenesis(ctx, appState[name] ?? module.defaultGenesis());
      if (updates !== undefined && updates.length > 0) {
        if (from !== undefined) {
          throw ErrLogic.wrap(
            `validator InitGenesis updates already set by module ${from}, module ${name} returned more`,
          );
        }
        validators = updates;
        from = name;
      }
    }
    return validators;
  }

  /** Every module's exported genesis, keyed by module name, in export order. */
  async exportGenesis(ctx: Context): Promise<Record<string, JsonValue>> {
    const out: Record<string, JsonValue> = {};
    for (const name of this.orderExportGenesis) out[name] = await this.byName.get(name)!.exportGenesis(ctx);
    return out;
  }

  /** Runs the preBlock hooks in order. A HaltError thrown by one propagates untouched. */
  async preBlock(ctx: Context): Promise<void> {
    for (const name of this.orderPreBlockers) await this.byName.get(name)!.preBlock?.(ctx);
  }

  /** Runs the beginBlock hooks in order. */
  async beginBlock(ctx: Context): Promise<void> {
    for (const name of this.orderBeginBlockers) await this.byName.get(name)!.beginBlock?.(ctx);
  }

  /** Runs the endBlock hooks in order; returns the validator updates (only one module may return any). */
  async endBlock(ctx: Context): Promise<ValidatorUpdate[]> {
    let validators: ValidatorUpdate[] = [];
    let from: string | undefined;
    for (const name of this.orderEndBlockers) {
      const updates = await this.byName.get(name)!.endBlock?.(ctx);
      if (updates !== undefined && updates.length > 0) {
        if (from !== undefined) {
          throw ErrLogic.wrap(`validator EndBlock updates already set by module ${from}, module ${name} returned more`);
        }
        validators = updates;
        from = name;
      }
    }
    return validators;
  }

  /** Every module's current consensus version. */
  getVersionMap(): VersionMap {
    const map: VersionMap = new Map();
    for (const name of [...this.registrationOrder].sort()) map.set(name, this.byName.get(name)!.consensusVersion);
    return map;
  }

  /**
   * Registers the migration of `moduleName` from `fromVersion` to `fromVersion + 1`.
   * fromVersion 0 → `module migration versions should start at 1: invalid version` (sdk 27);
   * a duplicate → `another migration for module <m> and version <v> already exists: internal logic error`.
   */
  registerMigration(moduleName: string, fromVersion: bigint | number, handler: MigrationHandler): void {
    const version = BigInt(fromVersion);
    if (version < 1n) throw ErrInvalidVersion.wrap("module migration versions should start at 1");
    if (!this.byName.has(moduleName)) {
      throw new ModuleManagerError(`cannot register a migration for unknown module "${moduleName}"`);
    }
    let steps = this.migrations.get(moduleName);
    if (steps === undefined) {
      steps = new Map();
      this.migrations.set(moduleName, steps);
    }
    if (steps.has(version)) {
      throw ErrLogic.wrap(`another migration for module ${moduleName} and version ${version} already exists`);
    }
    steps.set(version, handler);
  }

  /**
   * Runs migrations from `fromVM` to the modules' current versions (docs/CONTRACT.md §2.7), in the migration
   * order. A module in fromVM runs each step from its version up to its consensus version (a missing
   * step → `no migration found for module <m> from version <i> to version <i+1>: not found`, sdk 38);
   * a module absent from fromVM is new: its default genesis is initialised. Returns the new map.
   */
  async runMigrations(ctx: Context, fromVM: VersionMap): Promise<VersionMap> {
    const started = performance.now();
    try {
      return await this.runMigrationsInOrder(ctx, fromVM);
    } finally {
      this.lastMigrationSeconds = (performance.now() - started) / 1000;
    }
  }

  /** Seconds the last runMigrations took in this process (the node's upgrade metrics), undefined before one. */
  lastMigrationSeconds: number | undefined;

  private async runMigrationsInOrder(ctx: Context, fromVM: VersionMap): Promise<VersionMap> {
    const updated: VersionMap = new Map();
    for (const name of this.migrationOrder()) {
      const module = this.byName.get(name)!;
      const toVersion = module.consensusVersion;
      const fromVersion = fromVM.get(name);
      if (fromVersion !== undefined) {
        await this.runModuleMigrations(ctx, name, fromVersion, toVersion);
      } else {
        ctx.logger.info({ module: name }, `adding a new module: ${name}`);
        const updates = await module.initGenesis(ctx, module.defaultGenesis());
        if (updates !== undefined && updates.length > 0) {
          throw ErrLogic.wrap(`validator InitGenesis update is already set by another module (new module ${name})`);
        }
      }
      updated.set(name, toVersion);
    }
    return new Map([...updated.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  /** Told the time of every migration step runMigrations runs (the upgrade rehearsal reports them). */
  migrationObserver?: (step: { module: string; from: bigint; ms: number }) => void;

  /** The order runMigrations uses: the declared one, else alphabetical with `auth` last. */
  migrationOrder(): string[] {
    if (this.orderMigrations !== undefined) return [...this.orderMigrations];
    const names = [...this.registrationOrder].sort();
    const auth = names.indexOf("auth");
    if (auth >= 0) {
      names.splice(auth, 1);
      names.push("auth");
    }
    return names;
  }

  private async runModuleMigrations(ctx: Context, name: string, from: bigint, to: bigint): Promise<void> {
    // Upstream treats versions ≤ 1 and unchanged versions as nothing to do.
    if (to <= 1n || from === to) return;
    const steps = this.migrations.get(name);
    for (let version = from; version < to; version++) {
      const step = steps?.get(version);
      if (step === undefined) {
        throw ErrNotFound.wrap(
          `no migration found for module ${name} from version ${version} to version ${version + 1n}`,
        );
      }
      ctx.logger.info({ module: name, from: version, to: version + 1n }, `migrating module ${name}`);
      const started = performance.now();
      await step(ctx);
      this.migrationObserver?.({ module: name, from: version, ms: performance.now() - started });
    }
  }

  private withHook(hook: HookName, names: readonly string[]): string[] {
    return names.filter((name) => this.byName.get(name)?.[hook] !== undefined);
  }

  private checkOrder(setter: string, names: readonly string[], required: (m: AppModule) => boolean): string[] {
    const seen = new Set<string>();
    for (const name of names) {
      if (!this.byName.has(name)) throw new ModuleManagerError(`${setter}: unknown module "${name}"`);
      if (seen.has(name)) throw new ModuleManagerError(`${setter}: module "${name}" is listed twice`);
      seen.add(name);
    }
    const missing = this.registrationOrder.filter((name) => !seen.has(name) && required(this.byName.get(name)!));
    if (missing.length > 0) {
      throw new ModuleManagerError(
        `all modules must be defined when setting ${setter}, missing: [${missing.join(" ")}]`,
      );
    }
    return [...names];
  }
}
