import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sha256, startTestServer, type TestServer } from "../../test/support/visor/fixtures.ts";
import { parseChecksum } from "./checksum.ts";
import { silentLogger } from "./log.ts";
import { resolveBinaryUrl } from "./plan-info.ts";
import { goPlatform } from "./platform.ts";

const HEX64 = "a".repeat(64);
const policy = { attempts: 2, delayMs: 5, timeoutMs: 5_000 };

describe("parseChecksum", () => {
  it("reads sha256 and sha512, typed or by length", () => {
    assert.deepEqual(parseChecksum(`sha256:${HEX64}`), { algorithm: "sha256", hex: HEX64 });
    assert.deepEqual(parseChecksum(`SHA512:${"B".repeat(128)}`), { algorithm: "sha512", hex: "b".repeat(128) });
    assert.deepEqual(parseChecksum(HEX64), { algorithm: "sha256", hex: HEX64 });
    assert.deepEqual(parseChecksum("c".repeat(128)), { algorithm: "sha512", hex: "c".repeat(128) });
  });

  it("refuses broken hashes and malformed digests", () => {
    assert.throws(() => parseChecksum(`md5:${"a".repeat(32)}`), { message: "unsupported checksum type: md5" });
    assert.throws(() => parseChecksum(`sha1:${"a".repeat(40)}`), { message: "unsupported checksum type: sha1" });
    assert.throws(() => parseChecksum("a".repeat(32)), { message: `Unknown type for checksum ${"a".repeat(32)}` });
    assert.throws(() => parseChecksum("sha256:xyz"), { message: 'invalid checksum: "sha256:xyz" is not a hex digest' });
    assert.throws(() => parseChecksum("sha256:abcd"), /a sha256 digest has 64 hex digits, got 4/);
    assert.throws(() => parseChecksum("file:https://x/SHA256SUMS"), /checksum files are not supported/);
  });
});

describe("goPlatform", () => {
  it("names platforms the way Go does", () => {
    assert.equal(goPlatform("linux", "x64"), "linux/amd64");
    assert.equal(goPlatform("darwin", "arm64"), "darwin/arm64");
    assert.equal(goPlatform("win32", "ia32"), "windows/386");
  });
});

describe("resolveBinaryUrl", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const resolve = (info: string, mustHaveChecksum = true) =>
    resolveBinaryUrl({ info, mustHaveChecksum, platform: "linux/amd64", policy, log: silentLogger });

  it("picks this platform's entry, else any", async () => {
    const url = `https://r.example/chaind?checksum=sha256:${HEX64}`;
    assert.deepEqual(await resolve(JSON.stringify({ binaries: { "linux/amd64": url, any: "https://other" } })), {
      url,
      key: "linux/amd64",
    });
    assert.deepEqual(await resolve(JSON.stringify({ binaries: { "darwin/arm64": "x", any: url } })), {
      url,
      key: "any",
    });
  });

  it("ignores a broken entry for another platform", async () => {
    const url = `https://r.example/chaind?checksum=sha256:${HEX64}`;
    const info = JSON.stringify({ binaries: { "linux/amd64": url, "darwin/arm64": "not a url" } });
    assert.equal((await resolve(info)).url, url);
  });

  it("fetches an info document given as a URL and verifies its checksum", async () => {
    const url = `https://r.example/chaind?checksum=sha256:${HEX64}`;
    const document = JSON.stringify({ binaries: { any: url } });
    server.routes.set("/info.json", { body: `  ${document}\n` });
    assert.equal((await resolve(`${server.url}/info.json?checksum=${sha256(`  ${document}\n`)}`)).url, url);
    await assert.rejects(resolve(`${server.url}/info.json?checksum=sha256:${HEX64}`), (error: Error) => {
      assert.match(error.message, /^Checksums did not match for the plan info document/);
      return true;
    });
    await assert.rejects(resolve(`${server.url}/info.json`), /missing checksum query parameter/);
    assert.equal((await resolve(`${server.url}/info.json`, false)).url, url);
    server.routes.set("/empty.json", { body: "  \n" });
    await assert.rejects(resolve(`${server.url}/empty.json`, false), {
      message: `no content returned by "${server.url}/empty.json"`,
    });
    await assert.rejects(
      resolve(`${server.url}/missing.json`, false),
      /could not download .*missing.json: server answered 404 Not Found/,
    );
  });

  it("explains every malformed info", async () => {
    const cases: [string, RegExp][] = [
      ["   ", /^plan info must not be blank$/],
      ["v2.0.0", /^could not parse plan info: Unexpected token/],
      ['{"binaries":[]}', /"binaries" must be an object/],
      ['{"binaries":{}}', /no "binaries" entries found/],
      ['{"changelog":"x"}', /no "binaries" entries found/],
      ['{"binaries":{"linux/amd64":5}}', /binaries\[linux\/amd64\] must be a URL string, got 5/],
      ['{"binaries":{"darwin/arm64":"https://x"}}', /^cannot find binary for os\/arch: neither linux\/amd64, nor any$/],
      [
        '{"binaries":{"any":"https://x/chaind"}}',
        /invalid url "https:\/\/x\/chaind" in binaries\[any\]: missing checksum query parameter/,
      ],
      ['{"binaries":{"any":"ftp://x/chaind"}}', /unsupported scheme "ftp:"/],
      ['{"binaries":{"any":"/usr/bin/chaind"}}', /not a valid absolute URL/],
      ['{"binaries":{"any":"https://x/c?checksum=md5:00"}}', /unsupported checksum type: md5/],
    ];
    for (const [info, pattern] of cases) {
      await assert.rejects(resolve(info), (error: Error) => {
        assert.match(error.message, pattern, info);
        return true;
      });
    }
    assert.equal((await resolve('{"binaries":{"any":"https://x/chaind"}}', false)).url, "https://x/chaind");
  });
});
