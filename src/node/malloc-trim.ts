// glibc's malloc_trim(0) through our own Node-API addon (addons/malloc-trim/malloc-trim.c), for the heap governor
// to call after its memory-reducing GC: V8 gives its heap pages back by itself, but the free memory a load leaves
// inside glibc's malloc arenas (V8's compiler zones, ~16 MiB after the memory bench's mixed load) stays resident
// until malloc_trim runs (docs/PERFORMANCE.md, "Node RSS after the mixed load: what stays resident"). `npm run
// build` compiles the addon into dist/ (scripts/malloc-trim-addon.ts); where it was not built (no compiler, not
// glibc) or does not load, there is no trim and the node runs as before.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Set to `off` to leave the addon unloaded (for comparisons, or should it misbehave). */
export const MALLOC_TRIM_ENV = "CHAIND_MALLOC_TRIM";

/** The addon's file relative to dist/ (where `npm run build` writes it) and to the single-file release's bundle. */
export const MALLOC_TRIM_ADDON = join("native", "malloc-trim.node");

/** Gives glibc's free malloc memory back to the OS; true when any was. */
export type MallocTrim = () => boolean;

let loaded: { trim: MallocTrim | undefined; problem: string | undefined } | undefined;

/** The addon's trim, loaded on first use; undefined when it is off, not built or does not load. */
export function mallocTrim(): MallocTrim | undefined {
  loaded ??= load();
  return loaded.trim;
}

/** Why there is no trim (undefined when there is). */
export function mallocTrimProblem(): string | undefined {
  loaded ??= load();
  return loaded.problem;
}

/** Loads the addon at `file`; throws when it does not load or is not ours. */
export function loadMallocTrimAddon(file: string): MallocTrim {
  const addon = createRequire(import.meta.url)(file) as { trim?: unknown };
  const trim = addon.trim;
  if (typeof trim !== "function") throw new Error(`${file} has no trim()`);
  return () => trim() === true;
}

function load(): { trim: MallocTrim | undefined; problem: string | undefined } {
  if (process.env[MALLOC_TRIM_ENV] === "off") return { trim: undefined, problem: `${MALLOC_TRIM_ENV}=off` };
  const file = addonCandidates().find((candidate) => existsSync(candidate));
  if (file === undefined) return { trim: undefined, problem: "the malloc-trim addon was not built (npm run build)" };
  try {
    return { trim: loadMallocTrimAddon(file), problem: undefined };
  } catch (err) {
    return { trim: undefined, problem: `${file} did not load (${(err as Error).message})` };
  }
}

/** Where the addon may be, relative to this module: the bundle's, dist/'s (compiled), the checkout's dist/ (sources). */
function addonCandidates(): string[] {
  const here = dirname(fileURLToPath(import.meta.url));
  return [
    join(here, MALLOC_TRIM_ADDON), // the single-file release: the bundle's chunks sit beside native/
    join(here, "..", "..", MALLOC_TRIM_ADDON), // dist/src/node/malloc-trim.js → dist/native/
    join(here, "..", "..", "dist", MALLOC_TRIM_ADDON), // src/node/malloc-trim.ts → <checkout>/dist/native/
  ];
}
