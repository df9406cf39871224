// `chainvisor init <path>`: install the genesis release and point `current` at it.
import { mkdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { VisorConfig } from "../config.ts";
import { errorCode, goPathError, VisorError } from "../errors.ts";
import { installRelease, isReleaseArchive } from "../install-release.ts";
import { ensureBinary, readCurrentRelease, releaseBinary, visorLayout } from "../layout.ts";
import type { Logger } from "../log.ts";

/**
 * Copies the executable to `<home>/chainvisor/genesis/bin/<name>` (or unpacks a release archive into
 * `genesis/`); an existing genesis executable is kept. Creates `current -> genesis` if there is no `current` yet.
 * @example await initCommand(loadConfig(process.env, "init"), "/usr/local/bin/chaind", log)
 */
export async function initCommand(config: VisorConfig, executable: string | undefined, log: Logger): Promise<void> {
  if (executable === undefined || executable === "") throw new VisorError("no <path to executable> provided");
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(executable);
  } catch (error) {
    if (errorCode(error) === "ENOENT")
      throw new VisorError(`executable file not found: ${goPathError("stat", executable, error)}`);
    throw new VisorError(`could not stat executable: ${goPathError("stat", executable, error)}`);
  }
  if (info.isDirectory()) throw new VisorError("invalid path to executable: must not be a directory");

  const layout = visorLayout(config.home, config.name);
  const binDir = join(layout.genesisDir, "bin");
  log.info("checking on the genesis/bin directory");
  try {
    const existing = await stat(binDir);
    if (!existing.isDirectory()) throw new VisorError(`the path "${binDir}" already exists but is not a directory`);
    log.info(`the "${binDir}" directory already exists`);
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw error;
    log.info(`creating directory (and any parents): "${binDir}"`);
    await mkdir(binDir, { recursive: true, mode: 0o755 });
  }

  log.info("checking on the genesis/bin executable");
  const target = releaseBinary(layout, layout.genesisDir);
  try {
    await stat(target);
    log.info(`the "${target}" file already exists`);
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw error;
    const archive = await isReleaseArchive(executable);
    log.info(
      archive
        ? `unpacking release archive into place: "${layout.genesisDir}"`
        : `copying executable into place: "${target}"`,
    );
    await installRelease({ source: executable, destination: layout.genesisDir, name: config.name });
  }
  log.info(`making sure "${target}" is executable`);
  await ensureBinary(target);

  log.info("checking on the current symlink and creating it if needed");
  const current = await readCurrentRelease(layout);
  log.info(`the current symlink points to: "${current.binary}"`);
}
