// `chaind version`: the software version and the release this process runs as.
import { Command } from "commander";
import { currentChainManifest } from "../../runtime/current-chain.ts";
import type { CliIo } from "../io.ts";
import { versionText } from "./version-output.ts";

/** `chaind version [--long]`. */
export function versionCommand(io: CliIo): Command {
  return new Command("version")
    .description("Print the version of this binary and the release it runs as")
    .option("--long", "print the release, version and runtime")
    .action((flags: { long?: boolean }, command: Command) => {
      const { output } = command.optsWithGlobals() as { output: string };
      // The manifest suffices: `version` never loads the chain's modules (src/cli/run-cli.ts).
      io.stdout.write(versionText(currentChainManifest(), { long: flags.long, output }));
    });
}
