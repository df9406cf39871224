// `chainvisor add-upgrade <name> <path> [--upgrade-height H] [--force]`: install a release by hand.
import { stat } from "node:fs/promises";
import type { VisorConfig } from "../config.ts";
import { describeError, errorCode, goPathError, VisorError } from "../errors.ts";
import { installRelease } from "../install-release.ts";
import { releaseBinary, upgradeDir, upgradeDirName, visorLayout } from "../layout.ts";
import type { Logger } from "../log.ts";
import { writeUpgradeInfo } from "../upgrade-info.ts";

const MAX_INT64 = (1n << 63n) - 1n;

/** Options of {@link addUpgradeCommand}. */
export interface AddUpgradeOptions {
  /** Also write data/upgrade-info.json for this height (a manual upgrade, without governance). */
  upgradeHeight?: string;
  /** Overwrite an existing executable and upgrade-info.json. */
  force?: boolean;
}

/**
 * Copies the executable to `upgrades/<name lower-cased>/bin/<DAEMON_NAME>` (mode 0755), or unpacks a release
 * archive (tar, tar.gz, zip) into `upgrades/<name lower-cased>/`; with a height, also writes
 * `data/upgrade-info.json` as `{"name":…,"time":"0001-01-01T00:00:00Z","height":H}`, as cosmovisor does.
 * Everything is checked before anything is written.
 */
export async function addUpgradeCommand(
  config: VisorConfig,
  name: string,
  executable: string,
  options: AddUpgradeOptions,
  log: Logger,
): Promise<void> {
  const layout = visorLayout(config.home, config.name);
  const dirName = upgradeDirName(name);
  let height: bigint | undefined;
  if (options.upgradeHeight !== undefined) {
    // A block height is an int64 (cosmovisor's flag is one): a larger one would be written and then refused by the node.
    if (!/^[0-9]+$/.test(options.upgradeHeight) || BigInt(options.upgradeHeight) <= 0n) {
      throw new VisorError(`--upgrade-height must be a positive integer, got "${options.upgradeHeight}"`);
    }
    if (BigInt(options.upgradeHeight) > MAX_INT64) {
      throw new VisorError(
        `--upgrade-height must be at most ${MAX_INT64} (a signed 64-bit block height), got "${options.upgradeHeight}"`,
      );
    }
    height = BigInt(options.upgradeHeight);
  }
  try {
    const info = await stat(executable);
    if (info.isDirectory()) throw new VisorError(`invalid executable path: ${executable} is a directory`);
    // A device or a pipe (/dev/null) would be installed as an empty "binary", as `init` refuses it too.
    if (!info.isFile()) throw new VisorError(`invalid executable path: ${executable} is not a regular file`);
  } catch (error) {
    if (error instanceof VisorError) throw error;
    if (errorCode(error) === "ENOENT")
      throw new VisorError(`invalid executable path: ${goPathError("stat", executable, error)}`);
    throw new VisorError(`failed to load executable path: ${goPathError("stat", executable, error)}`);
  }
  const dir = upgradeDir(layout, name);
  const target = releaseBinary(layout, dir);
  if (!options.force) {
    await refuseExisting(target);
    if (height !== undefined) await refuseExisting(layout.upgradeInfoFile);
  }

  try {
    await installRelease({ source: executable, destination: dir, name: config.name });
  } catch (error) {
    throw new VisorError(`failed to install the release: ${describeError(error)}`, { cause: error });
  }
  log.info(`Using ${executable} for ${dirName} upgrade`);
  log.info(`Upgrade binary located at ${target}`);

  if (height !== undefined) {
    await writeUpgradeInfo(layout.upgradeInfoFile, { name: name.toLowerCase(), height, info: "" });
    log.info(`${layout.upgradeInfoFile} created, ${dirName} upgrade binary will switch at height ${height}`);
  }
}

async function refuseExisting(path: string): Promise<void> {
  try {
    await stat(path);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return;
    throw new VisorError(`failed to check if file exists: ${(error as Error).message}`, { cause: error });
  }
  throw new VisorError(`file already exists at ${path}`, { details: ["pass --force to overwrite it"] });
}
