// `chaind upgrade dry-run <name> [--height H]` (docs/CONTRACT.md §10): apply an upgrade to a copy of this node's
// state and report what it did, leaving the node's data untouched. Thin: src/node/dry-run.ts does the
// work; this prints the report as text (YAML-like, for people) or JSON (`-o json`).
import { Command, InvalidArgumentError } from "commander";
import { dryRunUpgrade } from "../../node/dry-run.ts";
import type { CliIo } from "../io.ts";
import { globalFlags } from "./cli-support.ts";
import { reportJson, reportText } from "./dry-run-report.ts";
import { addRehearseCommands } from "./rehearse-command.ts";

/** `upgrade` (node-side) with its `dry-run` subcommand. */
export function dryRunUpgradeCommand(io: CliIo): Command {
  const upgrade = new Command("upgrade").description("Node-side upgrade tools (dry-run, rehearse)");
  upgrade
    .command("dry-run")
    .description(
      "Apply upgrade <name> (store loader, handler, migrations) to a temporary copy of this node's state at --height (default the latest) and print per-store key counts, the module-version diff, the time taken and the resulting app hash; the node's data is not touched",
    )
    .argument("<name>", "the upgrade plan name, e.g. v2 (a release in this binary must perform it)")
    .option(
      "--height <h>",
      "the state height to start from (default: the latest committed height; any earlier one not yet pruned); the upgrade is applied as at H+1",
      parseHeight,
    )
    .action(async (name: string, flags: { height?: bigint }, command: Command) => {
      const { home, output } = globalFlags(command);
      const report = await dryRunUpgrade({ home, name, height: flags.height });
      io.stdout.write(output === "json" ? `${JSON.stringify(reportJson(report))}\n` : reportText(report));
    });
  addRehearseCommands(upgrade, io);
  return upgrade;
}

function parseHeight(text: string): bigint {
  if (!/^[0-9]+$/.test(text) || BigInt(text) < 1n) throw new InvalidArgumentError("expected a positive whole number");
  return BigInt(text);
}

export { reportJson, reportText } from "./dry-run-report.ts";
