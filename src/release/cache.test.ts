// The single-file release's cache (cache.ts) on a small payload, in real directories: unpacked once, checked on
// every start (a stamp of stat()s, a full sha256 check when they differ), repaired from the payload, and refused
// when another user could write into it. The same checks on the real executable are in
// test/release/release-archive.test.ts.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import { type CacheRequest, CacheUnusableError, makeDirectories, prepareCache } from "./cache.ts";
import { type PayloadFile, packPayload } from "./payload.ts";

const FILES: PayloadFile[] = [
  { path: "package.json", mode: 0o644, data: Buffer.from('{"type":"module"}\n') },
  { path: "chaind.js", mode: 0o644, data: Buffer.from('console.log("the real chaind");\n') },
  { path: "prebuilds/linux-x64/classic-level.node", mode: 0o644, data: Buffer.from("\x7fELF addon bytes") },
];
const NAME = "v1-0123456789abcdef";
const UID = process.getuid?.() ?? 0;

let work: string;
let payloadReads: number;

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "chaind-cache-test-"));
  payloadReads = 0;
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

function request(roots: string[], uid = UID): CacheRequest {
  const payload = packPayload(FILES);
  return {
    roots,
    name: NAME,
    files: FILES.map((file) => ({
      path: file.path,
      size: file.data.length,
      sha256: createHash("sha256").update(file.data).digest("hex"),
    })),
    payload: () => {
      payloadReads++;
      return payload;
    },
    uid,
  };
}

function assertWhole(dir: string): void {
  for (const file of FILES) assert.deepEqual(readFileSync(join(dir, file.path)), file.data, file.path);
}

const stampIno = (dir: string) => statSync(join(dir, ".verified")).ino;

test("unpacked once, with a stamp; a later start trusts matching stat()s without reading the payload", () => {
  const root = join(work, "cache");
  const first = prepareCache(request([root]));
  assert.equal(first.dir, join(root, NAME));
  assert.deepEqual(first.refused, []);
  assertWhole(first.dir);
  assert.equal(statSync(root).mode & 0o777, 0o700);
  assert.deepEqual(readdirSync(root), [NAME], "no temporary left beside it");
  const stamp = stampIno(first.dir);
  assert.equal(payloadReads, 1);
  assert.equal(prepareCache(request([root])).dir, first.dir);
  assert.equal(payloadReads, 1, "the fast path does not read the payload");
  assert.equal(stampIno(first.dir), stamp, "the fast path does not rewrite the stamp");
});

test("files get the payload's modes whatever the umask takes, and the stamp made as they are written holds", () => {
  const root = join(work, "cache");
  const before = process.umask(0o077);
  let dir: string;
  try {
    dir = prepareCache(request([root])).dir;
  } finally {
    process.umask(before);
  }
  for (const file of FILES) assert.equal(statSync(join(dir, file.path)).mode & 0o7777, file.mode, file.path);
  const stamp = stampIno(dir);
  assert.equal(prepareCache(request([root])).dir, dir);
  assert.equal(payloadReads, 1, "the stamp matched: no file was read again or rewritten");
  assert.equal(stampIno(dir), stamp);
});

test("a changed file is written again from the payload before anything runs it, even with its size and mtime kept", () => {
  const root = join(work, "cache");
  const { dir } = prepareCache(request([root]));
  const script = join(dir, "chaind.js");
  const before = statSync(script);
  // The probe's tampering, at the same size and with the old mtime put back: only ctime and the hash tell.
  const tampered = Buffer.from('console.log("TAMPERED CODE RAN");').subarray(0, before.size);
  writeFileSync(script, Buffer.concat([tampered, Buffer.alloc(before.size - tampered.length, 0x20)]));
  utimesSync(script, before.atime, before.mtime);
  assert.equal(prepareCache(request([root])).dir, dir);
  assertWhole(dir);
  // The repaired state is stamped again: the next start takes the fast path.
  const stamp = stampIno(dir);
  prepareCache(request([root]));
  assert.equal(stampIno(dir), stamp);
});

test("a deleted addon, a deleted directory and a file replaced by a link are repaired", () => {
  const root = join(work, "cache");
  const { dir } = prepareCache(request([root]));
  rmSync(join(dir, "prebuilds"), { recursive: true });
  rmSync(join(dir, "package.json"));
  symlinkSync("/etc/hostname", join(dir, "package.json"));
  rmSync(join(dir, "chaind.js"));
  writeFileSync(join(dir, "chaind.js"), "");
  assert.equal(prepareCache(request([root])).dir, dir);
  assertWhole(dir);
  assert.equal(statSync(join(dir, "prebuilds")).mode & 0o022, 0, "recreated directories are not group-writable");
  assert.deepEqual(readdirSync(dir).sort(), [".verified", "chaind.js", "package.json", "prebuilds"]);
});

test("a root owned by another user is refused and the next one is used; the refusal is reported", {
  skip: UID === 0 ? false : "needs root to give a directory to another user",
}, () => {
  // The probe's planted, nobody-owned /tmp/chaind-cache-<uid> holding tampered code.
  const planted = join(work, "planted");
  mkdirSync(join(planted, NAME), { recursive: true, mode: 0o755 });
  writeFileSync(join(planted, NAME, "chaind.js"), 'console.log("TAMPERED CODE RAN");\n');
  chmodSync(planted, 0o755);
  chownSync(planted, 65534, 65534);
  const fallback = join(work, "fallback");
  const prepared = prepareCache(request([planted, fallback]));
  assert.equal(prepared.dir, join(fallback, NAME));
  assertWhole(prepared.dir);
  assert.deepEqual(prepared.refused, [
    `${planted}: refused, since another user could change the code it runs: it is owned by uid 65534, not by this user (uid 0)`,
  ]);
});

test("a group- or world-writable root is refused, and the next root is used", () => {
  const open = join(work, "open");
  mkdirSync(join(open, NAME), { recursive: true });
  writeFileSync(join(open, NAME, "chaind.js"), 'console.log("TAMPERED CODE RAN");\n');
  chmodSync(open, 0o777);
  const good = join(work, "good");
  const prepared = prepareCache(request([open, good]));
  assert.equal(prepared.dir, join(good, NAME));
  assertWhole(prepared.dir);
  assert.deepEqual(prepared.refused, [
    `${open}: refused, since another user could change the code it runs: it is writable by group or others (mode 0777); remove that permission (chmod go-w) to use it`,
  ]);
  assert.equal(readFileSync(join(open, NAME, "chaind.js"), "utf8"), 'console.log("TAMPERED CODE RAN");\n');
});

test("roots that are not the user's are all refused, each with its reason", () => {
  const planted = join(work, "planted");
  mkdirSync(join(planted, NAME), { recursive: true, mode: 0o755 });
  chmodSync(planted, 0o755);
  const link = join(work, "link");
  symlinkSync(planted, link);
  const other = UID + 4242;
  assert.throws(
    () => prepareCache(request([planted, link], other)),
    (error: unknown) => {
      assert.ok(error instanceof CacheUnusableError);
      assert.deepEqual(error.problems, [
        `${planted}: refused, since another user could change the code it runs: it is owned by uid ${UID}, not by this user (uid ${other})`,
        `${link}: refused, since another user could change the code it runs: it is a symbolic link owned by uid ${UID}, not by this user (uid ${other})`,
      ]);
      assert.match(error.message, /^cannot unpack the release into any cache directory \(set CHAIND_CACHE_DIR/);
      return true;
    },
  );
  assert.deepEqual(readdirSync(join(planted, NAME)), [], "nothing was written into a refused root");
});

test("an unpacked directory that others can write into is unpacked afresh", () => {
  const root = join(work, "cache");
  const { dir } = prepareCache(request([root]));
  chmodSync(join(dir, "prebuilds"), 0o777);
  writeFileSync(join(dir, "prebuilds", "planted.node"), "planted");
  assert.equal(prepareCache(request([root])).dir, dir);
  assertWhole(dir);
  assert.equal(existsSync(join(dir, "prebuilds", "planted.node")), false);
  assert.equal(statSync(join(dir, "prebuilds")).mode & 0o022, 0);
  assert.deepEqual(readdirSync(root), [NAME], "the old directory was removed");
});

test("roots on procfs fail at once with a clear reason instead of looping (HOME and TMPDIR on /proc)", () => {
  // Node's recursive mkdirSync retries forever when mkdir under an existing parent fails with ENOENT, as on procfs;
  // in a child process, so a regression ends in the timeout rather than hanging the test runner.
  const script = [
    `import { prepareCache, CacheUnusableError } from ${JSON.stringify(join(import.meta.dirname, "cache.ts"))};`,
    "try {",
    '  prepareCache({ roots: ["/proc/.cache/chaind", "/proc/chaind-cache-0"], name: "v1-x", files: [], payload: () => new Uint8Array(0), uid: 0 });',
    '  console.log("unexpectedly usable");',
    "} catch (error) {",
    "  console.log(error instanceof CacheUnusableError ? error.message : 'other: ' + String(error));",
    "}",
  ].join("\n");
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.equal(child.signal, null, "it looped until killed");
  assert.equal(child.status, 0, child.stderr);
  assert.match(child.stdout, /^cannot unpack the release into any cache directory/);
  assert.match(child.stdout, /\/proc\/\.cache\/chaind: .*mkdir '\/proc\/\.cache'/);
  assert.match(child.stdout, /\/proc\/chaind-cache-0: .*mkdir '\/proc\/chaind-cache-0'/);
});

test("makeDirectories makes every missing parent once, and refuses a file in the way", () => {
  makeDirectories(join(work, "a", "b", "c"), 0o700);
  assert.ok(statSync(join(work, "a", "b", "c")).isDirectory());
  makeDirectories(join(work, "a", "b", "c"), 0o700);
  writeFileSync(join(work, "file"), "");
  assert.throws(() => makeDirectories(join(work, "file"), 0o700), /is not a directory/);
  assert.throws(() => makeDirectories(join(work, "file", "x"), 0o700), /ENOTDIR/);
});
