import assert from "node:assert/strict";
import { test } from "node:test";
import { mostVerboseLevel, parseLogLevel } from "./log-level.ts";

test("a log level is one level name or CometBFT's module:level list, * naming every other module", () => {
  assert.deepEqual(parseLogLevel("debug"), { defaultLevel: "debug", modules: new Map() });
  const filter = parseLogLevel("main:info,x/upgrade:debug,*:error");
  assert.deepEqual(filter, {
    defaultLevel: "error",
    modules: new Map([
      ["main", "info"],
      ["x/upgrade", "debug"],
    ]),
  });
  assert.equal(mostVerboseLevel(filter ?? assert.fail()), "debug");
  // Without a * entry, lines of other modules are shown from info (the default level).
  assert.equal(parseLogLevel("consensus:debug")?.defaultLevel, "info");
});

test("a malformed log level is refused", () => {
  for (const bad of ["", "loud", "INFO", "x:loud", "x:debug,", ":debug", "x:debug:y", "x:debug,x:info", "*:"]) {
    assert.equal(parseLogLevel(bad), undefined, bad);
  }
});
