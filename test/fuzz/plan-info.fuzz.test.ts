// A plan's Info under fuzz: whoever submits the upgrade proposal writes it, and two readers judge it: the CLI's
// validation before the proposal is sent (src/x/upgrade/plan-info.ts, which also downloads each binary and looks
// inside archives) and chainvisor when it must download the release (src/visor/plan-info.ts). Properties: each refuses
// with its own error class, what it accepts has the shape it promises (and what the CLI accepts, chainvisor accepts
// too), and the archive check writes nothing that outlives it. No property touches the network: info URLs carry no valid checksum (so they are refused before any
// download), and the archives are local files behind file:// URLs.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import fc from "fast-check";
import { gzipSync, zipSync } from "fflate";
import { VisorError } from "../../src/visor/errors.ts";
import { silentLogger } from "../../src/visor/log.ts";
import { checkDownloadUrl, resolveBinaryUrl } from "../../src/visor/plan-info.ts";
import { checkBinaryDownloads, PlanInfoError, parsePlanInfo, validateBinaries } from "../../src/x/upgrade/plan-info.ts";
import { jsonNear } from "./json-arbitraries.ts";
import { mutatedBytes, mutatedText } from "./mutations.ts";
import { parseOrOwnError, parseOrOwnErrorAsync } from "./own-errors.ts";
import { listTree, withSandbox } from "./sandbox.ts";
import { fuzzParameters } from "./settings.ts";

const SHA256 = "a".repeat(64);
const PLATFORMS = ["any", "linux/amd64", "linux/arm64", "darwin/arm64", "windows/amd64"];
const ODD_KEYS = ["linux", "linux/amd64/v2", "Linux/AMD64", "linux/x86_64", "any/any", "", "__proto__", "toString"];

/** A binary URL: mostly well formed with a checksum; else a broken checksum, an odd scheme, or any text. */
const binaryUrl = fc.oneof(
  { weight: 4, arbitrary: fc.webUrl().map((url) => `${url}?checksum=sha256:${SHA256}`) },
  fc.webUrl({ withQueryParameters: true }),
  fc.webUrl().map((url) => `${url}?checksum=sha256:${SHA256.slice(1)}`),
  fc.constantFrom("file:///opt/chaind?checksum=md5:00", "ftp://x/y", "/local/chaind", "https://", "https://[::1"),
  fc.string({ maxLength: 30 }),
);

/** The `binaries` map: mostly one to three entries under real platform keys, or any JSON in its place. */
const binaries = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.dictionary(
      fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...PLATFORMS) }, fc.constantFrom(...ODD_KEYS), fc.string()),
      binaryUrl,
      { minKeys: 1, maxKeys: 3 },
    ),
  },
  { weight: 1, arbitrary: jsonNear([...PLATFORMS, ...ODD_KEYS, "binaries"]) },
);

/** An info string: a binaries document, a valid one slightly broken, or any text. */
const infoText = fc
  .oneof(
    { weight: 3, arbitrary: binaries.map((map) => JSON.stringify({ binaries: map })) },
    { weight: 1, arbitrary: jsonNear(["binaries", ...PLATFORMS]).map((value) => JSON.stringify(value)) },
    {
      weight: 2,
      arbitrary: mutatedText(`{"binaries":{"linux/amd64":"https://example.com/chaind?checksum=sha256:${SHA256}"}}`),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
  )
  // An info that is itself a URL with a well-formed checksum would be downloaded: the properties stay offline.
  .filter((text) => !/checksum=sha(256|512):[0-9a-f]{64}/i.test(text) || text.trim().startsWith("{"));

describe("plan Info: the CLI's validation (tx upgrade software-upgrade)", () => {
  test("parses or refuses with PlanInfoError; an accepted map has Go platform keys and checksummed URLs", async () => {
    await fc.assert(
      fc.asyncProperty(infoText, async (text) => {
        const parsed = await parseOrOwnErrorAsync(() => parsePlanInfo(text), [PlanInfoError], text);
        if (parsed === undefined) return;
        for (const value of Object.values(parsed.binaries)) assert.equal(typeof value, "string");
        const valid = parseOrOwnError(
          () => {
            validateBinaries(parsed.binaries);
            return true;
          },
          [PlanInfoError],
          text,
        );
        if (valid === undefined) return;
        const keys = Object.keys(parsed.binaries);
        assert.ok(keys.length > 0, "an accepted map is not empty");
        for (const key of keys) {
          assert.match(key, /^(any|[a-z0-9]+\/[a-z0-9]+)$/, `accepted the platform key ${JSON.stringify(key)}`);
          const url: URL = new URL(
            parsed.binaries[key].startsWith("/") ? `file://${parsed.binaries[key]}` : parsed.binaries[key],
          );
          assert.ok(["http:", "https:", "file:"].includes(url.protocol), url.href);
          assert.match(url.searchParams.get("checksum") ?? "", /^(sha256:[0-9a-fA-F]{64}|sha512:[0-9a-fA-F]{128})$/);
          // What the CLI lets through must not be refused by the sidecar when the chain has halted at the plan
          // (chainvisor downloads over http and https only; file URLs are for trying a release locally).
          if (url.protocol !== "file:") assert.equal(checkDownloadUrl(parsed.binaries[key], true), undefined, url.href);
        }
      }),
      fuzzParameters(300),
    );
  });
});

describe("plan Info: chainvisor's download lookup", () => {
  test("finds this host's URL or refuses with VisorError; what it returns is usable", async () => {
    await fc.assert(
      fc.asyncProperty(infoText, fc.constantFrom("linux/amd64", "darwin/arm64"), async (text, platform) => {
        // An info that looks like a URL would be fetched: chainvisor's lookup is fuzzed on inline documents only.
        fc.pre(!/^\s*[a-z][a-z0-9+.-]*:\/\//i.test(text));
        const source = await parseOrOwnErrorAsync(
          () => resolveBinaryUrl({ info: text, mustHaveChecksum: true, platform, log: silentLogger }),
          [VisorError],
          text,
        );
        if (source === undefined) return;
        const map = (JSON.parse(text) as { binaries: Record<string, unknown> }).binaries;
        assert.ok(source.key === platform || source.key === "any", source.key);
        assert.ok(Object.hasOwn(map, source.key), `returned the key ${source.key}, which the map does not hold`);
        assert.equal(map[source.key], source.url);
        assert.equal(checkDownloadUrl(source.url, true), undefined);
      }),
      fuzzParameters(300),
    );
  });
});

// ---- archives the CLI looks into -------------------------------------------------------------------------------

/** A ustar header for one member (`size` as written: octal digits, or anything). */
function tarHeader(name: string, size: string, type: string): Uint8Array {
  const header = Buffer.alloc(512);
  header.write(name.slice(0, 100), 0, "utf8");
  header.write("0000755\0", 100);
  header.write("0000000\0", 108);
  header.write("0000000\0", 116);
  header.write(size.slice(0, 12), 124, "latin1");
  header.write("00000000000\0", 136);
  header.write(type.slice(0, 1), 156, "latin1");
  header.write("ustar\u000000", 257, "latin1");
  header.fill(" ", 148, 156);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "latin1");
  return header;
}

const memberName = fc.oneof(
  fc.constantFrom("bin/chaind", "chaind", "./chaind", "./bin/chaind", "bin/", "bin", "../chaind", "/abs/chaind"),
  fc.string({ maxLength: 20 }),
);
const member = fc.record({
  name: memberName,
  type: fc.constantFrom("0", "5", "2", "1", "x", "L", "7"),
  content: fc.uint8Array({ maxLength: 40 }),
  // The declared size: the real one, or a huge one the body does not hold (up to 8 GiB in octal).
  size: fc.oneof(fc.constant(undefined), fc.constantFrom("77777777777\0", "00000000000\0", "zz"), fc.nat().map(String)),
});

const tarGz = fc.array(member, { maxLength: 4 }).chain((members) => {
  const parts: Uint8Array[] = [];
  for (const m of members) {
    parts.push(tarHeader(m.name, m.size ?? `${m.content.length.toString(8).padStart(11, "0")}\0`, m.type));
    parts.push(m.content, new Uint8Array((512 - (m.content.length % 512)) % 512));
  }
  parts.push(new Uint8Array(1024));
  const tar = Buffer.concat(parts);
  return fc.oneof(
    fc.constant(gzipSync(tar)),
    mutatedBytes(tar).map((bytes) => gzipSync(bytes)),
  );
});

const zip = fc.array(fc.tuple(memberName, fc.uint8Array({ maxLength: 40 })), { maxLength: 4 }).chain((entries) => {
  const files: Record<string, Uint8Array> = {};
  for (const [name, content] of entries) files[name === "" ? "x" : name] = content;
  const bytes = zipSync(files);
  return fc.oneof(fc.constant(bytes), mutatedBytes(bytes));
});

/** A downloaded file: a tar.gz or zip (whole or damaged), or random bytes behind either magic number. */
const downloaded = fc.oneof(
  tarGz,
  zip,
  fc
    .tuple(
      fc.constantFrom(Uint8Array.of(0x1f, 0x8b), Uint8Array.of(0x50, 0x4b, 3, 4)),
      fc.uint8Array({ maxLength: 200 }),
    )
    .map(([magic, rest]) => new Uint8Array(Buffer.concat([magic, rest]))),
);

describe("plan Info: the CLI's archive check", () => {
  test("accepts or refuses with PlanInfoError, in bounded memory, and leaves no file behind", async () => {
    await fc.assert(
      fc.asyncProperty(downloaded, async (bytes) => {
        await withSandbox(async (sandbox) => {
          const file = join(sandbox, "release");
          await writeFile(file, bytes);
          // The check downloads into a temporary directory under os.tmpdir(): point that into the sandbox.
          const temporary = join(sandbox, "tmp");
          await mkdir(temporary);
          const before = await listTree(sandbox);
          const saved = process.env.TMPDIR;
          process.env.TMPDIR = temporary;
          const heapBefore = process.memoryUsage().arrayBuffers;
          try {
            const sum = createHash("sha256").update(bytes).digest("hex");
            await parseOrOwnErrorAsync(
              () => checkBinaryDownloads({ "linux/amd64": `file://${file}?checksum=sha256:${sum}` }),
              [PlanInfoError],
              bytes,
              { noBugCause: true },
            );
          } finally {
            if (saved === undefined) delete process.env.TMPDIR;
            else process.env.TMPDIR = saved;
          }
          // Headers may declare gigabytes; nothing is inflated, so buffers stay near the input's size.
          const grown = process.memoryUsage().arrayBuffers - heapBefore;
          assert.ok(grown < 64 * 1024 * 1024, `array buffers grew by ${grown} bytes`);
          assert.deepEqual(await listTree(sandbox), before);
        });
      }),
      fuzzParameters(60),
    );
  });
});
