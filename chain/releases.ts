// The releases of the reference chain, all built from this one tree. A release archive fixes its release through
// CHAIND_RELEASE (scripts/release.ts writes it into bin/chaind); a source checkout runs v1 unless told otherwise, so
// a plan scheduled on a development chain halts it at the plan's height exactly as the seed describes, ready for a
// v2 release to take over. Written only against the package's exports, as a chain developer's own chain would be.
import { type Release, withMigrations } from "chaind/runtime";
import { bankModule } from "chaind/x/bank";
import { enableVoteExtensions, type Upgrade } from "chaind/x/upgrade";
import { declaredRelease } from "./manifest.ts";
import { migrateBankV1ToV2 } from "./migrations/bank-v2.ts";
import { notesModule } from "./modules/notes.ts";
import { upgradeV2Checks } from "./upgrade-checks.ts";

// Each release's name and version are declared once, in the light manifest the entry point reads (manifest.ts).
export { DEFAULT_RELEASE, RELEASE_NAMES, type ReleaseName } from "./manifest.ts";

/** v1: the standard modules (bank at consensus version 1), `notes` in store `notes_v1`, and `legacy`. */
export const v1: Release = {
  ...declaredRelease("v1"),
  modules: () => [
    notesModule({ name: "notes", storeKey: "notes_v1" }),
    notesModule({ name: "legacy", storeKey: "legacy" }),
  ],
};

/** Upgrade "v2": adds `beacon`, renames `notes_v1` → `notes`, deletes `legacy`, runs every module's migrations. */
export const upgradeV2: Upgrade = {
  name: "v2",
  storeUpgrades: {
    added: ["beacon"],
    renamed: [{ oldKey: "notes_v1", newKey: "notes" }],
    deleted: ["legacy"],
  },
  // Every module's migrations (bank 1 → 2; `beacon` is new, so its default genesis), then vote extensions on from
  // the next block for a chain started without them, so its validators signal readiness for the next plan; a chain
  // made by `chaind init` has them from height 1 and this changes nothing there.
  handler: async (ctx, _plan, fromVM, migrator) => {
    const versions = await migrator.runMigrations(ctx, fromVM);
    await enableVoteExtensions(ctx);
    return versions;
  },
  // Checks the rehearsal runs (`chaind upgrade rehearse v2`): supply unchanged, every note moved.
  checks: upgradeV2Checks,
};

/**
 * v2: bank at consensus version 2 with its migration, `notes` in store `notes`, `beacon`; entered from v1 by upgrade
 * v2, the only upgrade it names (the handlers of any earlier ones come from its line, `upgradesFrom`).
 */
export const v2: Release = {
  ...declaredRelease("v2"),
  upgradesFrom: ["v1"],
  modules: ({ bankKeeper }) => [
    withMigrations(bankModule(bankKeeper), {
      consensusVersion: 2n,
      migrations: [{ from: 1n, run: (ctx) => migrateBankV1ToV2(ctx, bankKeeper) }],
    }),
    notesModule({ name: "notes", storeKey: "notes" }),
    notesModule({ name: "beacon", storeKey: "beacon", defaultNotes: [{ key: "release", value: "v2" }] }),
  ],
  upgrade: upgradeV2,
};
