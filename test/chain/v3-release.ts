// A test-only third release of the reference chain, written the way the next real one is (chain/README.md, "Writing
// the next release"): one file, against the package's exports, naming its predecessor and the one upgrade it adds —
// no earlier upgrade repeated: its handler history (v2's handler, which the node's guards still need) comes from
// the line. It lives here, not in chain/, so the shipped chain does not gain it. next-release.test.ts puts it in
// place of chain/'s own v3 and upgrades v2 → v3.
import type { AppModule } from "chaind/app";
import { type Release, withMigrations } from "chaind/runtime";
import type { Upgrade } from "chaind/x/upgrade";
import { notesModule } from "../../chain/modules/notes.ts";
import { v2 } from "../../chain/releases.ts";

const encoder = new TextEncoder();

/** Upgrade "v3": adds the `ledger` store; the default handler runs the migrations (notes 1 → 2, `ledger`'s genesis). */
export const upgradeV3: Upgrade = {
  name: "v3",
  storeUpgrades: { added: ["ledger"], renamed: [], deleted: [] },
};

/** v3: v2's modules with `notes` at consensus version 2 (its migration notes who migrated it) and a new `ledger`. */
export const v3: Release = {
  name: "v3",
  version: "3.0.0",
  upgradesFrom: ["v2"],
  modules: (keepers) => {
    const notes: AppModule = withMigrations(notesModule({ name: "notes", storeKey: "notes" }), {
      consensusVersion: 2n,
      migrations: [
        {
          from: 1n,
          run: async (ctx) => ctx.kvStore("notes").set(encoder.encode("migrated-by"), encoder.encode("v3")),
        },
      ],
    });
    const ledger = notesModule({
      name: "ledger",
      storeKey: "ledger",
      defaultNotes: [{ key: "opened-by", value: "v3" }],
    });
    return [...(v2.modules?.(keepers) ?? []).filter((m) => m.name !== "notes"), notes, ledger];
  },
  upgrade: upgradeV3,
};
