// Helpers for the node's end-to-end tests (test/e2e/node-*.test.ts): the testing kit's process helpers
// (src/testing/processes.ts) bound to `chaind` from this source tree. Not used by the node.
import { readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { homePaths } from "../../../src/config/home.ts";
import { setTomlValues } from "../../../src/config/toml-template.ts";
import { type DevHome, prepareDevHome } from "../../../src/node/dev-chain.ts";
import {
  type ChainBinary,
  type ChaindProcess,
  type ChaindResult,
  killAllStarted,
  type SpawnOptions,
  spawnChainBinary,
  tempDir,
} from "../../../src/testing/processes.ts";

export {
  type BannerEndpoints,
  bannerEndpoints,
  type ChaindProcess,
  type ChaindResult,
  LOOPBACK_PORT_FLAGS,
  latestHeight,
  pollUntil,
  rpcCall,
  tempDir,
  waitForHeight,
} from "../../../src/testing/processes.ts";

/**
 * A dev home (`chaind dev`'s chain: funded test keys, one validator) in a new temporary folder, whose blocks
 * follow each other after `timeoutCommit` (a duration such as "100ms"), for tests that start a node in process.
 */
export async function fastDevHome(
  prefix: string,
  timeoutCommit: string,
): Promise<{ dir: Awaited<ReturnType<typeof tempDir>>; dev: DevHome }> {
  const dir = await tempDir(prefix);
  const dev = await prepareDevHome({ home: join(dir.path, "home") });
  const configToml = homePaths(dev.home).configToml;
  const text = await readFile(configToml, "utf8");
  await writeFile(configToml, setTomlValues(text, { "consensus.timeout_commit": timeoutCommit }));
  return { dir, dev };
}

/** The project root (absolute). */
export const PROJECT_ROOT = resolve(fileURLToPath(new URL("../../..", import.meta.url)));
/** The pinned Node 24 and the chaind entry point, absolute. */
export const NODE_BIN = join(PROJECT_ROOT, "node_modules", ".bin", "node");
// The JavaScript launcher: the compile cache is on before any TypeScript loads (see chain/cmd/chaind.mjs).
export const CHAIND_ENTRY = join(PROJECT_ROOT, "chain", "cmd", "chaind.mjs");

/** chaind from this source tree, for the testing kit's process helpers. */
export const CHAIND_BINARY: ChainBinary = { node: NODE_BIN, entry: CHAIND_ENTRY, cwd: PROJECT_ROOT };

/** Starts `chaind <args>` from the project root. */
export function spawnChaind(args: string[], options: SpawnOptions = {}): ChaindProcess {
  return spawnChainBinary(CHAIND_BINARY, args, options);
}

/** Runs `chaind <args>` to completion. */
export async function runChaind(args: string[], options: SpawnOptions = {}): Promise<ChaindResult> {
  return spawnChaind(args, options).exited;
}

/** Kills (SIGKILL) every chaind these helpers started that is still running. */
export const killAllChaind = killAllStarted;

/**
 * Runs `chaind <args>` inside this process (the real command tree with captured output), for the
 * many quick error cases where a process start per case would dominate the test's time. The exit
 * status is what chain/cmd/chaind.ts (src/cli/run-cli.ts) would exit with: the thrown error's `exitCode` (1 by default).
 */
export async function runChaindInProcess(args: string[]): Promise<ChaindResult> {
  const { rootCommand } = await import("../../../src/cli/root.ts");
  let stdout = "";
  let stderr = "";
  const program = await rootCommand({
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  const exitOverride = (command: Awaited<ReturnType<typeof rootCommand>>): void => {
    command.exitOverride();
    for (const sub of command.commands) exitOverride(sub);
  };
  exitOverride(program);
  try {
    await program.parseAsync(["node", "chaind", ...args]);
    return { code: 0, signal: null, stdout, stderr };
  } catch (err) {
    const error = err as Error & { exitCode?: number };
    stderr += `Error: ${error.message}\n`;
    return { code: typeof error.exitCode === "number" ? error.exitCode : 1, signal: null, stdout, stderr };
  }
}
