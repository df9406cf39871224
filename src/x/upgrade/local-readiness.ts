// Whether THIS node could run a plan now, for its vote extension (readiness-record.ts). Two ways to be ready:
// (a) the binary carries the plan's upgrade (a handler for it, or a later release of its release line), or
// (b) it runs under a supervisor (DAEMON_HOME and DAEMON_NAME set, as chainvisor and cosmovisor set them) and the
//     plan's release is staged at $DAEMON_HOME/cosmovisor/upgrades/<plan directory>/bin/$DAEMON_NAME (or, as
//     chainvisor lays it out, under $DAEMON_HOME/chainvisor/), executable,
//     and its digest matches the plan Info's checksum for this platform when the Info gives one for a bare binary.
// An Info URL that names an archive carries the archive's digest, which says nothing about the extracted binary: the
// supervisor checked it when it downloaded; here only the presence of an executable counts. The node shares no code
// with chainvisor (a sidecar), so the few rules read here are kept as small local copies.
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { access, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { upgradeDirectoryName } from "./plan-name-directory.ts";
import { NOT_READY, READINESS_MAX_PLAN_NAME_BYTES, type ReadinessRecord } from "./readiness-record.ts";

/** What {@link localReadiness} looks at. */
export interface LocalReadinessInput {
  /** The scheduled plan's name and Info; undefined when no plan is scheduled. */
  plan: { name: string; info: string } | undefined;
  /** True when this binary carries the upgrade `name`. */
  carries: (name: string) => boolean;
  /** The process environment (DAEMON_HOME, DAEMON_NAME). */
  env: Readonly<Record<string, string | undefined>>;
  /** `<os>/<arch>` in Go's names; default this machine's. */
  platform?: string;
}

// Hashing a release of tens of megabytes at every precommit would cost more than the block: the verdict is kept
// per file state (path, size, modification time, expected digest) and recomputed only when one of them changes.
const stagedVerdicts = new Map<string, boolean>();

/**
 * The record this node signals.
 *
 * @example
 * await localReadiness({ plan: { name: "v2", info: "" }, carries: (n) => keeper.hasHandler(n), env: process.env })
 * // { plan: "v2", binary: false, staged: true } when chainvisor staged upgrades/v2/bin/chaind
 */
export async function localReadiness(input: LocalReadinessInput): Promise<ReadinessRecord> {
  const plan = input.plan;
  if (plan === undefined || plan.name === "") return NOT_READY;
  if (new TextEncoder().encode(plan.name).length > READINESS_MAX_PLAN_NAME_BYTES) return NOT_READY;
  const binary = input.carries(plan.name);
  const staged = await stagedReleaseReady(plan, input.env, input.platform ?? goPlatform());
  if (!binary && !staged) return NOT_READY;
  return { plan: plan.name, binary, staged };
}

/**
 * The staged executable's path for `planName` under cosmovisor's layout (`root` "cosmovisor", the default) or
 * chainvisor's (`root` "chainvisor"), or undefined when the node does not run under a supervisor.
 */
export function stagedReleasePath(
  planName: string,
  env: Readonly<Record<string, string | undefined>>,
  root: "cosmovisor" | "chainvisor" = "cosmovisor",
): string | undefined {
  const home = env.DAEMON_HOME;
  const name = env.DAEMON_NAME;
  if (home === undefined || home === "" || name === undefined || name === "") return undefined;
  return join(home, root, "upgrades", upgradeDirectoryName(planName), "bin", name);
}

async function stagedReleaseReady(
  plan: { name: string; info: string },
  env: Readonly<Record<string, string | undefined>>,
  platform: string,
): Promise<boolean> {
  for (const root of ["cosmovisor", "chainvisor"] as const) {
    const path = stagedReleasePath(plan.name, env, root);
    if (path !== undefined && (await stagedFileReady(path, plan, platform))) return true;
  }
  return false;
}

async function stagedFileReady(path: string, plan: { name: string; info: string }, platform: string): Promise<boolean> {
  let size: number;
  let mtime: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) return false;
    await access(path, constants.X_OK);
    size = info.size;
    mtime = info.mtimeMs;
  } catch {
    return false; // not staged (yet), or not executable
  }
  const expected = expectedDigest(plan.info, platform);
  if (expected === undefined) return true;
  const key = `${path}\0${size}\0${mtime}\0${expected.algorithm}:${expected.hex}`;
  const known = stagedVerdicts.get(key);
  if (known !== undefined) return known;
  let verdict: boolean;
  try {
    verdict =
      createHash(expected.algorithm)
        .update(await readFile(path))
        .digest("hex") === expected.hex;
  } catch {
    return false;
  }
  if (stagedVerdicts.size > 64) stagedVerdicts.clear(); // a few plans per process at most; never grows unbounded
  stagedVerdicts.set(key, verdict);
  return verdict;
}

const ARCHIVE_SUFFIXES = [".tar.gz", ".tgz", ".tar", ".zip", ".gz"];

/**
 * The digest a staged bare binary must have: from the Info's `binaries[<platform>]` (else `binaries.any`) URL's
 * `checksum` parameter (`sha256:<hex>`, `sha512:<hex>`, or bare hex whose length names the algorithm). Undefined
 * when the Info is not such JSON, gives no URL for this platform, the URL has no checksum, or it names an archive.
 */
export function expectedDigest(
  info: string,
  platform: string,
): { algorithm: "sha256" | "sha512"; hex: string } | undefined {
  let binaries: unknown;
  try {
    binaries = (JSON.parse(info) as { binaries?: unknown }).binaries;
  } catch {
    return undefined;
  }
  if (typeof binaries !== "object" || binaries === null) return undefined;
  const entries = binaries as Record<string, unknown>;
  const raw = entries[platform] ?? entries.any;
  if (typeof raw !== "string") return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (ARCHIVE_SUFFIXES.some((suffix) => url.pathname.toLowerCase().endsWith(suffix))) return undefined;
  const value = url.searchParams.get("checksum");
  if (value === null) return undefined;
  const colon = value.indexOf(":");
  const algorithm = colon < 0 ? undefined : value.slice(0, colon).toLowerCase();
  const hex = (colon < 0 ? value : value.slice(colon + 1)).toLowerCase();
  if (!/^[0-9a-f]+$/.test(hex)) return undefined;
  if ((algorithm === undefined || algorithm === "sha256") && hex.length === 64) return { algorithm: "sha256", hex };
  if ((algorithm === undefined || algorithm === "sha512") && hex.length === 128) return { algorithm: "sha512", hex };
  return undefined;
}

const GO_OS: Readonly<Record<string, string>> = { win32: "windows", sunos: "solaris" };
const GO_ARCH: Readonly<Record<string, string>> = { x64: "amd64", ia32: "386", mipsel: "mipsle", ppc64: "ppc64le" };

/** This machine as `<os>/<arch>` in Go's names (`linux/amd64`), the keys of a plan Info's `binaries`. */
export function goPlatform(platform: string = process.platform, arch: string = process.arch): string {
  return `${GO_OS[platform] ?? platform}/${GO_ARCH[arch] ?? arch}`;
}
