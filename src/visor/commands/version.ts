// `chainvisor version`: our version, then the running release's (`<current binary> version`).

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { VisorConfig } from "../config.ts";
import { errorMessage, VisorError } from "../errors.ts";
import { ensureBinary, readCurrentRelease, visorLayout } from "../layout.ts";
import { exitCodeOf } from "../node-process.ts";

/** chainvisor's own version: the `version` of the nearest package.json (the chaind package). */
export function visorVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version?: unknown };
      if (typeof manifest.version === "string") return manifest.version;
    } catch {
      // not here; look further up
    }
    const parent = dirname(dir);
    if (parent === dir) return "unknown";
    dir = parent;
  }
}

/** Options of {@link versionCommand}. */
export interface VersionOptions {
  /** Print only chainvisor's version (no configuration needed). */
  appVersion: boolean;
  output: "text" | "json";
}

/**
 * Prints the versions; returns the exit code. `config` is needed only for the application's version. Read-only: the
 * release is run directly with `version`, never through the upgrade loop.
 */
export async function versionCommand(
  loadConfig: () => VisorConfig,
  options: VersionOptions,
  write: (text: string) => void,
): Promise<number> {
  const own = visorVersion();
  if (!options.appVersion) {
    write(
      options.output === "json" ? `${JSON.stringify({ chainvisor_version: own })}\n` : `chainvisor version: ${own}\n`,
    );
    return 0;
  }
  if (options.output === "text") {
    // Our own version first, as cosmovisor does: it needs no configuration, so an operator sees it
    // even when DAEMON_HOME or DAEMON_NAME is missing (that error follows it).
    write(`chainvisor version: ${own}\n`);
    const config = loadConfig();
    const release = await readCurrentRelease(visorLayout(config.home, config.name), false);
    await ensureBinary(release.binary);
    const status = await runApp(release.binary, ["version"], "inherit");
    return exitCodeOf(status.exit);
  }
  const config = loadConfig();
  const release = await readCurrentRelease(visorLayout(config.home, config.name), false);
  await ensureBinary(release.binary);
  // cosmovisor asks for the release's full record (`--long`) and embeds it as JSON; output that is not JSON
  // is an error with its text, never passed on as a string a script would then mistake for the record.
  const status = await runApp(release.binary, ["version", "--long", "--output", "json"], "pipe");
  if (exitCodeOf(status.exit) !== 0)
    throw new VisorError(
      `failed to run version command: ${release.binary} version exited with ${exitCodeOf(status.exit)}`,
    );
  let app: unknown;
  try {
    app = JSON.parse(status.stdout);
  } catch {
    throw new VisorError(`can't print version output, expected valid json from APP, got: ${status.stdout.trim()}`);
  }
  write(`${JSON.stringify({ chainvisor_version: own, app_version: app })}\n`);
  return 0;
}

async function runApp(binary: string, args: string[], stdout: "inherit" | "pipe") {
  const child = spawn(binary, args, { stdio: ["ignore", stdout, "inherit"] });
  let text = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    text += chunk;
  });
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once("error", (error) =>
      reject(new VisorError(`failed to run version command: ${errorMessage(error)}`, { cause: error })),
    );
    child.once("close", (code, signal) => resolve({ code, signal }));
  });
  return { exit, stdout: text };
}
