// Release v3 of the reference chain and the upgrade it performs: it adds the `holders` store and a stepped migration
// that fills it from every balance record, 2,000 records a block after the upgrade's block, instead of one long
// block at the plan's height (x/upgrade "Stepped migrations"). Written only against the package's exports.
import type { Release } from "chaind/runtime";
import type { Upgrade } from "chaind/x/upgrade";
import { declaredRelease } from "../manifest.ts";
import { HOLDERS_STORE, holdersIndexMigration, holdersModule } from "../migrations/holders-v3.ts";
import { v2 } from "../releases.ts";

/** Upgrade "v3": adds `holders` (empty), then indexes every balance in it across blocks (module bank waits). */
export const upgradeV3: Upgrade = {
  name: "v3",
  storeUpgrades: { added: [HOLDERS_STORE], renamed: [], deleted: [] },
  steppedMigrations: [holdersIndexMigration()],
};

/**
 * v3: v2's modules (bank at consensus version 2, `notes`, `beacon`) and `holders`; entered from v2 by upgrade v3, the
 * only upgrade it names (v2's handler, which the chain's history still needs, comes from its line, `upgradesFrom`).
 */
export const v3: Release = {
  ...declaredRelease("v3"),
  upgradesFrom: ["v2"],
  modules: (keepers) => [...(v2.modules?.(keepers) ?? []), holdersModule()],
  upgrade: upgradeV3,
};
