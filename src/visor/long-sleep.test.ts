// Go durations past Node's timer limit (2^31 − 1 ms): a wait that long must not fire at once. The checks race the
// wait against a short real timer: the fault fires within a millisecond, so a slow machine only makes it show sooner.
import assert from "node:assert/strict";
import { once } from "node:events";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { silentLogger } from "./log.ts";
import { MAX_TIMER_MS, pollDelayMs, sleepMs } from "./long-sleep.ts";
import { startProcess, stopProcess } from "./node-process.ts";

const THOUSAND_HOURS_MS = 1000 * 3600 * 1000;

test("sleepMs past the timer limit stays pending, warns nothing, and ends when aborted", async () => {
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);
  process.on("warning", onWarning);
  try {
    const stop = new AbortController();
    let done = false;
    const waiting = sleepMs(MAX_TIMER_MS * 2 + 5, stop.signal).then(
      () => {
        done = true;
      },
      (error: unknown) => error,
    );
    await sleep(50);
    assert.equal(done, false, "a wait past the limit fired at once");
    stop.abort();
    const error = await waiting;
    assert.equal((error as Error).name, "AbortError");
    assert.equal(done, false);
    await sleep(0);
    assert.deepEqual(
      warnings.filter((w) => w.name === "TimeoutOverflowWarning"),
      [],
    );
  } finally {
    process.off("warning", onWarning);
  }
});

test("sleepMs within the limit resolves; pollDelayMs keeps a poll's timer within it", async () => {
  await sleepMs(1);
  await sleepMs(0);
  assert.equal(pollDelayMs(300), 300);
  assert.equal(pollDelayMs(THOUSAND_HOURS_MS), MAX_TIMER_MS);
});

test("stopProcess with DAEMON_SHUTDOWN_GRACE=1000h waits for the node instead of killing it at once", async () => {
  const script = "process.on('SIGTERM', () => console.log('term')); console.log('ready'); setInterval(() => {}, 1000);";
  const node = await startProcess({
    binary: process.execPath,
    args: ["-e", script],
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const lines: string[] = [];
    const seen = async (line: string) => {
      while (!lines.includes(line)) {
        const [chunk] = (await once(node.child.stdout as NodeJS.ReadableStream, "data")) as [Buffer];
        lines.push(...chunk.toString().split("\n"));
      }
    };
    await seen("ready");
    const stopping = stopProcess(node, THOUSAND_HOURS_MS, silentLogger);
    await seen("term");
    const first = await Promise.race([node.exited, sleep(50).then(() => "still running" as const)]);
    assert.equal(first, "still running", "the node was killed before its grace ran out");
    node.child.kill("SIGINT");
    assert.deepEqual(await stopping, { code: null, signal: "SIGINT" });
  } finally {
    if (!node.hasExited()) node.child.kill("SIGKILL");
  }
});
