// A child's peak RSS is its own, not the high-water mark of the process that started it.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { peakRssBytes } from "./peak-rss.ts";

const MIB = 2 ** 20;

test("the peak RSS grows with what this process touches", () => {
  const before = peakRssBytes();
  const held = Buffer.alloc(64 * MIB, 1);
  assert.ok(peakRssBytes() >= before + 48 * MIB, "64 MiB touched should raise the peak by most of it");
  assert.equal(held[held.length - 1], 1);
});

test("a child started by a large process reports its own peak, not the parent's", async (t) => {
  if (process.platform !== "linux") return t.skip("VmHWM is Linux's");
  const held = Buffer.alloc(512 * MIB, 1); // the parent's RSS now exceeds any child's of this test
  const child = join(import.meta.dirname, "peak-rss.ts");
  const script = `import(${JSON.stringify(`file://${child}`)}).then((m) => console.log(JSON.stringify({ own: m.peakRssBytes(), rusage: process.resourceUsage().maxRSS * 1024 })))`;
  const { stdout } = await promisify(execFile)(process.execPath, ["-e", script]);
  const { own } = JSON.parse(stdout) as { own: number; rusage: number };
  assert.ok(own < 256 * MIB, `the child's own peak should be well under the parent's 512 MiB, got ${own / MIB} MiB`);
  assert.equal(held[0], 1);
});
