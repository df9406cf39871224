// chainvisor for the end-to-end tests: the real sidecar from this tree, run as a child process in its own group.
import { join } from "node:path";
import { type CommandResult, type ManagedProcess, runCommand, startProcess, tail } from "./processes.ts";
import { PROJECT } from "./project-build.ts";
import { NODE } from "./releases.ts";

/** The chainvisor entry point of this tree. */
export const CHAINVISOR = join(PROJECT, "src", "visor", "chainvisor.ts");

/** The environment an operator sets for chainvisor (docs/CONTRACT.md §9), plus `extra`. */
export function visorEnv(home: string, extra: Record<string, string> = {}): Record<string, string | undefined> {
  return {
    ...process.env,
    DAEMON_HOME: home,
    DAEMON_NAME: "chaind",
    DAEMON_SHUTDOWN_GRACE: "10s",
    ...extra,
  };
}

/** `chainvisor <args>` to completion; a non-zero exit is an error with the output. */
export async function chainvisor(
  home: string,
  args: string[],
  extra: Record<string, string> = {},
): Promise<CommandResult> {
  const result = await runCommand(NODE, [CHAINVISOR, ...args], { cwd: home, env: visorEnv(home, extra) });
  if (result.status !== 0) {
    throw new Error(
      `chainvisor ${args.join(" ")} exited with ${result.status ?? result.signal}\n${tail(result.stdout)}\n${tail(result.stderr)}`,
    );
  }
  return result;
}

/** `chainvisor run start --home <home> [nodeArgs]` as a long-running process. */
export function startChainvisor(
  home: string,
  extra: Record<string, string> = {},
  nodeArgs: string[] = [],
): ManagedProcess {
  return startProcess("chainvisor", NODE, [CHAINVISOR, "run", "start", "--home", home, ...nodeArgs], {
    cwd: home,
    env: visorEnv(home, extra),
  });
}

/** `<home>/chainvisor/current/bin/<binary>`: the release chainvisor runs now (an operator puts it on PATH). */
export function currentChaind(home: string, binary = "chaind"): { command: string; prefix: string[] } {
  return { command: join(home, "chainvisor", "current", "bin", binary), prefix: [] };
}
