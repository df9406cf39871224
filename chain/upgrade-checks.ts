// The checks upgrade "v2" declares about itself (`chaind upgrade rehearse v2` runs them; the node never does):
// the migration must not change any denom's supply, and the notes moved by the store rename must all arrive.
// Read through the stores directly, as a chain's checks may: they see the state before and after the upgrade.
import type { Context } from "chaind/app";
import type { UpgradeCheck } from "chaind/x/upgrade";

const decoder = new TextDecoder();

async function supplies(ctx: Context): Promise<string> {
  const out: string[] = [];
  // Bank store layout: 0x00 ‖ denom → supply.
  for await (const [key, value] of ctx.kvStore("bank").iterate({ prefix: new Uint8Array([0]) })) {
    out.push(`${decoder.decode(value)}${decoder.decode(key.subarray(1))}`);
  }
  return out.join(",");
}

async function noteCount(ctx: Context): Promise<number> {
  let count = 0;
  // The store loader has renamed notes_v1 to notes before the upgrade's block: both sides read "notes".
  for await (const _entry of ctx.kvStore("notes").iterate()) count++;
  return count;
}

/** `supply-unchanged` and `notes-kept`. */
export const upgradeV2Checks: UpgradeCheck[] = [
  {
    name: "supply-unchanged",
    before: supplies,
    async after(ctx, before) {
      const now = await supplies(ctx);
      if (now !== before) throw new Error(`the total supply changed: ${before} before, ${now} after`);
    },
  },
  {
    name: "notes-kept",
    before: noteCount,
    async after(ctx, before) {
      const now = await noteCount(ctx);
      if (now !== before) throw new Error(`${before} notes before the upgrade, ${now} after`);
    },
  },
];
