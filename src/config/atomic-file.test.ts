import assert from "node:assert/strict";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { withTargetPath, writeFileAtomic, writeFileAtomicSync } from "./atomic-file.ts";

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "chaind-atomic-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("writeFileAtomic", () => {
  test("writes new content, replaces old content, and leaves no temp file behind", async () => {
    const file = join(dir, "a.json");
    await writeFileAtomic(file, '{"v":1}');
    assert.equal(await readFile(file, "utf8"), '{"v":1}');
    await writeFileAtomic(file, new Uint8Array([1, 2, 3]));
    assert.deepEqual(new Uint8Array(await readFile(file)), new Uint8Array([1, 2, 3]));
    assert.deepEqual(await readdir(dir), ["a.json"]);
  });

  test("applies the mode exactly, whatever the previous file had", async () => {
    const file = join(dir, "key.json");
    await writeFile(file, "old", { mode: 0o644 });
    await writeFileAtomic(file, "secret", 0o600);
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    await writeFileAtomic(file, "public", 0o644);
    assert.equal((await stat(file)).mode & 0o777, 0o644);
  });

  test("on failure the target is untouched and the temp file is removed", async () => {
    const sub = join(dir, "fail");
    await mkdir(sub);
    const target = join(sub, "target");
    await mkdir(target); // renaming a file over a non-empty directory fails
    await writeFile(join(target, "inside"), "x");
    await assert.rejects(writeFileAtomic(target, "data"));
    assert.deepEqual(await readdir(sub), ["target"]);
    assert.deepEqual(await readdir(target), ["inside"]);
  });

  test("a missing directory is an error, not a partial write", async () => {
    await assert.rejects(writeFileAtomic(join(dir, "no", "such", "file"), "x"), { code: "ENOENT" });
  });

  test("concurrent writers each leave a whole file and no temp files", async () => {
    const file = join(dir, "race.txt");
    const contents = Array.from({ length: 20 }, (_, i) => `writer-${i}-${"x".repeat(1000 * i)}`);
    await Promise.all(contents.map((content) => writeFileAtomic(file, content)));
    assert.ok(contents.includes(await readFile(file, "utf8")));
    assert.deepEqual(
      (await readdir(dir)).filter((name) => name.includes(".tmp-")),
      [],
    );
  });
});

describe("writeFileAtomicSync", () => {
  test("writes, replaces and cleans up like the async version", async () => {
    const file = join(dir, "sync.json");
    writeFileAtomicSync(file, "one", 0o600);
    writeFileAtomicSync(file, "two", 0o600);
    assert.equal(await readFile(file, "utf8"), "two");
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    const sub = join(dir, "sync-fail");
    await mkdir(join(sub, "target"), { recursive: true });
    await writeFile(join(sub, "target", "inside"), "x");
    assert.throws(() => writeFileAtomicSync(join(sub, "target"), "data"));
    assert.deepEqual(await readdir(sub), ["target"]);
  });
});

test("a failed write on the temporary's descriptor names the file being replaced (a full disk says which)", () => {
  // Node words a write on a descriptor without a path; this is the error a full disk raised on the signing state.
  const full = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", syscall: "write" });
  const named = withTargetPath(full, "/h/data/priv_validator_state.json") as NodeJS.ErrnoException;
  assert.equal(named.message, "ENOSPC: no space left on device, write '/h/data/priv_validator_state.json'");
  assert.equal(named.path, "/h/data/priv_validator_state.json");
  // An error that already names its path (the temporary's open) is left as it is.
  const open = Object.assign(new Error("EACCES: permission denied, open '/h/x'"), { code: "EACCES", path: "/h/x" });
  assert.equal((withTargetPath(open, "/h/data/y") as Error).message, "EACCES: permission denied, open '/h/x'");
  // chaind's own errors have string codes but no syscall: a pruned height's message stays as the store wrote it.
  const pruned = Object.assign(
    new Error("failed to load state at height 5; version pruned (earliest available height: 48, latest height: 254)"),
    { code: "STORE_VERSION_PRUNED" },
  );
  assert.equal(
    (withTargetPath(pruned, "/h/data/snapshots/5/1") as Error).message,
    "failed to load state at height 5; version pruned (earliest available height: 48, latest height: 254)",
  );
});
