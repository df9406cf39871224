// A deliberately small module of the reference chain: a store of key → value notes filled from
// genesis. Releases use it to show what store upgrades do to real data: v1's `notes` module keeps
// its data in the store `notes_v1`, which release v2 renames to `notes`; v1's `legacy` module is
// deleted by v2; v2 adds `beacon`, initialised from its default genesis during the upgrade.
import type { JsonValue } from "@bufbuild/protobuf";
import type { AppModule, Context } from "chaind/app";

/** One note: UTF-8 key and value. */
export interface Note {
  key: string;
  value: string;
}

/** Options of notesModule. */
export interface NotesModuleOptions {
  name: string;
  storeKey: string;
  consensusVersion?: bigint;
  /** What the default genesis holds (written when the module is added by an upgrade too). */
  defaultNotes?: Note[];
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function parseNotes(name: string, genesis: JsonValue): Note[] {
  const notes = (genesis as { notes?: unknown } | null)?.notes ?? [];
  if (!Array.isArray(notes)) throw new Error(`${name} genesis: "notes" must be a list of {key, value}`);
  return notes.map((note, i) => {
    const { key, value } = (note ?? {}) as { key?: unknown; value?: unknown };
    if (typeof key !== "string" || key === "" || typeof value !== "string") {
      throw new Error(`${name} genesis: notes[${i}] must be {"key": non-empty string, "value": string}`);
    }
    return { key, value };
  });
}

/** The notes module (see the file comment). */
export function notesModule(options: NotesModuleOptions): AppModule {
  const { name, storeKey } = options;
  return {
    name,
    consensusVersion: options.consensusVersion ?? 1n,
    storeKeys: [storeKey],
    defaultGenesis: () => ({ notes: (options.defaultNotes ?? []).map((n) => ({ ...n })) }),
    validateGenesis: (genesis) => void parseNotes(name, genesis),
    async initGenesis(ctx: Context, genesis: JsonValue) {
      const store = ctx.kvStore(storeKey);
      for (const note of parseNotes(name, genesis)) store.set(encoder.encode(note.key), encoder.encode(note.value));
      return undefined;
    },
    async exportGenesis(ctx: Context) {
      const notes: JsonValue[] = [];
      for await (const [key, value] of ctx.kvStore(storeKey).iterate()) {
        notes.push({ key: decoder.decode(key), value: decoder.decode(value) });
      }
      return { notes };
    },
    registerServices: () => {},
  };
}
