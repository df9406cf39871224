import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { buildMallocTrimAddon } from "../../scripts/malloc-trim-addon.ts";
import { loadMallocTrimAddon, MALLOC_TRIM_ADDON, MALLOC_TRIM_ENV } from "./malloc-trim.ts";

const ROOT = resolve(import.meta.dirname, "..", "..");
const work = mkdtempSync(join(tmpdir(), "malloc-trim-"));
const file = join(work, MALLOC_TRIM_ADDON);
let skip: string | false = false;

before(() => {
  const result = buildMallocTrimAddon(ROOT, file);
  // Only where the build has a reason not to (another OS, no compiler): on glibc with cc it must build.
  if (!result.built) skip = `the addon was not built here: ${result.reason}`;
});
after(() => rmSync(work, { recursive: true, force: true }));

test("the addon compiles with the system compiler and loads", (t) => {
  if (skip) return t.skip(skip);
  const trim = loadMallocTrimAddon(file);
  assert.equal(typeof trim(), "boolean");
});

test("the trim gives back the free memory a burst of small allocations left inside malloc's arena", (t) => {
  if (skip) return t.skip(skip);
  // 64 MiB of 64 KiB ArrayBuffers (each under glibc's 128 KiB mmap threshold, so from the arena), freed by a GC while
  // one allocated after them stays live: the freed chunks lie below it, where glibc never returns memory on its own.
  // A trim that did nothing would leave them resident (measured: RssAnon 73 MiB, 9 MiB after the trim).
  const script = `
    import { readFileSync } from "node:fs";
    import { loadMallocTrimAddon } from ${JSON.stringify(new URL("./malloc-trim.ts", import.meta.url).href)};
    const trim = loadMallocTrimAddon(${JSON.stringify(file)});
    const anon = () => Number(/RssAnon:\\s+(\\d+)/.exec(readFileSync("/proc/self/status", "utf8"))[1]) * 1024;
    trim();
    let buffers = [];
    for (let i = 0; i < 1024; i++) buffers.push(new Uint8Array(64 * 1024).fill(1));
    const live = new Uint8Array(64 * 1024).fill(2);
    buffers = undefined;
    globalThis.gc();
    globalThis.gc();
    const freed = anon();
    const released = trim();
    console.log(JSON.stringify({ released, before: freed, after: anon(), live: live[0] }));
  `;
  const out = execFileSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", script], {
    encoding: "utf8",
    env: { ...process.env, MALLOC_ARENA_MAX: "2", MALLOC_MMAP_THRESHOLD_: "131072" },
  });
  const { released, before, after } = JSON.parse(out) as { released: boolean; before: number; after: number };
  assert.equal(released, true);
  const MIB = 1024 * 1024;
  assert.ok(before - after >= 32 * MIB, `RssAnon ${before / MIB} MiB before the trim, ${after / MIB} MiB after`);
});

test("without a compiler, or when it fails, the build gives the reason and leaves no file (it never throws)", () => {
  const saved = process.env.CC;
  const out = join(work, "failed", "malloc-trim.node");
  try {
    process.env.CC = join(work, "no-such-cc");
    const missing = buildMallocTrimAddon(ROOT, out);
    assert.equal(missing.built, false);
    if (skip) return; // another OS, or no headers: refused before the compiler is looked for
    assert.equal(missing.built ? "" : missing.reason, `no C compiler (${process.env.CC}) on PATH`);
    process.env.CC = "cc -include /nonexistent/header.h";
    const failed = buildMallocTrimAddon(ROOT, out);
    assert.equal(failed.built, false);
    assert.match(failed.built ? "" : failed.reason, /^cc failed: .*nonexistent/);
    assert.equal(existsSync(out), false);
  } finally {
    if (saved === undefined) delete process.env.CC;
    else process.env.CC = saved;
  }
});

test(`${MALLOC_TRIM_ENV}=off leaves the addon unloaded, with the reason`, () => {
  const script = `
    import { mallocTrim, mallocTrimProblem } from ${JSON.stringify(new URL("./malloc-trim.ts", import.meta.url).href)};
    console.log(JSON.stringify({ trim: mallocTrim() === undefined ? "none" : "loaded", problem: mallocTrimProblem() }));
  `;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
    env: { ...process.env, [MALLOC_TRIM_ENV]: "off" },
  });
  assert.deepEqual(JSON.parse(out), { trim: "none", problem: `${MALLOC_TRIM_ENV}=off` });
});
