// Store upgrades (add, rename, delete whole stores) checked against the stores on disk and the
// stores the app declares. Only names change: a renamed store keeps its store id, so its rows,
// its tree and its history stay where they are; a deleted store's id is queued for reclamation.
import { StoreUpgradeError } from "./errors.ts";
import type { DeletedStore, StoreRegistry } from "./records.ts";
import type { StoreUpgrades } from "./types.ts";

/** The registry the next commit will write, and which store ids became garbage. */
export interface PlannedStores {
  registry: StoreRegistry;
  /** Store ids deleted by this plan (to reclaim after the commit). */
  deletedSids: number[];
  /** Store ids created by this plan (new, empty). */
  addedSids: number[];
  /** True when the registry differs from the one on disk. */
  changed: boolean;
}

function checkName(name: unknown, where: string): string {
  if (typeof name !== "string" || name.length === 0) {
    throw new StoreUpgradeError(`${where}: store names must be non-empty strings, got ${JSON.stringify(name)}`);
  }
  return name;
}

function hasAny(u: StoreUpgrades | undefined): boolean {
  return u !== undefined && (u.added.length > 0 || u.renamed.length > 0 || u.deleted.length > 0);
}

/**
 * Applies `upgrades` to the registry on disk and checks the result against `declared`.
 * `version` is the version the changes take effect at (the next commit).
 */
export function planStores(
  current: StoreRegistry,
  declared: string[],
  upgrades: StoreUpgrades | undefined,
  version: number,
  fresh: boolean,
): PlannedStores {
  const seen = new Set<string>();
  for (const name of declared) {
    checkName(name, "storeNames");
    if (seen.has(name)) throw new StoreUpgradeError(`storeNames: store "${name}" is declared twice`);
    seen.add(name);
  }
  const byName = new Map(current.mounted.map((m) => [m.name, m.sid]));
  let nextSid = current.nextSid;
  const deleted: DeletedStore[] = [...current.deleted];
  const deletedSids: number[] = [];
  const addedSids: number[] = [];

  if (hasAny(upgrades) && upgrades !== undefined) {
    for (const list of ["added", "renamed", "deleted"] as const) {
      if (!Array.isArray(upgrades[list])) throw new StoreUpgradeError(`store upgrades: "${list}" must be a list`);
    }
    const touched = new Set<string>();
    const touch = (name: string, where: string): void => {
      if (touched.has(name))
        throw new StoreUpgradeError(`${where}: store "${name}" appears more than once in the upgrade`);
      touched.add(name);
    };
    const before = new Map(byName);
    for (const r of upgrades.renamed) {
      const oldKey = checkName(r?.oldKey, "store upgrades renamed oldKey");
      const newKey = checkName(r?.newKey, "store upgrades renamed newKey");
      touch(oldKey, "store upgrades renamed");
      touch(newKey, "store upgrades renamed");
      const sid = before.get(oldKey);
      if (sid === undefined) {
        throw new StoreUpgradeError(
          `store upgrades: cannot rename "${oldKey}" to "${newKey}": there is no store "${oldKey}"`,
        );
      }
      if (before.has(newKey)) {
        throw new StoreUpgradeError(
          `store upgrades: cannot rename "${oldKey}" to "${newKey}": store "${newKey}" already exists`,
        );
      }
      byName.delete(oldKey);
      byName.set(newKey, sid);
    }
    for (const d of upgrades.deleted) {
      const name = checkName(d, "store upgrades deleted");
      touch(name, "store upgrades deleted");
      const sid = before.get(name);
      if (sid === undefined)
        throw new StoreUpgradeError(`store upgrades: cannot delete "${name}": there is no such store`);
      byName.delete(name);
      deleted.push({ sid, name, version });
      deletedSids.push(sid);
    }
    const renamedNames = new Set(upgrades.renamed.flatMap((r) => [r.oldKey, r.newKey]));
    const addedSeen = new Set<string>();
    for (const a of upgrades.added) {
      const name = checkName(a, "store upgrades added");
      if (addedSeen.has(name)) throw new StoreUpgradeError(`store upgrades added: store "${name}" is listed twice`);
      addedSeen.add(name);
      if (renamedNames.has(name)) {
        throw new StoreUpgradeError(`store upgrades: store "${name}" is both renamed and added`);
      }
      if (byName.has(name)) {
        // On a fresh state every declared store is created anyway, so "added" is harmless there.
        if (fresh) continue;
        throw new StoreUpgradeError(`store upgrades: cannot add "${name}": the store already exists`);
      }
      const sid = nextSid++;
      byName.set(name, sid);
      addedSids.push(sid);
    }
  }

  if (fresh) {
    for (const name of declared) {
      if (!byName.has(name)) {
        const sid = nextSid++;
        byName.set(name, sid);
        addedSids.push(sid);
      }
    }
  }

  // A store this upgrade adds or renames into must be one the app declares: say so in the upgrade's own terms
  // rather than as a store "the state has" (it does not yet).
  if (upgrades !== undefined && hasAny(upgrades)) {
    const declaredList = declared.map((n) => `"${n}"`).join(", ");
    for (const name of upgrades.added) {
      if (!seen.has(name)) {
        throw new StoreUpgradeError(
          `store upgrades: cannot add "${name}": the app does not declare a store "${name}" (it declares ${declaredList})`,
        );
      }
    }
    for (const { oldKey, newKey } of upgrades.renamed) {
      if (!seen.has(newKey)) {
        throw new StoreUpgradeError(
          `store upgrades: cannot rename "${oldKey}" to "${newKey}": the app does not declare a store "${newKey}" (it declares ${declaredList})`,
        );
      }
    }
  }
  const missing = declared.filter((n) => !byName.has(n));
  if (missing.length > 0) {
    throw new StoreUpgradeError(
      `the app declares store(s) ${missing.map((n) => `"${n}"`).join(", ")} that the state at version ${version - 1} does not have; add them with StoreUpgrades.added at an upgrade height`,
    );
  }
  const extra = [...byName.keys()].filter((n) => !seen.has(n));
  if (extra.length > 0) {
    throw new StoreUpgradeError(
      `the state at version ${version - 1} has store(s) ${extra.map((n) => `"${n}"`).join(", ")} that the app does not declare; delete or rename them with StoreUpgrades at an upgrade height`,
    );
  }
  const mounted = [...byName].map(([name, sid]) => ({ name, sid })).sort((a, b) => (a.name < b.name ? -1 : 1));
  const changed = fresh || deletedSids.length > 0 || addedSids.length > 0 || (upgrades?.renamed.length ?? 0) > 0;
  return { registry: { nextSid, mounted, deleted }, deletedSids, addedSids, changed };
}
