import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { PageSpill } from "./import-page-spill.ts";

/** Pages of varied sizes (one larger than a whole block), each filled with a byte of its own. */
function pages(): { sid: number; page: number; bytes: Uint8Array }[] {
  const out: { sid: number; page: number; bytes: Uint8Array }[] = [];
  for (let i = 0; i < 1500; i++) {
    const size = i === 700 ? 5 * 1024 * 1024 : (i * 37) % 9000;
    out.push({ sid: i < 900 ? 1 : 2, page: i < 900 ? i : i - 900, bytes: new Uint8Array(size).fill(i % 251) });
  }
  return out;
}

test("the page spill hands back every page in order, through its file, and removes the file", async () => {
  const dir = await mkdtemp(join(tmpdir(), "chaind-page-spill-"));
  try {
    const path = join(dir, "pages.tmp");
    const spill = new PageSpill(path);
    const want = pages();
    // The caller's bytes are scratch memory: overwritten after each add.
    const scratch = new Uint8Array(6 * 1024 * 1024);
    for (const [i, p] of want.entries()) {
      scratch.set(p.bytes);
      spill.add(p.sid, p.page, scratch.subarray(0, p.bytes.length));
      scratch.fill(0, 0, p.bytes.length);
      if (i % 100 === 0) await spill.writeOut();
    }
    assert.ok(existsSync(path), "more than a block of pages went to the file");
    const got: { sid: number; page: number; bytes: Uint8Array }[] = [];
    await spill.replay(async (sid, page, bytes) => {
      got.push({ sid, page, bytes: bytes.slice() });
    });
    assert.equal(got.length, want.length);
    for (let i = 0; i < want.length; i++) {
      assert.equal(got[i].sid, want[i].sid);
      assert.equal(got[i].page, want[i].page);
      assert.deepEqual(got[i].bytes, want[i].bytes, `page ${i}`);
    }
    await spill.close();
    assert.ok(!existsSync(path));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("a few pages stay in memory: no file is written", async () => {
  const dir = await mkdtemp(join(tmpdir(), "chaind-page-spill-"));
  try {
    const path = join(dir, "pages.tmp");
    const spill = new PageSpill(path);
    spill.add(1, 0, Uint8Array.of(1, 2, 3));
    spill.add(1, 1, new Uint8Array(0));
    await spill.writeOut();
    const got: number[][] = [];
    await spill.replay((sid, page, bytes) => {
      got.push([sid, page, ...bytes]);
    });
    assert.deepEqual(got, [
      [1, 0, 1, 2, 3],
      [1, 1],
    ]);
    assert.ok(!existsSync(path));
    await spill.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
