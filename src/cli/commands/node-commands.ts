// The node-side commands of `chaind` (SPEC §8): init, start, dev, genesis …, pre-upgrade and
// upgrade dry-run. Each lives in its own file; this one only lists them for src/cli/root.ts.
import type { Command } from "commander";
import type { CliIo } from "../root.ts";
import { devCommand } from "./dev-command.ts";
import { dryRunUpgradeCommand } from "./dry-run-command.ts";
import { genesisCommand } from "./genesis-command.ts";
import { initCommand } from "./init-command.ts";
import { preUpgradeCommand } from "./pre-upgrade-command.ts";
import { replayCommand } from "./replay-command.ts";
import { startCommand } from "./start-command.ts";

/** Every node-side command, in the order `chaind --help` lists them. */
export function nodeCommands(io: CliIo): Command[] {
  return [
    initCommand(io),
    startCommand(io),
    devCommand(io),
    genesisCommand(io),
    preUpgradeCommand(io),
    dryRunUpgradeCommand(io),
    replayCommand(io),
  ];
}
