// `status` in the command tree, so `chaind --help` lists it and in-process runs reach it. A real `chaind status` never
// gets here: src/cli/run-cli.ts answers it before the tree is loaded (status-command.ts says why).
import { Command } from "commander";
import { CliError } from "../../client/cli/errors.ts";
import type { CliIo } from "../io.ts";
import { runStatusCommand } from "./status-command.ts";

/** `status [--node URL] [--home DIR]`, delegating to {@link runStatusCommand} with the raw arguments. */
export function statusEntryCommand(io: CliIo): Command {
  return new Command("status")
    .description("Query the node's status (the consensus RPC /status as JSON; read from --home when no node answers)")
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    .argument("[args...]")
    .action(async (args: string[], _flags: unknown, command: Command) => {
      // Only a --home the user gave is passed on: the root's default home names the node to ask (its rpc.laddr) but
      // is never read as data (docs/CONTRACT.md §12), and status-command.ts finds the default home itself.
      const root = command.parent;
      const given = root?.getOptionValueSource("home");
      const home =
        given === "cli" || given === "env" ? (root?.opts() as { home?: string } | undefined)?.home : undefined;
      // Errors are raised, not written, so the tree's one error handler prints them (once).
      let stderr = "";
      const code = await runStatusCommand([...(home === undefined ? [] : ["--home", home]), ...args], {
        stdout: io.stdout,
        stderr: { write: (text: string) => (stderr += text) },
      });
      if (code !== 0) {
        const message = stderr.replace(/^Error: /, "").split("\n")[0] ?? "status failed";
        throw new CliError(message, { exitCode: code });
      }
    });
}
