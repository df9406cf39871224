// `<binary> release`: this chain's release files for linux/amd64, from the package's release builder
// (src/release/build-release.ts): `<binary>-<release>-linux-amd64`, `<binary>-<release>-linux-amd64.tar.gz` holding
// bin/<binary>, bin/chainvisor and RELEASE (the chain's name, release, versions and git commit), and their .sha256 —
// what chainvisor and cosmovisor install with DAEMON_NAME=<binary>. The chain's entry is the script this command
// runs from (the binary of a TypeScript project, or its compiled .js); the project is the nearest folder above it
// with a package-lock.json. The builder itself (esbuild, the runtime) is loaded only here.
import { existsSync, realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { Command } from "commander";
import { CliError } from "../../client/cli/errors.ts";
import { currentChainIdentity, currentChainManifest } from "../../runtime/current-chain.ts";
import { DEFAULT_RELEASE_ENV } from "../../runtime/release.ts";
import type { CliIo } from "../io.ts";

/** The one-line description (src/cli/command-list.ts shows it before the command loads). */
export const RELEASE_DESCRIPTION =
  "Build this chain's release files for linux/amd64: <binary>-<release>-linux-amd64 and its .tar.gz (bin/<binary>, bin/chainvisor, RELEASE), as chainvisor and cosmovisor install them";

/** `release`. */
export function releaseCommand(io: CliIo): Command {
  return new Command("release")
    .description(RELEASE_DESCRIPTION)
    .option("--release <name>", "the release to build (default: the chain's default release)")
    .option("--out <dir>", "where the files go (created if missing)", "release")
    .option("--entry <file>", "the chain's entry point, TypeScript or compiled (default: the script running now)")
    .option(
      "--project <dir>",
      "the chain's project: package.json, package-lock.json, node_modules (default: the nearest folder above the entry with a package-lock.json)",
    )
    .action(async (flags: { release?: string; out: string; entry?: string; project?: string }) => {
      const manifest = currentChainManifest();
      const identity = currentChainIdentity();
      const release = flags.release ?? manifest.defaultRelease ?? manifest.releases[0]?.name;
      if (release === undefined || release === "") throw new CliError("--release needs a name, e.g. v2");
      const entry = resolve(flags.entry ?? process.argv[1] ?? "");
      if (!existsSync(entry))
        throw new CliError(`the chain's entry point ${entry} does not exist: give --entry <file>`);
      const project = flags.project === undefined ? projectOf(entry) : resolve(flags.project);
      const { buildRelease, ReleaseError } = await import("../../release/build-release.ts");
      try {
        const built = await buildRelease({
          release,
          entry,
          binary: identity.binary,
          releaseEnv: manifest.releaseEnv ?? DEFAULT_RELEASE_ENV,
          projectRoot: project,
          outDir: resolve(flags.out),
          // A chain project runs its TypeScript as it is: there is no build step to run first.
          skipBuild: true,
        });
        io.stdout.write(
          `${built.archive}\nsha256 ${built.sha256}\n${built.executable}\nsha256 ${built.executableSha256}\n`,
        );
      } catch (error) {
        if (error instanceof ReleaseError) throw new CliError(error.message, { cause: error });
        throw error;
      }
    });
}

// The nearest folder at or above the entry's that has a package-lock.json: the project whose packages are bundled.
function projectOf(entry: string): string {
  let dir = dirname(realpathSync(entry));
  for (;;) {
    if (existsSync(join(dir, "package-lock.json"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) {
      throw new CliError(`no package-lock.json above ${entry}: give --project <dir> (the chain's project folder)`);
    }
    dir = parent;
  }
}
