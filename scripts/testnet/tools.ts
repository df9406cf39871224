// The external commands the testnet runs to completion: finding and checking the cometbft binary, and running
// `chaind` (or any command) with its failure turned into a TestnetError that carries the command's output.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { CHAIND_ENTRY, COMETBFT_INSTALL_HINT, COMETBFT_VERSION_PREFIX, PROJECT_ROOT, TestnetError } from "./types.ts";

// The lookup is shared with the real-CometBFT tests of src/abci.
export { findCometbft } from "../../test/support/abci/processes.ts";

const execFileAsync = promisify(execFile);

/** Runs a command to completion and returns its stdout; a failure names the command and carries its stderr. */
export async function run(command: string, args: string[], env?: NodeJS.ProcessEnv): Promise<string> {
  try {
    const { stdout } = await execFileAsync(command, args, {
      env: env ?? process.env,
      maxBuffer: 64 * 1024 * 1024,
      cwd: PROJECT_ROOT,
    });
    return stdout;
  } catch (cause) {
    const error = cause as { stderr?: string; stdout?: string; code?: unknown };
    const shown = [command === process.execPath ? "" : command, ...args].filter((s) => s !== "").join(" ");
    const output = `${error.stderr ?? ""}${error.stdout ?? ""}`.trim();
    throw new TestnetError(`\`${shown}\` failed (exit ${String(error.code)}): ${output.slice(-2000)}`, { cause });
  }
}

/** Runs `chaind <args>` from this source tree. */
export function chaind(args: string[]): Promise<string> {
  return run(process.execPath, [CHAIND_ENTRY, ...args]);
}

/** Refuses a cometbft binary of another release line than the one the ABCI server speaks. */
export async function checkCometbft(binary: string): Promise<void> {
  const version = (await run(binary, ["version"])).trim();
  if (!version.startsWith(COMETBFT_VERSION_PREFIX)) {
    throw new TestnetError(
      `${binary} is CometBFT ${version}: expected ${COMETBFT_VERSION_PREFIX}x (install with ${COMETBFT_INSTALL_HINT})`,
    );
  }
}
