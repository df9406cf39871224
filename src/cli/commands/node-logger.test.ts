import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { Command } from "commander";
import type { LogSettings } from "../../config/home-log-settings.ts";
import { rootProgram } from "../root.ts";
import { nodeLogSettings } from "./node-logger.ts";

const home = mkdtempSync(join(tmpdir(), "node-logger-"));
after(() => rmSync(home, { recursive: true, force: true }));

// The settings a node command parsed from `args` would use with config.toml holding `toml`.
async function settingsOf(toml: string | undefined, args: string[]): Promise<LogSettings> {
  rmSync(join(home, "config"), { recursive: true, force: true });
  if (toml !== undefined) {
    mkdirSync(join(home, "config"), { recursive: true });
    writeFileSync(join(home, "config", "config.toml"), toml);
  }
  const sink = { write: () => true };
  const program = rootProgram({ stdout: sink, stderr: sink }).exitOverride();
  let settings: LogSettings | undefined;
  program.addCommand(
    new Command("start").action((_flags, cmd: Command) => {
      settings = nodeLogSettings(cmd, home);
    }),
  );
  await program.parseAsync(["node", "chaind", ...args, "start"]);
  return settings ?? assert.fail("the command did not run");
}

test("config.toml's log_level and log_format apply when the flags are not given", async () => {
  assert.deepEqual(await settingsOf('log_level = "error"\nlog_format = "json"\n', []), {
    logLevel: "error",
    logFormat: "json",
  });
  assert.deepEqual(await settingsOf('log_level = "x/upgrade:debug,*:warn"\n', []), {
    logLevel: "x/upgrade:debug,*:warn",
    logFormat: "plain",
  });
});

test("a given flag wins over config.toml, each on its own", async () => {
  const toml = 'log_level = "error"\nlog_format = "json"\n';
  assert.deepEqual(await settingsOf(toml, ["--log_level", "debug"]), { logLevel: "debug", logFormat: "json" });
  assert.deepEqual(await settingsOf(toml, ["--log_format", "plain"]), { logLevel: "error", logFormat: "plain" });
  // A flag given with its default value is still given.
  assert.deepEqual(await settingsOf(toml, ["--log_level", "info"]), { logLevel: "info", logFormat: "json" });
});

test("without a config.toml, or with a bad value in it, the defaults apply (the node's loader reports the file)", async () => {
  assert.deepEqual(await settingsOf(undefined, []), { logLevel: "info", logFormat: "plain" });
  assert.deepEqual(await settingsOf('log_level = "loud"\nlog_format = "json"\n', []), {
    logLevel: "info",
    logFormat: "json",
  });
  assert.deepEqual(await settingsOf("log_level = [", []), { logLevel: "info", logFormat: "plain" });
});
