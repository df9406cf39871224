// What the testnet tests need before they can run: the cometbft binary and the chaind commands the testnet script
// and the tests drive. Anything missing becomes a skip whose reason is printed, never a silent pass.
import { COMETBFT_INSTALL_HINT, findCometbft } from "../../../scripts/testnet/index.ts";

/** A chaind command path and the options it must have, e.g. `{ path: ["start"], options: ["--abci"] }`. */
export interface RequiredCommand {
  path: string[];
  options?: string[];
}

/** The commands the testnet script runs to set up and start every node. */
export const TESTNET_COMMANDS: RequiredCommand[] = [
  { path: ["init"], options: ["--chain-id"] },
  { path: ["keys", "add"] },
  { path: ["genesis", "add-genesis-account"] },
  { path: ["genesis", "gentx"], options: ["--chain-id", "--keyring-backend"] },
  { path: ["genesis", "collect-gentxs"] },
  { path: ["genesis", "validate"] },
  { path: ["start"], options: ["--abci"] },
];

interface CommandLike {
  name(): string;
  commands: readonly CommandLike[];
  options: readonly { long?: string }[];
}

/** The entries of `required` that chaind's command tree lacks, as `chaind genesis gentx --chain-id` strings. */
export async function missingChaindCommands(required: RequiredCommand[]): Promise<string[]> {
  let root: CommandLike;
  try {
    const { rootCommand } = (await import("../../../src/cli/root.ts")) as {
      rootCommand: () => CommandLike | Promise<CommandLike>;
    };
    root = await rootCommand();
  } catch (error) {
    return [`the chaind command tree (src/cli/root.ts does not load: ${(error as Error).message.split("\n")[0]})`];
  }
  const missing: string[] = [];
  for (const { path, options = [] } of required) {
    // Options may be declared on the command or inherited from a parent (the root's --home, tx flags).
    const declared = new Set<string>();
    let command: CommandLike | undefined = root;
    for (const name of ["", ...path]) {
      if (name !== "") command = command?.commands.find((c) => c.name() === name);
      for (const option of command?.options ?? []) if (option.long) declared.add(option.long);
    }
    const label = `chaind ${path.join(" ")}`;
    if (command === undefined) missing.push(label);
    else for (const option of options) if (!declared.has(option)) missing.push(`${label} ${option}`);
  }
  return missing;
}

/** The flags every testnet test's transactions pass. */
export const TX_FLAGS = ["--from", "--node", "--chain-id", "--fees", "--yes"];

/** `tx upgrade software-upgrade` with the flags the upgrade tests' proposals use (testnet-support/governance.ts). */
export const SOFTWARE_UPGRADE_COMMAND: RequiredCommand = {
  path: ["tx", "upgrade", "software-upgrade"],
  options: [...TX_FLAGS, "--upgrade-height", "--deposit", "--title", "--summary", "--no-validate"],
};

/**
 * Why the testnet tests cannot run here, or undefined when they can. Prints the reason (skips must be seen).
 * `extra` lists commands a particular test drives besides those of the testnet script.
 */
export async function testnetSkipReason(label: string, extra: RequiredCommand[] = []): Promise<string | undefined> {
  let reason: string | undefined;
  if (findCometbft() === undefined) {
    reason = `cometbft not found on PATH or in ~/go/bin: install it with ${COMETBFT_INSTALL_HINT}`;
  } else {
    const missing = await missingChaindCommands([...TESTNET_COMMANDS, ...extra]);
    if (missing.length > 0) reason = `chaind lacks what the test drives: ${missing.join(", ")}`;
  }
  if (reason !== undefined) process.stderr.write(`SKIP ${label}: ${reason}\n`);
  return reason;
}
