// Which compiled tree a release archive is packed from. CI runs `npm run build` before the tests, so dist/ is
// current and used as it is. In a working tree where sources changed after the last build, dist/ is stale; rather
// than rewrite dist/ under everyone else's feet, the tree is compiled into a private copy of the project (its own
// dist/, the same package.json, lock file and node_modules) and packed from there.
import { spawn } from "node:child_process";
import { cp, mkdir, readdir, stat, symlink } from "node:fs/promises";
import { join, resolve } from "node:path";
import { completeDist } from "../../../scripts/dist-manifest.ts";
import { buildMallocTrimAddon } from "../../../scripts/malloc-trim-addon.ts";
import { MALLOC_TRIM_ADDON } from "../../../src/node/malloc-trim.ts";

/** The repository root. */
export const PROJECT = resolve(import.meta.dirname, "..", "..", "..");

/** The compiled entry point whose age decides whether dist/ is current. */
const ENTRY = join("dist", "chain", "cmd", "chaind.js");

/** Newest modification time (ms) of the files under `dir` that end with one of `suffixes`. */
async function newestSource(dir: string, suffixes: string[]): Promise<number> {
  let newest = 0;
  let entries: import("node:fs").Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, await newestSource(path, suffixes));
    else if (suffixes.some((s) => entry.name.endsWith(s)) && !entry.name.endsWith(".test.ts")) {
      newest = Math.max(newest, (await stat(path)).mtimeMs);
    }
  }
  return newest;
}

/** Whether dist/ exists, holds proto/, and is at least as new as every source file it is compiled from. */
export async function distIsCurrent(): Promise<boolean> {
  let built: number;
  try {
    built = (await stat(join(PROJECT, ENTRY))).mtimeMs;
  } catch {
    return false;
  }
  const sources = Math.max(
    await newestSource(join(PROJECT, "src"), [".ts", ".js"]),
    await newestSource(join(PROJECT, "chain"), [".ts"]),
    await newestSource(join(PROJECT, "proto"), [".proto"]),
  );
  // A dist/ built before the package shipped its .proto files is not current either.
  const withProtos = await stat(join(PROJECT, "dist", "proto")).then(
    () => true,
    () => false,
  );
  return withProtos && sources <= built;
}

/**
 * The project root to pack: this repository when dist/ is current, else a copy under `workDir` compiled afresh
 * (tsc's type errors in files under construction elsewhere do not stop it, as long as the entry point is emitted).
 */
export async function projectToPackage(workDir: string): Promise<string> {
  if (await distIsCurrent()) return PROJECT;
  const copy = join(workDir, "project");
  await mkdir(copy, { recursive: true });
  for (const file of ["package.json", "package-lock.json"]) await cp(join(PROJECT, file), join(copy, file));
  await symlink(join(PROJECT, "node_modules"), join(copy, "node_modules"));
  const tsc = join(PROJECT, "node_modules", ".bin", "tsc");
  const output = await new Promise<string>((done) => {
    const child = spawn(tsc, ["-p", join(PROJECT, "tsconfig.build.json"), "--outDir", join(copy, "dist")], {
      cwd: PROJECT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let text = "";
    child.stdout.on("data", (c: Buffer) => {
      text += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      text += c.toString();
    });
    child.on("close", () => done(text));
  });
  try {
    await stat(join(copy, ENTRY));
  } catch (cause) {
    throw new Error(`compiling the tree into ${copy} did not produce ${ENTRY}:\n${output}`, { cause });
  }
  completeDist(PROJECT, join(copy, "dist"));
  // As `npm run build` does: the malloc-trim addon where it can be compiled, so the release carries it.
  buildMallocTrimAddon(PROJECT, join(copy, "dist", MALLOC_TRIM_ADDON));
  return copy;
}
