import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { zipSync } from "fflate";
import * as tar from "tar";
import { PlanInfoError, parsePlanInfo, validateBinaries, validatePlanInfo } from "./plan-info.ts";

const files = new Map<string, Uint8Array>();
let server: Server;
let base: string;
let dir: string;

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const sha512 = (bytes: Uint8Array) => createHash("sha512").update(bytes).digest("hex");

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "plan-info-"));
  server = createServer((request, response) => {
    const body = files.get(new URL(request.url ?? "/", "http://x").pathname);
    if (body === undefined) {
      response.writeHead(404).end("not found");
      return;
    }
    response.writeHead(200, { "content-type": "application/octet-stream" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  files.set("/chaind", new TextEncoder().encode("#!/bin/sh\necho chaind v2\n"));
  const stage = join(dir, "stage");
  await mkdir(join(stage, "bin"), { recursive: true });
  await writeFile(join(stage, "bin", "chaind"), "binary", { mode: 0o755 });
  await writeFile(join(stage, "README"), "readme");
  await tar.c({ gzip: true, file: join(dir, "release.tar.gz"), cwd: stage }, ["bin", "README"]);
  files.set("/release.tar.gz", new Uint8Array(await readFile(join(dir, "release.tar.gz"))));
  await tar.c({ gzip: true, file: join(dir, "other.tar.gz"), cwd: stage }, ["README"]);
  files.set("/other.tar.gz", new Uint8Array(await readFile(join(dir, "other.tar.gz"))));
  files.set("/release.zip", zipSync({ simd: new TextEncoder().encode("simd binary"), "docs/": new Uint8Array() }));
});

after(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

const url = (path: string, checksum?: string) =>
  `${base}${path}${checksum === undefined ? "" : `?checksum=${checksum}`}`;
const info = (binaries: Record<string, string>) => JSON.stringify({ binaries });

async function rejectsWith(promise: Promise<unknown>, pattern: RegExp | string): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof PlanInfoError, String(err));
    if (typeof pattern === "string") assert.equal(err.message, pattern);
    else assert.match(err.message, pattern);
    return true;
  });
}

test("parse: blank, not JSON, wrong shapes", async () => {
  await rejectsWith(parsePlanInfo("  "), "plan info must not be blank");
  await rejectsWith(parsePlanInfo("{nope"), /^could not parse plan info: .*; expected JSON such as \{"binaries"/);
  await rejectsWith(
    parsePlanInfo("[1]"),
    'could not parse plan info: expected a JSON object with a "binaries" map, got an array',
  );
  await rejectsWith(
    parsePlanInfo('{"binaries":[1]}'),
    'could not parse plan info: "binaries" must be an object of platform → URL, got an array',
  );
  await rejectsWith(
    parsePlanInfo('{"binaries":{"linux/amd64":5}}'),
    'could not parse plan info: binaries["linux/amd64"] must be a URL string, got number 5',
  );
  assert.deepEqual(await parsePlanInfo('{"binaries":{"os1/arch1":"url1"},"other":1}'), {
    binaries: { "os1/arch1": "url1" },
  });
  assert.deepEqual(await parsePlanInfo("{}"), { binaries: {} });
});

test("validateBinaries: empty map, bad platform keys, bad URLs, missing or malformed checksums", () => {
  const good = `https://example.com/chaind?checksum=sha256:${"a".repeat(64)}`;
  const throws = (binaries: Record<string, string>, message: string, enforce = true) =>
    assert.throws(
      () => validateBinaries(binaries, enforce),
      (err: unknown) => {
        assert.ok(err instanceof PlanInfoError);
        assert.equal(err.message, message);
        return true;
      },
    );
  throws({}, 'no "binaries" entries found; expected {"binaries":{"<os>/<arch>":"<url>"}}');
  const keyError = (key: string) =>
    `invalid os/arch format in key "${key}": expected "any" or <os>/<arch> with Go's names, e.g. linux/amd64, linux/arm64, darwin/arm64, windows/amd64`;
  for (const key of ["badkey", "", "linux/x86_64", "Linux/amd64", "linux/amd64/v3", "os1/arch1"])
    throws({ [key]: good }, keyError(key));
  throws(
    { "linux/amd64": "url1" },
    'invalid url "url1" in binaries[linux/amd64]: not an absolute URL; expected e.g. https://example.com/chaind-linux-amd64?checksum=sha256:<hex>',
  );
  throws(
    { "linux/amd64": "http://host:99999/x" },
    'invalid url "http://host:99999/x" in binaries[linux/amd64]: not an absolute URL; expected e.g. https://example.com/chaind-linux-amd64?checksum=sha256:<hex>',
  );
  throws(
    { any: "ftp://example.com/chaind?checksum=sha256:00" },
    'invalid url "ftp://example.com/chaind?checksum=sha256:00" in binaries[any]: unsupported scheme "ftp"; expected http, https or file',
  );
  throws(
    { "darwin/arm64": "https://example.com/chaind" },
    'invalid url "https://example.com/chaind" in binaries[darwin/arm64]: missing checksum query parameter (add ?checksum=sha256:<hex>)',
  );
  throws(
    { any: "https://example.com/chaind?checksum=md5:00" },
    'invalid url "https://example.com/chaind?checksum=md5:00" in binaries[any]: invalid checksum "md5:00": expected sha256:<64 hex digits> or sha512:<128 hex digits>',
  );
  throws(
    { any: "https://example.com/chaind?checksum=sha256:abc" },
    'invalid url "https://example.com/chaind?checksum=sha256:abc" in binaries[any]: invalid checksum "sha256:abc": expected sha256:<64 hex digits> or sha512:<128 hex digits>',
  );
  // Anything after the digest makes it no digest (chainvisor and cosmovisor refuse it at download time).
  throws(
    { any: `${good}:00` },
    `invalid url "${good}:00" in binaries[any]: invalid checksum "sha256:${"a".repeat(64)}:00": expected sha256:<64 hex digits> or sha512:<128 hex digits>`,
  );
  // Without the requirement a URL may go without a checksum, but a present one must still be well formed.
  validateBinaries({ "linux/amd64": "https://example.com/chaind", any: good }, false);
  throws(
    { any: "https://example.com/chaind?checksum=sha1:00" },
    'invalid url "https://example.com/chaind?checksum=sha1:00" in binaries[any]: invalid checksum "sha1:00": expected sha256:<64 hex digits> or sha512:<128 hex digits>',
    false,
  );
});

test("download: plain binaries and archives with the right checksum pass", async () => {
  const binary = files.get("/chaind")!;
  await validatePlanInfo(
    info({
      "linux/amd64": url("/chaind", `sha256:${sha256(binary)}`),
      "linux/arm64": url("/chaind", `sha512:${sha512(binary)}`),
      "darwin/arm64": url("/release.tar.gz", `sha256:${sha256(files.get("/release.tar.gz")!)}`),
    }),
  );
  await validatePlanInfo(info({ any: url("/release.zip", `sha256:${sha256(files.get("/release.zip")!)}`) }), {
    daemonName: "simd",
  });
});

test("download: a checksum mismatch, a missing file, an archive without the daemon", async () => {
  const wrong = "0".repeat(64);
  await rejectsWith(
    validatePlanInfo(info({ "linux/amd64": url("/chaind", `sha256:${wrong}`) })),
    `error downloading binary for os/arch linux/amd64: Checksums did not match for ${base}/chaind. Expected: ${wrong}, got: ${sha256(files.get("/chaind")!)}`,
  );
  await rejectsWith(
    validatePlanInfo(info({ any: url("/missing", `sha256:${wrong}`) })),
    `error downloading binary for os/arch any: bad response status from ${base}/missing: 404 Not Found`,
  );
  await rejectsWith(
    validatePlanInfo(info({ any: url("/other.tar.gz", `sha256:${sha256(files.get("/other.tar.gz")!)}`) })),
    `error downloading binary for os/arch any: url "${base}/other.tar.gz" result does not contain a bin/chaind or chaind file`,
  );
  await rejectsWith(
    validatePlanInfo(info({ any: url("/release.zip", `sha256:${sha256(files.get("/release.zip")!)}`) }), {
      daemonName: "chaind",
    }),
    `error downloading binary for os/arch any: url "${base}/release.zip" result does not contain a bin/chaind or chaind file`,
  );
  await rejectsWith(
    validatePlanInfo(info({ any: url("/release.zip", `sha256:${sha256(files.get("/release.zip")!)}`) }), {
      daemonName: "docs",
    }),
    `error downloading binary for os/arch any: docs in "${base}/release.zip" is not a regular file`,
  );
});

test('download: a server that cannot be reached is reported with the reason, not only "fetch failed"', async () => {
  // A port nothing listens on: connecting to it is refused at once.
  const refused = createServer();
  await new Promise<void>((resolve) => refused.listen(0, "127.0.0.1", resolve));
  const { port } = refused.address() as AddressInfo;
  await new Promise<void>((resolve) => refused.close(() => resolve()));
  await assert.rejects(
    validatePlanInfo(info({ any: `http://127.0.0.1:${port}/chaind?checksum=sha256:${"0".repeat(64)}` })),
    (err: Error) => {
      assert.ok(err instanceof PlanInfoError);
      assert.match(err.message, /^error downloading binary for os\/arch any: fetch failed \(.*ECONNREFUSED.*\)$/);
      return true;
    },
  );
});

test("--no-checksum-required downloads without verifying; download: false only checks the map", async () => {
  await validatePlanInfo(info({ any: url("/chaind") }), { enforceChecksum: false });
  await rejectsWith(validatePlanInfo(info({ any: url("/chaind") })), /missing checksum query parameter/);
  await validatePlanInfo(info({ any: "https://unreachable.invalid/x?checksum=sha256:" + "1".repeat(64) }), {
    download: false,
  });
});

test("info given as a URL is downloaded, verified and parsed", async () => {
  const binary = files.get("/chaind")!;
  const json = new TextEncoder().encode(info({ "linux/amd64": url("/chaind", `sha256:${sha256(binary)}`) }));
  files.set("/info.json", json);
  const parsed = await validatePlanInfo(url("/info.json", `sha256:${sha256(json)}`));
  assert.deepEqual(Object.keys(parsed.binaries), ["linux/amd64"]);
  await rejectsWith(
    validatePlanInfo(url("/info.json", `sha256:${"f".repeat(64)}`)),
    /^could not download url ".*\/info\.json\?checksum=sha256:f+": Checksums did not match/,
  );
  await rejectsWith(
    validatePlanInfo(url("/info.json")),
    /^invalid url ".*info\.json" in plan info url: missing checksum query parameter/,
  );
  files.set("/empty.json", new TextEncoder().encode("  \n"));
  await rejectsWith(
    validatePlanInfo(url("/empty.json"), { enforceChecksum: false }),
    `no content returned by "${base}/empty.json"`,
  );
});
