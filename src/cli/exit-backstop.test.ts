// The exit backstop: once armed it ends the process after its grace period, naming what still held it, and never
// keeps a process alive itself (its timer is unref'd).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { armExitBackstop, type ExitBackstopProcess } from "./exit-backstop.ts";

function fakeProcess(resources: string[]): ExitBackstopProcess & { written: string; exits: number } {
  const fake = {
    written: "",
    exits: 0,
    resources: () => resources,
    stderr: { write: (text: string) => (fake.written += text) },
    exit: () => {
      fake.exits++;
    },
  };
  return fake;
}

test("ends a held process after the grace period, naming what held it", async () => {
  const fake = fakeProcess(["TCPServerWrap", "FSReqCallback", "TCPServerWrap"]);
  const timer = armExitBackstop(20, fake);
  assert.equal(timer.hasRef(), false, "the backstop itself must not keep the process alive");
  assert.equal(fake.exits, 0);
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.equal(fake.exits, 1);
  assert.equal(
    fake.written,
    "the command was over 20 ms ago but the process was still held by FSReqCallback, 2 × TCPServerWrap; exiting\n",
  );
});

test("says so when nothing Node lists holds the process (a native thread or call)", async () => {
  const fake = fakeProcess([]);
  armExitBackstop(5, fake);
  await new Promise((resolve) => setTimeout(resolve, 40));
  assert.equal(fake.exits, 1);
  assert.match(fake.written, /still held by nothing Node lists; exiting/);
});

test("a cleared backstop does nothing", async () => {
  const fake = fakeProcess(["TCPServerWrap"]);
  clearTimeout(armExitBackstop(5, fake));
  await new Promise((resolve) => setTimeout(resolve, 40));
  assert.deepEqual([fake.exits, fake.written], [0, ""]);
});

test("a real process held by a listening server ends with its exit status and the notice", () => {
  const module = new URL("./exit-backstop.ts", import.meta.url).href;
  const script = [
    `import { createServer } from "node:net";`,
    `import { armExitBackstop } from ${JSON.stringify(module)};`,
    `createServer().listen(0, "127.0.0.1");`,
    `process.exitCode = 3;`,
    `armExitBackstop(100);`,
  ].join("\n");
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 60_000 });
  assert.equal(run.status, 3, run.stderr);
  // The listing has the server, beside the stdio pipes when they are pipes (as here).
  assert.match(
    run.stderr,
    /the command was over 100 ms ago but the process was still held by [^;]*TCPServerWrap[^;]*; exiting/,
  );
});
