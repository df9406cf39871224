// Runs the client commands in the test process, under a root with the same global flags as `chaind`'s
// (src/cli/root.ts) and the same error handling as src/cli/report-error.ts: expected errors print
// `Error: <message>` to stderr and set a non-zero exit status. Quick to call many times per test;
// the end-to-end tests run the real executable instead.
import { Command, CommanderError, Option } from "commander";
import { clientCommands } from "../../../src/cli/commands/client-commands.ts";
import { reportError } from "../../../src/cli/report-error.ts";
import { isUserFacing } from "../../../src/errors/user-error.ts";

/** What a run printed and its exit status. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `chaind <args>` (client commands only) in process; `stdin` answers prompts. */
export async function runClientCli(
  args: string[],
  options: { stdin?: string; env?: Record<string, string | undefined> } = {},
): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const io = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    stdin: toAsyncIterable(options.stdin ?? ""),
    env: options.env ?? {},
  };
  const program = new Command("chaind")
    .option("--home <dir>", "directory for config and data", "/nonexistent-chaind-home")
    .addOption(new Option("--log_level <level>", "log level").default("info"))
    .addOption(new Option("--log_format <format>", "log format").choices(["json", "plain"]).default("plain"))
    .addOption(new Option("-o, --output <format>", "output format").choices(["text", "json"]).default("text"))
    .configureOutput({ writeOut: (s) => void io.stdout.write(s), writeErr: (s) => void io.stderr.write(s) });
  for (const command of await clientCommands(io)) program.addCommand(command);
  exitOverride(program, io);
  try {
    await program.parseAsync(args, { from: "user" });
    return { code: 0, stdout, stderr };
  } catch (err) {
    // The same classification as chaind's entry point; a bug (not user-facing) fails the test with its stack.
    if (!(err instanceof CommanderError) && !isUserFacing(err)) throw err;
    const code = reportError(err, io.stderr);
    return { code, stdout, stderr };
  }
}

function exitOverride(
  command: Command,
  io: { stdout: { write(text: string): unknown }; stderr: { write(text: string): unknown } },
): void {
  command.exitOverride();
  command.configureOutput({ writeErr: (s) => void io.stderr.write(s), writeOut: (s) => void io.stdout.write(s) });
  for (const sub of command.commands) exitOverride(sub, io);
}

async function* toAsyncIterable(text: string): AsyncIterable<string> {
  if (text !== "") yield text;
}
