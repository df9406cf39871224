import assert from "node:assert/strict";
import { test } from "node:test";
import { HaltError } from "../app/halt.ts";
import { UserError } from "../errors/user-error.ts";
import { createNodeLogger } from "./logger.ts";

function jsonLines(log: (logger: ReturnType<typeof createNodeLogger>) => void): Record<string, unknown>[] {
  const lines: string[] = [];
  log(createNodeLogger({ format: "json", sink: { write: (text: string) => lines.push(text) } }));
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

test("JSON logs carry no stack for an expected stop or a user's mistake, and keep it for a bug", () => {
  const [halt, mistake, bug] = jsonLines((logger) => {
    logger.error({ err: new HaltError('UPGRADE "v2" NEEDED at height: 85: ', { exitCode: 20 }) }, "halted");
    logger.error({ err: new UserError("bad flag", { cause: new Error("inner") }) }, "refused");
    logger.error({ err: new Error("boom") }, "failed");
  });
  const errOf = (line: Record<string, unknown> | undefined) => line?.err as Record<string, unknown>;
  assert.equal(errOf(halt).message, 'UPGRADE "v2" NEEDED at height: 85: ');
  assert.equal(errOf(halt).exitCode, 20);
  assert.equal("stack" in errOf(halt), false);
  assert.equal("stack" in errOf(mistake), false);
  assert.match(String(errOf(bug).stack), /^Error: boom\n/);
});

test("per-module levels: a line with a named module follows its level, every other line the * level", () => {
  const lines: string[] = [];
  const logger = createNodeLogger({
    level: "x/upgrade:debug,*:warn",
    format: "json",
    sink: { write: (text: string) => lines.push(text) },
  });
  logger.child({ module: "x/upgrade" }).debug("upgrade detail");
  logger.child({ module: "snapshots" }).info("snapshot detail");
  logger.info("engine detail");
  logger.warn("engine warning");
  assert.deepEqual(
    lines.map((line) => (JSON.parse(line) as { msg: string }).msg),
    ["upgrade detail", "engine warning"],
  );
});
