// The guestbook chain: a chain developer's own chain, built from the chaind package alone. Release v1 runs the
// standard modules plus `guestbook` (store `entries_v1`, consensus version 1); release v2 performs upgrade "v2",
// which renames the store to `guestbook` and migrates the module to version 2; release v3 performs upgrade "v3", a
// stepped migration over every entry. GUESTBOOK_RELEASE picks the release.
import { type ChainDefinition, defineChain, type Release } from "chaind/runtime";
import type { Upgrade } from "chaind/x/upgrade";
import { guestbookCli } from "./client/cli-ref.ts";
import { countCharactersMigration, guestbookModule } from "./modules/guestbook.ts";

/** v1: guestbook at version 1 in store `entries_v1`. */
export const v1: Release = {
  name: "v1",
  version: "1.0.0",
  modules: () => [guestbookModule({ storeKey: "entries_v1", consensusVersion: 1n })],
};

/** Upgrade "v2": the store rename; the default handler runs the guestbook migration 1 → 2. */
export const upgradeV2: Upgrade = {
  name: "v2",
  storeUpgrades: { added: [], renamed: [{ oldKey: "entries_v1", newKey: "guestbook" }], deleted: [] },
  // What the rehearsal (`guestbookd upgrade rehearse v2`, in CI: guestbook-rehearsal.test.ts) checks about it.
  checks: [
    {
      name: "every-signature-migrated",
      // The store loader has already renamed the store when the upgrade's block starts: both sides read `guestbook`.
      before: async (ctx) => {
        const names: string[] = [];
        for await (const [key] of ctx.kvStore("guestbook").iterate()) names.push(new TextDecoder().decode(key));
        return names;
      },
      async after(ctx, before) {
        const left = new Set(before as string[]);
        for await (const [key, value] of ctx.kvStore("guestbook").iterate()) {
          const name = new TextDecoder().decode(key);
          if (!left.delete(name)) throw new Error(`${name} signed after the upgrade, not before`);
          const entry = JSON.parse(new TextDecoder().decode(value)) as { signedIn?: unknown };
          if (entry.signedIn !== "v1") throw new Error(`the signature of ${name} was not migrated from v1`);
        }
        if (left.size > 0) throw new Error(`signatures lost by the upgrade: ${[...left].join(", ")}`);
      },
    },
  ],
};

/** v2: guestbook at version 2 in store `guestbook`; takes a chain over from v1 through upgrade "v2". */
export const v2: Release = {
  name: "v2",
  version: "2.0.0",
  upgradesFrom: ["v1"],
  modules: () => [guestbookModule({ storeKey: "guestbook", consensusVersion: 2n })],
  upgrade: upgradeV2,
};

/**
 * Upgrade "v3": no store or version change; a stepped migration adds each entry's character count, two entries a
 * block after the upgrade's block (x/upgrade "Stepped migrations").
 */
export const upgradeV3: Upgrade = {
  name: "v3",
  steppedMigrations: [countCharactersMigration("guestbook")],
};

/** v3: v2's module; performs upgrade "v3". */
export const v3: Release = {
  name: "v3",
  version: "3.0.0",
  upgradesFrom: ["v2"],
  modules: () => [guestbookModule({ storeKey: "guestbook", consensusVersion: 2n })],
  upgrade: upgradeV3,
};

/** The chain: binary `guestbookd`, releases v1, v2 and v3. */
export const guestbookChain: ChainDefinition = defineChain({
  name: "guestbookd",
  releases: [v1, v2, v3],
  defaultRelease: "v1",
  releaseEnv: "GUESTBOOK_RELEASE",
  // The guestbook's `query`/`tx` commands and its types for the CLI (client/cli-ref.ts).
  moduleClis: [guestbookCli],
});
