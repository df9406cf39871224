// chainvisor's failure modes (issue 13): a node that stays up after writing its plan while its API is unreachable,
// plan names no file system can hold, a malformed upgrade-info.json from a node that exits at once, and downloads
// that are too big, zip bombs, or fail on the network. Real processes, real sockets, real files.
import assert from "node:assert/strict";
import { mkdtemp, readdir, readlink, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, beforeEach, describe, it } from "node:test";
import {
  createTestHome,
  makeZip,
  runVisor,
  sha256,
  startTestServer,
  type TestHome,
  type TestServer,
  touches,
  writeFakeNode,
  writesPlan,
} from "../../test/support/visor/fixtures.ts";
import { DEFAULT_DOWNLOAD_MAX_BYTES, parseByteSize } from "./config.ts";
import { downloadUpgrade } from "./download-upgrade.ts";
import { redactUrl } from "./http-fetch.ts";
import { type Layout, upgradeDirName, visorLayout } from "./layout.ts";
import { silentLogger } from "./log.ts";

/** A port on 127.0.0.1 that nothing listens on: bound by the system, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("chainvisor run: nodes that misbehave at the halt", () => {
  let home: TestHome;
  beforeEach(async () => {
    home = await createTestHome();
  });
  afterEach(() => home.cleanup());

  it("stops a node that keeps running after writing upgrade-info.json while its API is unreachable", async () => {
    // The node writes the plan, ignores SIGTERM and never exits by itself (bounded so nothing outlives the test).
    await writeFakeNode(home.path("chainvisor", "genesis", "bin", "chaind"), {
      label: "genesis",
      body: `trap '' TERM\n${writesPlan({ name: "v2", height: 40 })}\ni=0; while [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done\nexit 0`,
    });
    await writeFakeNode(home.path("chainvisor", "upgrades", "v2", "bin", "chaind"), {
      label: "v2",
      body: `${touches("v2-ran")}\nexit 0`,
    });
    const api = `http://127.0.0.1:${await closedPort()}`;
    const result = await runVisor(
      ["run", "start"],
      home.env({ CHAINVISOR_API_URL: api, DAEMON_SHUTDOWN_GRACE: "200ms", UNSAFE_SKIP_BACKUP: "true" }),
      60_000,
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /its REST API cannot be reached \(GET http:\/\/127\.0\.0\.1:\d+\/chain\/upgrade/);
    assert.match(result.stderr, /stopping the node/);
    assert.match(result.stderr, /DAEMON_SHUTDOWN_GRACE exceeded, killing the node/);
    assert.equal(await readlink(home.path("chainvisor", "current")), "upgrades/v2");
    assert.ok((await home.read("runs.log")).includes("v2 start"));
  });

  it("fails loudly on a plan name too long to be a directory, instead of passing the halt off as an exit", async () => {
    const name = `v2-${"x".repeat(297)}`;
    await writeFakeNode(home.path("chainvisor", "genesis", "bin", "chaind"), {
      label: "genesis",
      body: `${writesPlan({ name, height: 12 })}\nexit 20`,
    });
    const result = await runVisor(["run", "start"], home.env({ UNSAFE_SKIP_BACKUP: "true" }));
    assert.equal(result.code, 1, result.stderr);
    assert.match(
      result.stderr,
      /failed: upgrade name "v2-x{37}\.\.\." \(300 characters\) cannot be used as a directory name: it becomes 300 bytes, and a file name holds at most 255/,
    );
    assert.doesNotMatch(result.stderr, /ENAMETOOLONG|no upgrade is due/);
    assert.equal(await readlink(home.path("chainvisor", "current")), "genesis");
  });

  it("names the file and the parse error of a malformed upgrade-info.json when the node exits at once", async () => {
    await writeFakeNode(home.path("chainvisor", "genesis", "bin", "chaind"), {
      label: "genesis",
      body: `printf '%s' '{"name":"v2","height":' > "$DAEMON_HOME/data/upgrade-info.json"\nexit 20`,
    });
    const result = await runVisor(["run", "start"], home.env());
    assert.equal(result.code, 1, result.stderr);
    const file = home.path("data", "upgrade-info.json").replace(/[/.]/g, (c) => `\\${c}`);
    assert.match(
      result.stderr,
      new RegExp(`the node exited \\(exit status 20\\) and ${file} cannot be used: cannot parse ${file}: .*JSON`),
    );
    assert.doesNotMatch(result.stderr, /no upgrade is due/);
  });

  it("says an upgrade-info.json still empty (0 bytes) after the node exited cannot be used, not that no upgrade is due", async () => {
    await writeFakeNode(home.path("chainvisor", "genesis", "bin", "chaind"), {
      label: "genesis",
      body: `: > "$DAEMON_HOME/data/upgrade-info.json"\nexit 20`,
    });
    const result = await runVisor(["run", "start"], home.env());
    assert.equal(result.code, 1, result.stderr);
    const file = home.path("data", "upgrade-info.json").replace(/[/.]/g, (c) => `\\${c}`);
    assert.match(
      result.stderr,
      new RegExp(
        `the node exited \\(exit status 20\\) and ${file} cannot be used: empty upgrade-info\\.json in "${file}"`,
      ),
    );
    assert.doesNotMatch(result.stderr, /no upgrade is due|\n\s+at /);
    assert.equal(await home.read("data", "upgrade-info.json"), "", "the file is left as it was");
    assert.equal(await readlink(home.path("chainvisor", "current")), "genesis");
  });

  it("gives a file the node is still writing (empty for a while, then the plan) the time to be written", async () => {
    // A non-atomic writer: the file sits empty for several polls while the node runs, then the plan lands and the
    // node exits at once.
    await writeFakeNode(home.path("chainvisor", "genesis", "bin", "chaind"), {
      label: "genesis",
      body: `: > "$DAEMON_HOME/data/upgrade-info.json"\nsleep 0.3\nprintf '%s' '{"name":"v2","height":7}' > "$DAEMON_HOME/data/upgrade-info.json"\nexit 20`,
    });
    await writeFakeNode(home.path("chainvisor", "upgrades", "v2", "bin", "chaind"), {
      label: "v2",
      body: `${touches("v2-ran")}\nexit 0`,
    });
    const result = await runVisor(["run", "start"], home.env({ UNSAFE_SKIP_BACKUP: "true" }));
    assert.equal(result.code, 0, result.stderr);
    assert.doesNotMatch(result.stderr, /cannot be used|empty upgrade-info/);
    assert.equal(await readlink(home.path("chainvisor", "current")), "upgrades/v2");
    assert.ok((await home.read("runs.log")).includes("v2 start"));
  });

  it("refuses a plan name no file system can hold in add-upgrade, before writing anything", async () => {
    await writeFakeNode(home.path("chainvisor", "genesis", "bin", "chaind"), { label: "genesis" });
    const source = await writeFakeNode(home.path("build", "chaind"), { label: "x" });
    const result = await runVisor(["add-upgrade", "y".repeat(256), source], home.env());
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /cannot be used as a directory name: it becomes 256 bytes/);
    assert.deepEqual(await readdir(home.path("chainvisor")), ["genesis"]);
  });
});

describe("upgradeDirName limits", () => {
  it("accepts 255 bytes and refuses 256, counting escapes (%20 is three bytes)", () => {
    assert.equal(upgradeDirName("a".repeat(255)).length, 255);
    assert.throws(() => upgradeDirName("a".repeat(256)), /it becomes 256 bytes/);
    assert.throws(() => upgradeDirName(" ".repeat(86)), /it becomes 258 bytes/);
  });
});

describe("DAEMON_DOWNLOAD_MAX_SIZE", () => {
  it("parses byte counts and units, defaults to 1 GiB and explains a bad value", () => {
    const problems: string[] = [];
    assert.equal(parseByteSize("", problems), DEFAULT_DOWNLOAD_MAX_BYTES);
    assert.equal(DEFAULT_DOWNLOAD_MAX_BYTES, 1024 ** 3);
    assert.equal(parseByteSize("1048576", problems), 1048576);
    assert.equal(parseByteSize("512MiB", problems), 512 * 1024 ** 2);
    assert.equal(parseByteSize("2GB", problems), 2e9);
    assert.equal(parseByteSize("1.5g", problems), 1.5 * 1024 ** 3);
    assert.deepEqual(problems, []);
    parseByteSize("lots", problems);
    parseByteSize("0", problems);
    assert.deepEqual(problems, [
      'invalid: DAEMON_DOWNLOAD_MAX_SIZE: expected a size of at least 1 byte such as 1073741824, 512MiB or 2GB, got "lots"',
      'invalid: DAEMON_DOWNLOAD_MAX_SIZE: expected a size of at least 1 byte such as 1073741824, 512MiB or 2GB, got "0"',
    ]);
  });

  it("is reported by chainvisor as a configuration error", async () => {
    const home = await createTestHome();
    try {
      const result = await runVisor(["status"], home.env({ DAEMON_DOWNLOAD_MAX_SIZE: "-5" }));
      assert.equal(result.code, 1);
      assert.match(result.stderr, /invalid: DAEMON_DOWNLOAD_MAX_SIZE: expected a size/);
    } finally {
      await home.cleanup();
    }
  });
});

describe("downloads: bounded, streamed, and errors that say where and why", () => {
  let server: TestServer;
  let home: string;
  let layout: Layout;
  const policy = { attempts: 1, delayMs: 5, timeoutMs: 30_000 };
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), "chainvisor-limits-"));
    layout = visorLayout(home, "chaind");
    server.routes.clear();
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  const download = (url: string, maxBytes: number) =>
    downloadUpgrade({ layout, dirName: "v2", url, mustHaveChecksum: false, policy, log: silentLogger, maxBytes });
  const leftovers = async () => readdir(layout.upgradesDir).catch(() => []);

  it("cuts off an answer without Content-Length once it passes the limit, leaving nothing behind", async () => {
    // Headers and 64 KiB are sent, then the answer never ends: only the limit can stop it.
    server.routes.set("/endless", { body: new Uint8Array(64 * 1024), hang: true });
    await assert.rejects(
      download(`${server.url}/endless`, 16 * 1024),
      /could not download http:\/\/127\.0\.0\.1:\d+\/endless: the answer passed the limit of 16384 bytes \(DAEMON_DOWNLOAD_MAX_SIZE\)/,
    );
    assert.deepEqual(await leftovers(), []);
  });

  it("refuses a Content-Length above the limit before writing anything", async () => {
    server.routes.set("/big", { body: new Uint8Array(40_000), headers: { "content-length": "40000" } });
    await assert.rejects(
      download(`${server.url}/big`, 10_000),
      /could not download .*\/big: the answer is 40000 bytes \(Content-Length\), more than the limit of 10000 bytes/,
    );
    assert.deepEqual(await leftovers(), []);
  });

  it("streams a zip bomb and stops at the limit (64 MiB of zeros in a small zip)", async () => {
    const bomb = await makeZip({ "bin/chaind": "\0".repeat(64 * 1024 * 1024) });
    assert.ok(bomb.length < 1024 * 1024, `the test zip is ${bomb.length} bytes`);
    server.routes.set("/bomb.zip", { body: bomb });
    const before = process.memoryUsage().arrayBuffers;
    await assert.rejects(
      download(`${server.url}/bomb.zip?checksum=${sha256(bomb)}`, 8 * 1024 * 1024),
      /the archive unpacks to more than the limit of 8388608 bytes \(DAEMON_DOWNLOAD_MAX_SIZE\); unpacking stopped/,
    );
    // Inflated data went to the file chunk by chunk; none of the 64 MiB was ever gathered in memory.
    assert.ok(process.memoryUsage().arrayBuffers - before < 48 * 1024 * 1024);
    assert.deepEqual(await leftovers(), []);
  });

  it("still unpacks a zip release within the limit", async () => {
    const zip = await makeZip({ "bin/chaind": "#!/bin/sh\necho v2\n", "lib/data.txt": "x".repeat(100_000) });
    server.routes.set("/ok.zip", { body: zip });
    await download(`${server.url}/ok.zip?checksum=${sha256(zip)}`, 1024 * 1024);
    assert.deepEqual((await readdir(join(layout.upgradesDir, "v2"))).sort(), ["bin", "lib"]);
  });

  it("names the URL without credentials or query secrets, and the cause (connection refused)", async () => {
    const port = await closedPort();
    const url = `http://operator:hunter2@127.0.0.1:${port}/chaind.tar.gz?X-Amz-Signature=s3cr3t&checksum=sha256:${"0".repeat(64)}`;
    const error = await download(url, 1024).then(
      () => assert.fail("the download succeeded"),
      (caught: Error) => caught,
    );
    assert.match(
      error.message,
      new RegExp(
        `^could not download http://127\\.0\\.0\\.1:${port}/chaind\\.tar\\.gz\\?X-Amz-Signature=REDACTED: connection refused \\(connect ECONNREFUSED 127\\.0\\.0\\.1:${port}\\) \\(gave up after 1 attempts\\)$`,
      ),
    );
    assert.doesNotMatch(error.message, /hunter2|s3cr3t|operator/);
  });

  it("redactUrl keeps checksum and archive, hides the rest", () => {
    assert.equal(
      redactUrl("https://u:p@h.example/x?token=abc&checksum=sha256:00&archive=tar"),
      "https://h.example/x?token=REDACTED&checksum=sha256:00&archive=tar",
    );
  });
});
