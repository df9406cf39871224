import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, readlink, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, beforeEach, describe, it } from "node:test";
import { gzipSync } from "node:zlib";
import {
  makeTarGz,
  makeZip,
  sha256,
  sha512,
  startTestServer,
  type TestServer,
} from "../../test/support/visor/fixtures.ts";
import { downloadUpgrade, workDirStem } from "./download-upgrade.ts";
import { type Layout, MAX_DIR_NAME_BYTES, upgradeDirName, visorLayout } from "./layout.ts";
import { silentLogger } from "./log.ts";

const BINARY = "#!/bin/sh\necho v2\n";
const policy = { attempts: 3, delayMs: 5, timeoutMs: 5_000 };

describe("downloadUpgrade", () => {
  let server: TestServer;
  let home: string;
  let layout: Layout;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), "chainvisor-download-"));
    layout = visorLayout(home, "chaind");
    server.routes.clear();
    server.requests.length = 0;
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  const download = (url: string, mustHaveChecksum = true) =>
    downloadUpgrade({ layout, dirName: "v2", url, mustHaveChecksum, policy, log: silentLogger });
  const binaryOf = () => join(layout.upgradesDir, "v2", "bin", "chaind");
  const upgradesEntries = async () => (await readdir(layout.upgradesDir).catch(() => [])).sort();
  const serve = (path: string, body: string | Uint8Array) => {
    server.routes.set(path, { body });
    return `${server.url}${path}?checksum=${sha256(body)}`;
  };

  async function assertExecutable(path: string, content = BINARY) {
    assert.equal(await readFile(path, "utf8"), content);
    assert.equal((await stat(path)).mode & 0o111, 0o111);
  }

  it("installs a plain executable, made executable, with the checksum stripped from the request", async () => {
    const url = serve("/chaind", BINARY);
    assert.equal(await download(url), join(layout.upgradesDir, "v2"));
    await assertExecutable(binaryOf());
    assert.deepEqual(server.requests, ["/chaind"]);
    assert.deepEqual(await upgradesEntries(), ["v2"]);
  });

  it("installs under a plan name of the longest allowed directory name (255 bytes), staging under a short name", async () => {
    // The name check allows 255 bytes (NAME_MAX); the staging directory once embedded the name and failed with
    // ENAMETOOLONG for names of 233-255 bytes.
    for (const planName of ["u".repeat(MAX_DIR_NAME_BYTES), `${"x".repeat(MAX_DIR_NAME_BYTES - 7)}+é`]) {
      const dirName = upgradeDirName(planName);
      assert.ok(Buffer.byteLength(dirName) === MAX_DIR_NAME_BYTES, dirName);
      const url = serve("/chaind", BINARY);
      const installed = await downloadUpgrade({
        layout,
        dirName,
        url,
        mustHaveChecksum: true,
        policy,
        log: silentLogger,
      });
      assert.equal(installed, join(layout.upgradesDir, dirName));
      await assertExecutable(join(installed, "bin", "chaind"));
    }
    assert.ok(workDirStem("u".repeat(MAX_DIR_NAME_BYTES)).length < 40);
    assert.notEqual(workDirStem("a"), workDirStem("b"));
  });

  it("verifies sha512 as well", async () => {
    server.routes.set("/chaind", { body: BINARY });
    await download(`${server.url}/chaind?checksum=${sha512(BINARY)}`);
    await assertExecutable(binaryOf());
  });

  it("unpacks a tar.gz holding bin/<name> and keeps the rest of the release", async () => {
    const archive = await makeTarGz({ "bin/chaind": BINARY, "lib/app.js": "console.log(1)", README: "hi" });
    await download(serve("/release.tar.gz", archive));
    await assertExecutable(binaryOf());
    assert.equal(await readFile(join(layout.upgradesDir, "v2", "lib", "app.js"), "utf8"), "console.log(1)");
    assert.deepEqual(await upgradesEntries(), ["v2"]);
  });

  it("unpacks a tar.gz made from a release directory (a single top-level folder)", async () => {
    const archive = await makeTarGz({ "chaind-2.0.0/bin/chaind": BINARY, "chaind-2.0.0/share/x": "x" });
    await download(serve("/release.tar.gz", archive));
    await assertExecutable(binaryOf());
    assert.equal(await readFile(join(layout.upgradesDir, "v2", "share", "x"), "utf8"), "x");
  });

  it("keeps links inside the release", async () => {
    const work = await mkdtemp(join(tmpdir(), "chainvisor-tarlink-"));
    try {
      await mkdir(join(work, "bin"));
      await mkdir(join(work, "libexec"));
      await writeFile(join(work, "libexec", "chaind-real"), BINARY, { mode: 0o755 });
      await symlink("../libexec/chaind-real", join(work, "bin", "chaind"));
      execFileSync("tar", ["czf", join(work, "r.tar.gz"), "-C", work, "bin", "libexec"]);
      await download(serve("/r.tar.gz", await readFile(join(work, "r.tar.gz"))));
      assert.equal(await readlink(binaryOf()), "../libexec/chaind-real");
      await assertExecutable(binaryOf());
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });

  it("unpacks a zip holding <name> at its root into bin/<name>", async () => {
    await download(serve("/release.zip", await makeZip({ chaind: BINARY, "notes.txt": "n" })));
    await assertExecutable(binaryOf());
    assert.equal(await readFile(join(layout.upgradesDir, "v2", "notes.txt"), "utf8"), "n");
  });

  it("decompresses a gzip-compressed executable", async () => {
    await download(serve("/chaind.gz", gzipSync(BINARY)));
    await assertExecutable(binaryOf());
  });

  it("retries a server error and succeeds", async () => {
    let calls = 0;
    server.routes.set("/flaky", () => (++calls === 1 ? { status: 503, body: "busy" } : { body: BINARY }));
    await download(`${server.url}/flaky?checksum=${sha256(BINARY)}`);
    assert.equal(calls, 2);
    await assertExecutable(binaryOf());
  });

  it("does nothing when the release is already there", async () => {
    await mkdir(join(layout.upgradesDir, "v2", "bin"), { recursive: true });
    await writeFile(binaryOf(), BINARY);
    await download(`${server.url}/never?checksum=${sha256("x")}`);
    assert.deepEqual(server.requests, []);
  });

  it("refuses a directory made by hand without the executable", async () => {
    await mkdir(join(layout.upgradesDir, "v2"), { recursive: true });
    await assert.rejects(download(serve("/chaind", BINARY)), {
      message: `upgrade dir already exists, won't overwrite: ${join(layout.upgradesDir, "v2")}`,
    });
  });

  // Each failure must say what was wrong and leave upgrades/ exactly as it was, so a retry just works.
  const failures: [string, () => Promise<string>, RegExp, boolean?][] = [
    [
      "a bad checksum",
      async () => {
        server.routes.set("/chaind", { body: "tampered" });
        return `${server.url}/chaind?checksum=${sha256(BINARY)}`;
      },
      /^Checksums did not match for http:\/\/127\.0\.0\.1:\d+\/chaind\?checksum=sha256:/,
    ],
    [
      "a 404",
      async () => `${server.url}/gone?checksum=${sha256(BINARY)}`,
      /could not download .*\/gone: server answered 404 Not Found$/,
    ],
    [
      "an archive without the binary",
      async () => serve("/wrong.tar.gz", await makeTarGz({ "bin/otherd": BINARY, README: "x" })),
      /result does not contain a bin\/chaind or chaind file/,
    ],
    [
      "a missing checksum",
      async () => {
        server.routes.set("/chaind", { body: BINARY });
        return `${server.url}/chaind`;
      },
      /missing checksum query parameter/,
    ],
    [
      "an archive escaping its directory",
      async () => {
        const work = await mkdtemp(join(tmpdir(), "chainvisor-evil-"));
        await mkdir(join(work, "bin"));
        await writeFile(join(work, "bin", "chaind"), BINARY);
        await symlink("/etc/passwd", join(work, "bin", "passwd"));
        execFileSync("tar", ["czf", join(work, "e.tar.gz"), "-C", work, "bin"]);
        const url = serve("/evil.tar.gz", await readFile(join(work, "e.tar.gz")));
        await rm(work, { recursive: true, force: true });
        return url;
      },
      /^the archive holds unsafe entries$/,
    ],
    [
      "a zip escaping its directory",
      async () => serve("/evil.zip", await makeZip({ chaind: BINARY, "../../outside": "x" })),
      /^the archive holds unsafe entries$/,
    ],
    [
      "a zip whose only file is in the way of bin/<name> (found by fuzzing)",
      async () => serve("/layout.zip", await makeZip({ "bin/chaind/x": BINARY, "chaind/": "" })),
      /^the archive's bin\/chaind\/x cannot be installed as bin\/chaind: ENOTEMPTY/,
    ],
    [
      "a damaged tar.gz (node-tar's own error, found by fuzzing)",
      async () => {
        const archive = Buffer.from(await makeTarGz({ "bin/chaind": BINARY }));
        return serve("/damaged.tar.gz", archive.subarray(0, archive.length - 12));
      },
      /^the tar\.gz download cannot be unpacked: /,
    ],
    [
      "a network failure",
      async () => `http://127.0.0.1:1/chaind?checksum=${sha256(BINARY)}`,
      /could not download .* \(gave up after 3 attempts\)$/,
    ],
  ];
  for (const [what, makeUrl, message] of failures) {
    it(`fails clearly on ${what}, leaves nothing behind, and a retry with a good source succeeds`, async () => {
      await mkdir(layout.upgradesDir, { recursive: true });
      await assert.rejects(download(await makeUrl()), (error: Error) => {
        assert.match(error.message, message);
        return true;
      });
      assert.deepEqual(await upgradesEntries(), []);
      await download(serve("/good", BINARY));
      await assertExecutable(binaryOf());
    });
  }
});
