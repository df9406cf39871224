// Downloading a release into upgrades/<dir>. Everything happens in a private work directory inside upgrades/; the
// checksum is verified and the archive unpacked there, and only a complete, verified release is renamed into place.
// A failure therefore leaves nothing behind that could block the next attempt.
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { detectArtifact, locateRelease, unpackArtifact } from "./archive.ts";
import { checksumOfUrl, requestUrl } from "./checksum.ts";
import { DEFAULT_DOWNLOAD_MAX_BYTES } from "./config.ts";
import { errorCode, VisorError } from "./errors.ts";
import { DEFAULT_RETRY_POLICY, fetchToFile, type RetryPolicy, redactUrl } from "./http-fetch.ts";
import { ensureBinary, hasBinary, type Layout, releaseBinary } from "./layout.ts";
import type { Logger } from "./log.ts";
import type { VisorMetrics } from "./metrics.ts";
import { checkDownloadUrl } from "./plan-info.ts";

/** Parameters of {@link downloadUpgrade}. */
export interface DownloadUpgradeParameters {
  layout: Layout;
  /** The upgrade's directory name (see upgradeDirName). */
  dirName: string;
  /** Download URL, with its `checksum` query parameter. */
  url: string;
  mustHaveChecksum: boolean;
  policy?: RetryPolicy;
  log: Logger;
  /** DAEMON_DOWNLOAD_MAX_SIZE: the most bytes the download, and separately its unpacked content, may take. */
  maxBytes?: number;
  /** DAEMON_METRICS_ADDR on: told of the download (state, bytes, seconds, result). */
  metrics?: VisorMetrics;
}

const WORK_PREFIX = ".download-";

/**
 * The work directory's name stem: `.download-<12 hex of sha256(dirName)>-<pid>-`, then mkdtemp's 6 characters. It
 * must not grow with the plan name: the name check allows directory names of up to 255 bytes (NAME_MAX), and a stem
 * that embedded them failed with ENAMETOOLONG for names of 233-255 bytes. 48 bits of the hash keep two downloads of
 * different plans apart; the pid tells an abandoned directory from a live one (removeAbandonedWorkDirs).
 */
export function workDirStem(dirName: string): string {
  const digest = createHash("sha256").update(dirName).digest("hex").slice(0, 12);
  return `${WORK_PREFIX}${digest}-${process.pid}-`;
}

/**
 * Downloads, verifies and unpacks a release into `upgrades/<dirName>`, returning that directory. If the directory
 * already holds the executable (staged earlier, maybe by another chainvisor process) nothing is downloaded.
 * @example await downloadUpgrade({ layout, dirName: "v2", url: "https://x/chaind.tar.gz?checksum=sha256:…", mustHaveChecksum: true, log })
 */
export async function downloadUpgrade(parameters: DownloadUpgradeParameters): Promise<string> {
  const { layout, dirName, url, log } = parameters;
  const destination = join(layout.upgradesDir, dirName);
  const shown = redactUrl(url);
  const maxBytes = parameters.maxBytes ?? DEFAULT_DOWNLOAD_MAX_BYTES;
  const problem = checkDownloadUrl(url, parameters.mustHaveChecksum);
  if (problem !== undefined) throw new VisorError(`invalid download url "${shown}": ${problem}`);
  if (await existingRelease(layout, destination)) return destination;
  await mkdir(layout.upgradesDir, { recursive: true });
  await removeAbandonedWorkDirs(layout.upgradesDir);
  const work = await mkdtemp(join(layout.upgradesDir, workDirStem(dirName)));
  const metrics = parameters.metrics;
  const stateBefore = metrics?.state;
  metrics?.setState("downloading");
  const started = performance.now();
  let bytes = 0;
  let done = false;
  try {
    const parsed = new URL(url);
    const checksum = checksumOfUrl(parsed);
    const artifact = join(work, "artifact");
    log.info(`downloading ${shown}`);
    const fetched = await fetchToFile(
      requestUrl(parsed),
      artifact,
      checksum?.algorithm ?? "sha256",
      parameters.policy ?? DEFAULT_RETRY_POLICY,
      log,
      maxBytes,
    );
    bytes = fetched.bytes;
    if (checksum === undefined) {
      log.warn(
        `${shown} carries no checksum; downloaded ${fetched.bytes} bytes with sha256 ${fetched.digest} unverified`,
      );
    } else if (fetched.digest !== checksum.hex) {
      throw new VisorError(`Checksums did not match for ${shown}`, {
        details: [`Expected: ${checksum.algorithm}:${checksum.hex}`, `Got: ${checksum.algorithm}:${fetched.digest}`],
      });
    } else {
      log.info(`downloaded ${fetched.bytes} bytes, ${checksum.algorithm} checksum verified`);
    }
    const kind = await detectArtifact(artifact);
    const content = join(work, "content");
    await unpackArtifact(kind, artifact, content, layout.name, maxBytes);
    const release = await locateRelease(content, layout.name, shown);
    await ensureBinary(releaseBinary(layout, release));
    try {
      await rename(release, destination);
    } catch (error) {
      // Someone else (prepare-upgrade next to run) finished first: theirs is as good as ours.
      if (await existingRelease(layout, destination)) return destination;
      throw error;
    }
    log.info(`release unpacked (${kind}) into ${destination}`);
    done = true;
    return destination;
  } finally {
    await rm(work, { recursive: true, force: true });
    metrics?.downloaded(done ? "ok" : "failed", bytes, (performance.now() - started) / 1000);
    metrics?.setState(done ? (stateBefore ?? "watching") : "failed");
  }
}

// An upgrade directory that exists is either complete (nothing to do) or was made by hand without the executable,
// which we refuse to guess about.
async function existingRelease(layout: Layout, destination: string): Promise<boolean> {
  try {
    await readdir(destination);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return false;
    throw error;
  }
  if (await hasBinary(layout, destination)) return true;
  throw new VisorError(`upgrade dir already exists, won't overwrite: ${destination}`, {
    details: [`it holds no usable bin/${layout.name}; remove the directory (or put the executable there) and retry`],
  });
}

// Work directories of processes that died mid-download (their pid is in the name) are removed; live ones are not.
async function removeAbandonedWorkDirs(upgradesDir: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(upgradesDir);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return;
    throw error;
  }
  for (const name of names) {
    const match = /^\.download-.*-(\d+)-[^-]+$/.exec(name);
    if (match === null || isAlive(Number(match[1]))) continue;
    await rm(join(upgradesDir, name), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === "EPERM";
  }
}
