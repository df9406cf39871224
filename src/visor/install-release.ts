// Installing a release from a local path, for `init` and `add-upgrade`: an executable is copied to `bin/<name>`; a
// release archive (tar, tar.gz, zip — what `npm run release` builds) is unpacked whole, like a download, so a
// `bin/<name>` launcher finds the files next to it.
import { chmod, copyFile, mkdir, mkdtemp, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { detectArtifact, locateRelease, unpackArtifact } from "./archive.ts";
import { errorCode, VisorError } from "./errors.ts";
import { ensureBinary } from "./layout.ts";

/** Parameters of {@link installRelease}. */
export interface InstallReleaseParameters {
  /** An executable, or a release archive holding `bin/<name>` or `<name>`. */
  source: string;
  /** The release directory to fill: `chainvisor/genesis` or `chainvisor/upgrades/<dir>`. */
  destination: string;
  /** DAEMON_NAME. */
  name: string;
}

/** Whether a path is a release archive rather than an executable. */
export async function isReleaseArchive(path: string): Promise<boolean> {
  return (await detectArtifact(path)) !== "plain";
}

/**
 * Installs the release at `destination`, replacing `destination/bin/<name>` (for an executable) or the whole
 * directory (for an archive). The new content is prepared beside the destination and renamed into place.
 */
export async function installRelease(parameters: InstallReleaseParameters): Promise<void> {
  const { source, destination, name } = parameters;
  const parent = dirname(destination);
  await mkdir(parent, { recursive: true });
  const work = await mkdtemp(join(parent, `.install-${process.pid}-`));
  try {
    const kind = await detectArtifact(source);
    if (kind === "plain") {
      const binary = join(destination, "bin", name);
      await mkdir(dirname(binary), { recursive: true, mode: 0o755 });
      const temporary = join(work, name);
      await copyFile(source, temporary);
      await chmod(temporary, 0o755);
      await rename(temporary, binary);
      return;
    }
    const content = join(work, "content");
    await unpackArtifact(kind, source, content, name);
    const release = await locateRelease(content, name, source);
    await ensureBinary(join(release, "bin", name));
    const previous = join(work, "previous");
    const hadPrevious = await moveIfExists(destination, previous);
    try {
      await rename(release, destination);
    } catch (error) {
      if (hadPrevious) await rename(previous, destination);
      throw new VisorError(`could not install the release into ${destination}`, { cause: error });
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function moveIfExists(from: string, to: string): Promise<boolean> {
  try {
    await stat(from);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return false;
    throw error;
  }
  await rename(from, to);
  return true;
}
