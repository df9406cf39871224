// The directory layout under DAEMON_HOME and the operations on it: name normalisation, the binary checks and the
// atomic switch of the `current` link.
import { randomBytes } from "node:crypto";
import { chmod, lstat, readlink, rename, rm, stat, symlink } from "node:fs/promises";
import { basename, isAbsolute, join, relative, resolve, sep } from "node:path";
import { ROOT_DIR_NAME } from "./config.ts";
import { errorCode, goPathError, VisorError } from "./errors.ts";

/** Every path chainvisor uses, derived from DAEMON_HOME and DAEMON_NAME. */
export interface Layout {
  home: string;
  name: string;
  /** `<home>/chainvisor` */
  root: string;
  /** `<root>/genesis` */
  genesisDir: string;
  /** `<root>/upgrades` */
  upgradesDir: string;
  /** `<root>/current`, a relative symbolic link to `genesis` or `upgrades/<dir>` */
  currentLink: string;
  /** `<home>/data` */
  dataDir: string;
  /** `<home>/data/upgrade-info.json`, written by the node when it halts for an upgrade */
  upgradeInfoFile: string;
}

/** The layout for a home and executable name. */
export function visorLayout(home: string, name: string): Layout {
  const root = join(home, ROOT_DIR_NAME);
  return {
    home,
    name,
    root,
    genesisDir: join(root, "genesis"),
    upgradesDir: join(root, "upgrades"),
    currentLink: join(root, "current"),
    dataDir: join(home, "data"),
    upgradeInfoFile: join(home, "data", "upgrade-info.json"),
  };
}

/**
 * The directory name of an upgrade: the plan name lower-cased, then escaped like a URL path segment (as cosmovisor
 * does: `some spaces` becomes `some%20spaces`, `/` becomes `%2F`). Names that could escape `upgrades/` or collide
 * with chainvisor's hidden work directories are refused.
 * @example upgradeDirName("MyUpgrade") === "myupgrade"
 */
export function upgradeDirName(planName: string): string {
  const escaped = escapePathSegment(planName.toLowerCase());
  if (escaped === "") throw new VisorError("upgrade name cannot be empty");
  if (escaped.startsWith(".")) {
    throw new VisorError(`upgrade name "${planName}" cannot be used as a directory name: it must not start with "."`);
  }
  if (escaped.length > MAX_DIR_NAME_BYTES) {
    const shown = planName.length > 40 ? `${planName.slice(0, 40)}...` : planName;
    throw new VisorError(
      `upgrade name "${shown}" (${planName.length} characters) cannot be used as a directory name: it becomes ${escaped.length} bytes, and a file name holds at most ${MAX_DIR_NAME_BYTES}`,
      {
        details: [
          "the chain cannot be upgraded by chainvisor or cosmovisor under this plan name; schedule a shorter one",
        ],
      },
    );
  }
  return escaped;
}

/** NAME_MAX of Linux file systems (ext4, xfs, btrfs): the longest single path component, in bytes. */
export const MAX_DIR_NAME_BYTES = 255;

// Go's url.PathEscape: letters, digits, "-_.~" and "$&+:=@" stay, every other UTF-8 byte becomes %XX.
function escapePathSegment(text: string): string {
  let out = "";
  for (const byte of new TextEncoder().encode(text)) {
    const c = String.fromCharCode(byte);
    if (/^[A-Za-z0-9\-_.~$&+:=@]$/.test(c)) out += c;
    else out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** `<root>/upgrades/<dir name>` for a plan name. */
export function upgradeDir(layout: Layout, planName: string): string {
  return join(layout.upgradesDir, upgradeDirName(planName));
}

/** `<dir>/bin/<name>`: the executable inside a release directory. */
export function releaseBinary(layout: Layout, releaseDir: string): string {
  return join(releaseDir, "bin", layout.name);
}

/**
 * Checks that a release executable exists and is a regular file, and adds the execute bits if any is missing
 * (cosmovisor's "ensure binary"). Throws a {@link VisorError} saying what is wrong.
 */
export async function ensureBinary(path: string): Promise<void> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch (error) {
    throw new VisorError(goPathError("stat", path, error), { cause: error });
  }
  if (!info.isFile()) throw new VisorError(`${basename(path)} is not a regular file`);
  if ((info.mode & 0o111) !== 0o111) await chmod(path, info.mode | 0o111);
}

/** Whether a release directory holds a usable executable (never throws). */
export async function hasBinary(layout: Layout, releaseDir: string): Promise<boolean> {
  try {
    await ensureBinary(releaseBinary(layout, releaseDir));
    return true;
  } catch {
    return false;
  }
}

/** The release `current` points at. */
export interface CurrentRelease {
  /** `genesis`, or the upgrade's directory name under `upgrades/`. */
  label: string;
  /** The link's target as written (relative to the root). */
  target: string;
  /** Absolute path of the release directory. */
  dir: string;
  /** Absolute path of the release's executable. */
  binary: string;
}

/**
 * Reads the `current` link. When it is missing it is created pointing at `genesis` (as cosmovisor does) unless
 * `create` is false, in which case genesis is reported without touching anything.
 */
export async function readCurrentRelease(layout: Layout, create = true): Promise<CurrentRelease> {
  let target: string;
  try {
    const info = await lstat(layout.currentLink);
    if (!info.isSymbolicLink()) {
      throw new VisorError(`${layout.currentLink} exists and is not a symbolic link`, {
        details: ["chainvisor manages this link itself; move the file away and start again"],
      });
    }
    target = await readlink(layout.currentLink);
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw error;
    if (create) await switchCurrent(layout, GENESIS_TARGET);
    target = GENESIS_TARGET;
  }
  // An absolute target (cosmovisor writes its links absolute; an operator may too) is taken as it is: joined to
  // the root, "/x/upgrades/v2" became "<root>/x/upgrades/v2" and was reported missing though it exists.
  const dir = resolve(layout.root, target);
  try {
    await stat(dir);
  } catch (error) {
    throw new VisorError(`${layout.currentLink} points to ${target}, which does not exist`, { cause: error });
  }
  const inRoot = relative(layout.root, dir);
  const name = inRoot !== "" && !inRoot.startsWith("..") && !isAbsolute(inRoot) ? inRoot.split(sep).join("/") : target;
  const label = name.startsWith(UPGRADES_PREFIX) ? name.slice(UPGRADES_PREFIX.length) : name;
  return { label, target, dir, binary: releaseBinary(layout, dir) };
}

const UPGRADES_PREFIX = "upgrades/";

/** The `current` link target of the genesis release. */
export const GENESIS_TARGET = "genesis";

/** The `current` link target of an upgrade, from its directory name. */
export function upgradeTarget(dirName: string): string {
  return UPGRADES_PREFIX + dirName;
}

/**
 * Points `current` at `target` (`genesis` or `upgrades/<dir>`) atomically: a new link is made under a temporary name
 * and renamed over the old one, so there is no moment without a valid `current` (cosmovisor removes, then creates).
 * The link is relative so a home mounted elsewhere (containers) keeps working.
 */
export async function switchCurrent(layout: Layout, target: string): Promise<void> {
  const temporary = `${layout.currentLink}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
  await symlink(target, temporary);
  try {
    await rename(temporary, layout.currentLink);
  } catch (error) {
    await rm(temporary, { force: true });
    throw new VisorError(`could not switch ${layout.currentLink} to ${target}`, { cause: error });
  }
}
