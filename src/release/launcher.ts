// The main script of a single-file release (a Node.js single executable application, docs/RELEASES.md). The file
// is Node itself with this script and two assets injected: `release.json` (the release name, the payload's hash
// and the entry points) and `payload.gz` (the bundled application, src/release/payload.ts).
//
// On its first run on a machine it unpacks the payload into a cache directory named after the release and the
// payload's hash (~/.cache/chaind/<release>-<hash>), atomically (a temporary directory renamed into place), then
// imports the entry point from there; later runs find the directory and import at once. The native LevelDB addon is
// one of the unpacked files and is loaded from there by the bundle's own require. One file is both programs: it runs
// chainvisor when invoked under a name that starts with `chainvisor` (a hard link or copy named so), else chaind.
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { enableCompileCache } from "node:module";
import { homedir, tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { getAsset } from "node:sea";
import { pathToFileURL } from "node:url";
import { unpackPayload } from "./payload.ts";

/** The content of the `release.json` asset. */
export interface ReleaseManifest {
  /** Baked into CHAIND_RELEASE, as the release's launcher always did. */
  release: string;
  /** Hex sha256 of payload.gz: a new build never reuses an old build's unpacked files. */
  payloadSha256: string;
  /** Entry file (relative to the unpacked directory) of each program. */
  entries: { chaind: string; chainvisor: string };
}

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

/** The unpacked application's directory, unpacking it first when no earlier run did. */
function unpackedDirectory(manifest: ReleaseManifest): string {
  const name = `${manifest.release}-${manifest.payloadSha256.slice(0, 16)}`;
  const problems: string[] = [];
  for (const root of cacheRoots()) {
    const target = join(root, name);
    if (existsSync(join(target, "package.json"))) return target;
    const temporary = join(root, `.${name}.${process.pid}-${randomBytes(4).toString("hex")}`);
    try {
      mkdirSync(root, { recursive: true, mode: 0o700 });
      for (const file of unpackPayload(new Uint8Array(getAsset("payload.gz")))) {
        const path = join(temporary, file.path);
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, file.data, { mode: file.mode });
        chmodSync(path, file.mode);
      }
      try {
        renameSync(temporary, target);
      } catch (error) {
        // Another run unpacked the same files first: use theirs.
        if (!existsSync(join(target, "package.json"))) throw error;
      }
      return target;
    } catch (error) {
      problems.push(`${root}: ${(error as Error).message}`);
    } finally {
      rmSync(temporary, { recursive: true, force: true });
    }
  }
  throw new Error(
    `cannot unpack the release into any cache directory (set CHAIND_CACHE_DIR):\n  ${problems.join("\n  ")}`,
  );
}

/** Runs chaind or chainvisor from the unpacked files, as the invoked name says. */
async function main(): Promise<void> {
  const manifest = JSON.parse(getAsset("release.json", "utf8")) as ReleaseManifest;
  let dir: string;
  try {
    dir = unpackedDirectory(manifest);
  } catch (error) {
    process.stderr.write(`chaind: ${(error as Error).message}\n`);
    process.exit(126);
  }
  process.env.CHAIND_RELEASE = manifest.release;
  const program = basename(process.argv0).startsWith("chainvisor") ? "chainvisor" : "chaind";
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
