// The releases of the reference chain, all built from this one tree. A release archive fixes its
// release through CHAIND_RELEASE (scripts/release.ts writes it into bin/chaind); a source checkout
// runs v1 unless told otherwise, so a plan scheduled on a development chain halts it at the
// plan's height exactly as the seed describes, ready for a v2 release to take over.
import type { Context } from "../src/app/context.ts";
import type { AppModule, VersionMap } from "../src/app/module.ts";
import type { ModuleManager } from "../src/app/module-manager.ts";
import { UserError } from "../src/errors/user-error.ts";
import type { Plan } from "../src/gen/chain/upgrade/v1beta1/upgrade_pb.js";
import type { StoreUpgrades } from "../src/store/types.ts";
import type { BankKeeper } from "../src/x/bank/keeper.ts";
import { migrateBankV1ToV2 } from "./migrations/bank-v2.ts";
import { notesModule } from "./modules/notes.ts";

/** The names of the releases this tree can run as. */
export const RELEASE_NAMES = ["v1", "v2"] as const;
export type ReleaseName = (typeof RELEASE_NAMES)[number];

/** The release a process runs as when CHAIND_RELEASE is unset. */
export const DEFAULT_RELEASE: ReleaseName = "v1";

/** An upgrade a release knows how to apply: its plan name, handler and store changes. */
export interface ReleaseUpgrade {
  name: string;
  storeUpgrades: StoreUpgrades;
  handler(ctx: Context, plan: Plan, fromVM: VersionMap, moduleManager: ModuleManager): Promise<VersionMap>;
}

/** What a release adds to the modules every release has (auth, bank, staking, gov, upgrade, genutil). */
export interface Release {
  name: ReleaseName;
  /** Software version reported by Info and `chaind version`. */
  version: string;
  /** The release's own modules. */
  extraModules(): AppModule[];
  /** bank's consensus version and the migrations leading to it. */
  bank: {
    consensusVersion: bigint;
    migrations: { from: bigint; run(ctx: Context, bank: BankKeeper): Promise<void> }[];
  };
  /** Every upgrade this release has handlers for, oldest first; the last one is the one it performs. */
  upgrades: ReleaseUpgrade[];
}

const runAllMigrations: ReleaseUpgrade["handler"] = (ctx, _plan, fromVM, moduleManager) =>
  moduleManager.runMigrations(ctx, fromVM);

const v1: Release = {
  name: "v1",
  version: "1.0.0",
  extraModules: () => [
    notesModule({ name: "notes", storeKey: "notes_v1" }),
    notesModule({ name: "legacy", storeKey: "legacy" }),
  ],
  bank: { consensusVersion: 1n, migrations: [] },
  upgrades: [],
};

const v2: Release = {
  name: "v2",
  version: "2.0.0",
  extraModules: () => [
    notesModule({ name: "notes", storeKey: "notes" }),
    notesModule({ name: "beacon", storeKey: "beacon", defaultNotes: [{ key: "release", value: "v2" }] }),
  ],
  bank: { consensusVersion: 2n, migrations: [{ from: 1n, run: migrateBankV1ToV2 }] },
  upgrades: [
    {
      name: "v2",
      storeUpgrades: {
        added: ["beacon"],
        renamed: [{ oldKey: "notes_v1", newKey: "notes" }],
        deleted: ["legacy"],
      },
      handler: runAllMigrations,
    },
  ],
};

const RELEASES: Record<ReleaseName, Release> = { v1, v2 };

/** The release named `name` (CHAIND_RELEASE); an unknown name is an error listing the known ones. */
export function releaseNamed(name: string | undefined): Release {
  const chosen = name === undefined || name === "" ? DEFAULT_RELEASE : name;
  const release = RELEASES[chosen as ReleaseName];
  if (release === undefined) {
    throw new UserError(`unknown release "${chosen}" (CHAIND_RELEASE): expected one of ${RELEASE_NAMES.join(", ")}`);
  }
  return release;
}
