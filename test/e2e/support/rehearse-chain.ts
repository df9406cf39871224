// A chain for the rehearsal tests: v1 runs the standard modules plus `notes` (store `notes`); v2 performs upgrade
// "v2", whose handler carries one of the faults a rehearsal must catch, chosen by REHEARSE_FAULT (read when the
// handler runs, so the rehearsal's second process — which inherits the environment — has the same fault):
// - clock: writes Date.now() into state;  random: numbers items in Math.random() order;
// - locale: writes a number formatted with the process's locale;
// - after: deletes a note, which the upgrade's `notes-kept` check catches;
// - send-disabled: turns bank sends off, so followed blocks' sends fail under the new rules.
// Unset: a clean upgrade. The entry point is rehearse-chaind.ts (release by REHEARSE_RELEASE, default v1).
import { create, toBinary } from "@bufbuild/protobuf";
import { notesModule } from "../../../chain/modules/notes.ts";
import type { Context } from "../../../src/app/context.ts";
import { ParamsSchema } from "../../../src/gen/chain/bank/v1beta1/bank_pb.js";
import { type ChainDefinition, defineChain, type Release } from "../../../src/runtime/release.ts";
import { BANK_STORE_KEY, PARAMS_KEY } from "../../../src/x/bank/keys.ts";
import type { Upgrade } from "../../../src/x/upgrade/install.ts";

const utf8 = (text: string) => new TextEncoder().encode(text);
const notes = (ctx: Context) => ctx.kvStore("notes");

async function countNotes(ctx: Context): Promise<number> {
  let count = 0;
  for await (const _entry of notes(ctx).iterate()) count++;
  return count;
}

const modules = () => [
  notesModule({ name: "notes", storeKey: "notes", defaultNotes: [{ key: "welcome", value: "hello" }] }),
];

const upgradeV2: Upgrade = {
  name: "v2",
  async handler(ctx, _plan, fromVM, migrator) {
    const versions = await migrator.runMigrations(ctx, fromVM);
    const fault = process.env.REHEARSE_FAULT ?? "";
    if (fault === "clock") notes(ctx).set(utf8("upgraded-at"), utf8(String(Date.now())));
    if (fault === "random") {
      // Twelve items: the chance that both runs shuffle them alike is one in 479 million.
      const items = "abcdefghijkl".split("").sort(() => Math.random() - 0.5);
      for (const [index, item] of items.entries()) notes(ctx).set(utf8(`item-${index}`), utf8(item));
    }
    if (fault === "locale") notes(ctx).set(utf8("total"), utf8((1234567.5).toLocaleString()));
    if (fault === "after") notes(ctx).delete(utf8("welcome"));
    if (fault === "send-disabled") {
      ctx
        .kvStore(BANK_STORE_KEY)
        .set(PARAMS_KEY, toBinary(ParamsSchema, create(ParamsSchema, { defaultSendEnabled: false })));
    }
    return versions;
  },
  checks: [
    {
      name: "notes-kept",
      before: countNotes,
      async after(ctx, before) {
        const now = await countNotes(ctx);
        if (now < (before as number)) throw new Error(`${before} notes before the upgrade, ${now} after`);
      },
    },
  ],
};

const v1: Release = { name: "v1", version: "1.0.0", modules };
const v2: Release = { name: "v2", version: "2.0.0", upgradesFrom: ["v1"], modules, upgrade: upgradeV2 };

/** The chain: binary `rehearsed`, releases v1 and v2. */
export const rehearseChain: ChainDefinition = defineChain({
  name: "rehearsed",
  releases: [v1, v2],
  defaultRelease: "v1",
  releaseEnv: "REHEARSE_RELEASE",
});
