// `chaind version`: the software version and the release this process runs as.
import { Command } from "commander";
import { currentChainManifest } from "../../runtime/current-chain.ts";
import { currentRelease } from "../../runtime/release.ts";
import type { CliIo } from "../io.ts";

/** `chaind version [--long]`. */
export function versionCommand(io: CliIo): Command {
  return new Command("version")
    .description("Print the version of this binary and the release it runs as")
    .option("--long", "print the release, version and runtime")
    .action((flags: { long?: boolean }, command: Command) => {
      // The manifest suffices: `version` never loads the chain's modules (src/cli/run-cli.ts).
      const chain = currentChainManifest();
      const release = currentRelease(chain);
      const { output } = command.optsWithGlobals() as { output: string };
      const info = { name: chain.name, release: release.name, version: release.version, node: process.version };
      if (output === "json") io.stdout.write(`${JSON.stringify(flags.long ? info : { version: release.version })}\n`);
      else if (flags.long)
        io.stdout.write(
          `name: ${chain.name}\nrelease: ${info.release}\nversion: ${info.version}\nnode: ${info.node}\n`,
        );
      else io.stdout.write(`${release.version}\n`);
    });
}
