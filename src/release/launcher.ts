// The main script of a single-file release (a Node.js single executable application, docs/RELEASES.md). The file
// is Node itself with this script and two assets injected: `release.json` (the release name, the payload's hash,
// each payload file's size and sha256, and the entry points) and `payload.bin` (the bundled application,
// src/release/payload.ts).
//
// On its first run on a machine it unpacks the payload into a cache directory named after the release and the
// payload's hash (~/.cache/chaind/<release>-<hash>), atomically (a temporary directory renamed into place), then
// imports the entry point from there; later runs check the directory (src/release/cache.ts: the root must be the
// user's alone, the files must be the ones listed in release.json, repaired from the payload when not) and import.
// The native LevelDB addon is one of the unpacked files and is loaded from there by the bundle's own require. One
// file is both programs: it runs chainvisor when invoked under a name that starts with `chainvisor` (a hard link or
// copy named so) or with CHAIND_PROGRAM=chainvisor (the archive's bin/chainvisor script), else chaind.
import { enableCompileCache } from "node:module";
import { homedir, tmpdir } from "node:os";
import { basename, join } from "node:path";
import { getAsset, getRawAsset } from "node:sea";
import { pathToFileURL } from "node:url";
import { CacheUnusableError, type PayloadFileDigest, prepareCache } from "./cache.ts";

/** The content of the `release.json` asset. */
export interface ReleaseManifest {
  /** Baked into CHAIND_RELEASE, as the release's launcher always did. */
  release: string;
  /** Hex sha256 of payload.bin: a new build never reuses an old build's unpacked files. */
  payloadSha256: string;
  /** Every file of the payload with its size and sha256: what the unpacked directory must hold. */
  files: PayloadFileDigest[];
  /** Entry file (relative to the unpacked directory) of each program. */
  entries: { chaind: string; chainvisor: string };
  /** The chain's release variable (absent in releases built before chains named their own: CHAIND_RELEASE). */
  releaseEnv?: string;
}

/** Set by the archive's bin/chainvisor script: run chainvisor whatever the invoked name (read once, then removed). */
export const PROGRAM_VARIABLE = "CHAIND_PROGRAM";

/** Candidate cache roots, best first: CHAIND_CACHE_DIR, XDG_CACHE_HOME/chaind, ~/.cache/chaind, a per-user tmp dir. */
function cacheRoots(): string[] {
  const roots: string[] = [];
  const env = process.env;
  if (env.CHAIND_CACHE_DIR) roots.push(env.CHAIND_CACHE_DIR);
  if (env.XDG_CACHE_HOME) roots.push(join(env.XDG_CACHE_HOME, "chaind"));
  const home = env.HOME || safeHomedir();
  if (home) roots.push(join(home, ".cache", "chaind"));
  roots.push(join(tmpdir(), `chaind-cache-${process.getuid?.() ?? "user"}`));
  return roots;
}

function safeHomedir(): string | undefined {
  try {
    return homedir();
  } catch {
    return undefined;
  }
}

/** Runs chaind or chainvisor from the unpacked files, as the invoked name says. */
async function main(): Promise<void> {
  const manifest = JSON.parse(getAsset("release.json", "utf8")) as ReleaseManifest;
  let dir: string;
  try {
    const prepared = prepareCache({
      roots: cacheRoots(),
      name: `${manifest.release}-${manifest.payloadSha256.slice(0, 16)}`,
      files: manifest.files,
      // The asset in place, in the executable's memory (no copy): only read, its files written from views of it.
      payload: () => new Uint8Array(getRawAsset("payload.bin")),
      uid: process.getuid?.() ?? 0,
    });
    for (const line of prepared.refused) process.stderr.write(`chaind: warning: cache directory ${line}\n`);
    dir = prepared.dir;
  } catch (error) {
    // CacheUnusableError lists every root and why; anything else is a fault of this launcher, said in one line too.
    const text = error instanceof CacheUnusableError ? error.message : `cannot prepare the release: ${error}`;
    process.stderr.write(`chaind: ${text}\n`);
    process.exit(126);
  }
  process.env[manifest.releaseEnv ?? "CHAIND_RELEASE"] = manifest.release;
  // The variable is for this process only: chainvisor's own children (the node) must run as chaind.
  const asChainvisor = process.env[PROGRAM_VARIABLE] === "chainvisor";
  delete process.env[PROGRAM_VARIABLE];
  const program = asChainvisor || basename(process.argv0).startsWith("chainvisor") ? "chainvisor" : "chaind";
  const entry = join(dir, manifest.entries[program]);
  // A single executable's argv is [execPath, invoked name, ...arguments]; the programs read theirs from argv[2...]
  // as under `node <script> ...`, so only argv[1] changes.
  process.argv[1] = entry;
  // V8's compiled code for the bundle, kept beside the unpacked files (so a new build never meets an old
  // build's cache): a warm start then reads the bundle's code instead of parsing several MB of JavaScript.
  enableCompileCache?.(join(dir, ".compile-cache"));
  await import(pathToFileURL(entry).href);
}

void main();
