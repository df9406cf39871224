// A module declares its own consensus version and the migrations that lead to it; this helper gives an existing
// module (e.g. bank) a newer version for one release without copying it.
import type { Context } from "../app/context.ts";
import type { AppModule } from "../app/module.ts";

/** One in-place migration: from `from` to `from + 1`. */
export interface ModuleMigration {
  from: bigint;
  run(ctx: Context): Promise<void>;
}

/**
 * `module` at `consensusVersion`, with `migrations` registered (after any the module registers itself). The
 * upgrade handler's `runMigrations` runs them from the version the state has.
 *
 * @example withMigrations(bankModule(bankKeeper), { consensusVersion: 2n, migrations: [{ from: 1n, run: (ctx) => migrateBank(ctx, bankKeeper) }] })
 */
export function withMigrations(
  module: AppModule,
  declared: { consensusVersion: bigint; migrations: ModuleMigration[] },
): AppModule {
  for (const step of declared.migrations) {
    if (step.from < 1n || step.from >= declared.consensusVersion) {
      throw new Error(
        `module "${module.name}": a migration from version ${step.from} does not lead to a version up to ${declared.consensusVersion}`,
      );
    }
  }
  return {
    ...module,
    consensusVersion: declared.consensusVersion,
    registerMigrations(registrar) {
      module.registerMigrations?.(registrar);
      for (const step of declared.migrations) registrar.registerMigration(module.name, step.from, step.run);
    },
  };
}
