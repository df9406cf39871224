// Fuzz property for release archives (issue 39): whatever a download turns out to hold, chainvisor's unpacker
// (src/visor/archive.ts: detectArtifact, unpackArtifact, locateRelease) either installs a release or fails with its
// own VisorError; it never writes outside the directory it unpacks into, and a bomb is stopped at the size limit with
// memory and disk use bounded. Inputs: tar archives built entry by entry from hostile pieces (`..`, absolute paths,
// links out, devices, FIFOs, unknown types, duplicate names), gzip-compressed or not, the same pieces as zip members,
// and byte-level mutations (flips, truncation, splices) of a well-formed release of each kind.
import assert from "node:assert/strict";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, posix, relative } from "node:path";
import { resourceUsage } from "node:process";
import { after, test } from "node:test";
import { createGzip, gzipSync } from "node:zlib";
import fc from "fast-check";
import { zipSync } from "fflate";
import { detectArtifact, locateRelease, unpackArtifact } from "../../src/visor/archive.ts";
import { VisorError } from "../../src/visor/errors.ts";
import { fuzzParameters } from "./settings.ts";

const NAME = "chaind";
/** DAEMON_DOWNLOAD_MAX_SIZE for every case: small, so bombs and large members meet it. */
const MAX_BYTES = 1024 * 1024;

const work = mkdtempSync(join(tmpdir(), "chaind-fuzz-archive-"));
after(() => rmSync(work, { recursive: true, force: true }));
let caseNumber = 0;

// ---------------------------------------------------------------------------------------------------------------
// A tar writer that takes any header values: node-tar's own writer refuses the hostile ones this property needs.

interface TarEntry {
  name: string;
  /** ustar typeflag: "0" file, "1" hard link, "2" symlink, "3" char device, "5" directory, "6" FIFO, or anything. */
  type: string;
  linkname: string;
  mode: number;
  data: Uint8Array;
  /** The size field; normally data.length, sometimes a lie. */
  size: number;
}

function octal(value: number, width: number): string {
  return `${value
    .toString(8)
    .padStart(width - 1, "0")
    .slice(-(width - 1))}\0`;
}

function tarHeader(entry: TarEntry): Buffer {
  const header = Buffer.alloc(512);
  const name = Buffer.from(entry.name, "utf8");
  // Names over 100 bytes go into the ustar prefix field (155 bytes), split at the last '/' that fits.
  let prefix = Buffer.alloc(0);
  let base = name;
  if (name.length > 100) {
    const text = entry.name;
    const cut = text.lastIndexOf("/", 155);
    if (cut > 0) {
      prefix = Buffer.from(text.slice(0, cut), "utf8");
      base = Buffer.from(text.slice(cut + 1), "utf8");
    }
  }
  base.copy(header, 0, 0, Math.min(100, base.length));
  header.write(octal(entry.mode & 0o7777, 8), 100, "latin1");
  header.write(octal(0, 8), 108, "latin1");
  header.write(octal(0, 8), 116, "latin1");
  header.write(octal(entry.size, 12), 124, "latin1");
  header.write(octal(1_700_000_000, 12), 136, "latin1");
  header.write("        ", 148, "latin1");
  header.write(entry.type.slice(0, 1) || "0", 156, "latin1");
  Buffer.from(entry.linkname, "utf8").copy(header, 157, 0, 100);
  header.write("ustar\u000000", 257, "latin1");
  prefix.copy(header, 345, 0, Math.min(155, prefix.length));
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "latin1");
  return header;
}

function tarOf(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    parts.push(tarHeader(entry));
    const data = Buffer.from(entry.data);
    parts.push(data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

// ---------------------------------------------------------------------------------------------------------------
// Generators.

/** Where an absolute member path would land: inside the case's sandbox, so an escape is seen, never harmful. */
const OUTSIDE = "@OUTSIDE@";

const segment = fc.constantFrom(
  "bin",
  NAME,
  `${NAME}.exe`,
  "lib",
  "a",
  "..",
  ".",
  "",
  "x\\..\\..\\y",
  "C:",
  "é",
  "a".repeat(120),
);
const memberPath = fc.oneof(
  { weight: 4, arbitrary: fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join("/")) },
  { weight: 1, arbitrary: fc.array(segment, { maxLength: 3 }).map((parts) => `${OUTSIDE}/${parts.join("/")}`) },
  { weight: 1, arbitrary: fc.constantFrom(`${NAME}/`, "bin/", "../", "/", `bin/${NAME}/x`) },
);
const content = fc.oneof(
  fc.constant(new Uint8Array(Buffer.from("#!/bin/sh\necho v2\n"))),
  fc.uint8Array({ maxLength: 700 }),
);
const tarEntry: fc.Arbitrary<TarEntry> = fc
  .record({
    name: memberPath,
    type: fc.constantFrom("0", "0", "0", "5", "2", "1", "3", "4", "6", "7", "x", "g", "L", "Z", "\0"),
    linkname: memberPath,
    mode: fc.constantFrom(0o755, 0o644, 0o4755, 0o777, 0o000),
    data: content,
    sizeLie: fc.oneof(
      { weight: 6, arbitrary: fc.constant(0) },
      { weight: 1, arbitrary: fc.integer({ min: -600, max: 5000 }) },
    ),
  })
  .map(({ sizeLie, ...entry }) => ({ ...entry, size: Math.max(0, entry.data.length + sizeLie) }));

/** A well-formed release, to be mutated. */
const RELEASE_TAR = tarOf([
  { name: "bin/", type: "5", linkname: "", mode: 0o755, data: new Uint8Array(0), size: 0 },
  ...[`bin/${NAME}`, "bin/chainvisor", "RELEASE"].map((name) => {
    const data = Buffer.from(name === "RELEASE" ? '{"release":"v2"}\n' : "#!/bin/sh\necho v2\n");
    return { name, type: "0", linkname: "", mode: 0o755, data, size: data.length };
  }),
]);
const RELEASE_ZIP = zipSync({ [`bin/${NAME}`]: Buffer.from("#!/bin/sh\necho v2\n"), RELEASE: Buffer.from("{}") });

type Mutation =
  | { kind: "flip"; at: number; byte: number }
  | { kind: "truncate"; at: number }
  | { kind: "splice"; at: number; bytes: Uint8Array };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant("flip" as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant("truncate" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("splice" as const), at: fc.nat(), bytes: fc.uint8Array({ maxLength: 64 }) }),
);

function mutate(input: Uint8Array, mutations: readonly Mutation[]): Buffer {
  let bytes = Buffer.from(input);
  for (const change of mutations) {
    if (bytes.length === 0) break;
    const at = change.at % bytes.length;
    if (change.kind === "flip") bytes[at] = change.byte;
    else if (change.kind === "truncate") bytes = bytes.subarray(0, at);
    else bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from(change.bytes), bytes.subarray(at)]);
  }
  return bytes;
}

// ---------------------------------------------------------------------------------------------------------------
// The property.

/** Everything under `dir`, as relative paths (links not followed). */
function walk(dir: string, base = dir): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    out.push(relative(base, path));
    if (entry.isDirectory()) out.push(...walk(path, base));
  }
  return out;
}

/**
 * Runs the unpacker on the archive `build` makes in a fresh sandbox (`download/artifact` → `download/content`) and
 * checks the property. `build` gets the sandbox's `outside/` directory, for `${OUTSIDE}` in generated paths.
 */
async function checkArchive(build: (outside: string) => Uint8Array): Promise<"installed" | "refused"> {
  const sandbox = join(work, `case-${++caseNumber}`);
  const download = join(sandbox, "download");
  const outside = join(sandbox, "outside");
  mkdirSync(download, { recursive: true });
  const artifact = join(download, "artifact");
  writeFileSync(artifact, build(outside));
  const contentDir = join(download, "content");
  let outcome: "installed" | "refused";
  try {
    const kind = await detectArtifact(artifact);
    await unpackArtifact(kind, artifact, contentDir, NAME, MAX_BYTES);
    const release = await locateRelease(contentDir, NAME, "https://example.invalid/x");
    assert.ok(lstatSync(join(release, "bin", NAME)).isFile() || lstatSync(join(release, "bin", NAME)).isSymbolicLink());
    outcome = "installed";
  } catch (error) {
    if (!(error instanceof VisorError)) {
      throw new Error(
        `not a VisorError: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
        {
          cause: error,
        },
      );
    }
    outcome = "refused";
  }
  // Nothing outside the download directory: the sandbox holds only it (no `outside/`, nothing beside it).
  assert.deepEqual(readdirSync(sandbox), ["download"], "an entry was written outside the target directory");
  const written = walk(download).filter((path) => path !== "artifact");
  let bytesOnDisk = 0;
  for (const path of written) {
    assert.ok(path === "content" || path.startsWith(`content${"/"}`), `${path} is outside content/`);
    const stats = lstatSync(join(download, path));
    if (stats.isFile()) bytesOnDisk += stats.size;
    // A link that was kept must stay inside content/ (it would lead a later write or read out of it).
    if (stats.isSymbolicLink()) {
      const target = readlinkSync(join(download, path));
      const resolved = posix.normalize(posix.join(posix.dirname(path), target));
      const inside = resolved === "content" || resolved.startsWith("content/");
      assert.ok(!target.startsWith("/") && inside, `${path} -> ${target} leads out`);
    }
    assert.ok(!stats.isCharacterDevice() && !stats.isBlockDevice() && !stats.isFIFO(), `${path} is a special file`);
  }
  assert.ok(bytesOnDisk <= MAX_BYTES + 64 * 1024, `${bytesOnDisk} bytes unpacked, limit ${MAX_BYTES}`);
  rmSync(sandbox, { recursive: true, force: true });
  return outcome;
}

/** A hang becomes a counterexample rather than the runner's timeout; each case takes milliseconds. */
const CASE_TIMEOUT_MS = 60_000;

const tarLink = (name: string, linkname: string, size: number, data: number[]): TarEntry => ({
  name,
  type: "2",
  linkname,
  mode: 0o777,
  data: Uint8Array.from(data),
  size,
});

/** Inputs found at other seeds, run at every seed. */
const TAR_EXAMPLES: Array<[TarEntry[], boolean]> = [
  // node-tar never settled its extraction (a strict-mode "stripping C:/ from absolute linkpath" while the first link
  // was being made): the unpacking hung.
  [
    [
      tarLink("chaind/", "chaind/x\\..\\..\\y/.", 7, [81, 9, 122, 18, 40, 16, 238]),
      tarLink(`a/C:/./${"a".repeat(120)}`, "C:/x\\..\\..\\y/lib/lib", 1823, [194, 164]),
      // Read as the second entry's (lying) size's worth of data.
      { ...tarLink("../", `a/${"a".repeat(120)}/chaind.exe`, 18, [...Buffer.from("#!/bin/sh\necho v2\n")]), type: "1" },
    ],
    false,
  ],
  // node-tar never settled its extraction of a hard link to a directory (here the link's own parent).
  [[{ ...tarLink("a/é", "a/.", 5, [205, 147, 56, 183, 31]), type: "1" }], false],
  // A link to itself: looking for the executable met ELOOP, thrown raw.
  [[tarLink("chaind/", "chaind/", 0, [])], true],
  // Links nesting with their targets: node-tar's extraction waited on its own path lock, forever.
  [[tarLink("s", "s/lib", 0, [])], true],
  [[tarLink("lib/chaind", "elsewhere/../lib", 0, [])], true],
];

test("tar archives of hostile entries, plain or gzip: installed or refused with a VisorError, nothing outside", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(tarEntry, { minLength: 1, maxLength: 6 }), fc.boolean(), async (entries, gzip) => {
      await checkArchive((outside) => {
        const placed = entries.map((entry) => ({
          ...entry,
          name: entry.name.replaceAll(OUTSIDE, outside),
          linkname: entry.linkname.replaceAll(OUTSIDE, outside),
        }));
        return gzip ? gzipSync(tarOf(placed)) : tarOf(placed);
      });
    }),
    { ...fuzzParameters(40), timeout: CASE_TIMEOUT_MS, examples: TAR_EXAMPLES },
  );
});

test("zip archives of hostile member names: installed or refused with a VisorError, nothing outside", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.tuple(memberPath, content), { minLength: 1, maxLength: 6 }), async (members) => {
      await checkArchive((outside) => {
        const entries: Record<string, Uint8Array> = {};
        for (const [path, data] of members) entries[path.replaceAll(OUTSIDE, outside)] = data;
        return zipSync(entries);
      });
    }),
    {
      ...fuzzParameters(30),
      timeout: CASE_TIMEOUT_MS,
      // Found at another seed: the only file sat under a directory bin/chaind, whose rename failed with a raw ENOTEMPTY.
      examples: [
        [
          [
            ["bin/chaind/x", Uint8Array.from([196, 160])],
            ["chaind/", Uint8Array.from([36, 31])],
          ],
        ],
      ],
    },
  );
});

test("mutated release archives (tar.gz, tar, zip): installed or refused with a VisorError, nothing outside", async () => {
  const sources = [gzipSync(RELEASE_TAR), RELEASE_TAR, Buffer.from(RELEASE_ZIP)];
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(0, 1, 2),
      fc.array(mutation, { minLength: 1, maxLength: 4 }),
      async (source, mutations) => {
        await checkArchive(() => mutate(sources[source], mutations));
      },
    ),
    { ...fuzzParameters(60), timeout: CASE_TIMEOUT_MS },
  );
});

// ---------------------------------------------------------------------------------------------------------------
// Bombs: 256 MiB of zeros in a few hundred KB, as gzip, tar.gz and zip. Each must stop at the 1 MiB limit, with the
// process's peak memory growing by far less than the content (it is streamed, never held).

const BOMB_BYTES = 256 * 1024 * 1024;

async function gzipOfZeros(prefix: Buffer, total: number, suffix: Buffer): Promise<Buffer> {
  const gzip = createGzip({ level: 9 });
  const chunks: Buffer[] = [];
  gzip.on("data", (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    gzip.on("end", resolve);
    gzip.on("error", reject);
  });
  const zeros = Buffer.alloc(1024 * 1024);
  gzip.write(prefix);
  for (let written = 0; written < total; written += zeros.length) {
    if (!gzip.write(zeros.subarray(0, Math.min(zeros.length, total - written)))) {
      await new Promise((resolve) => gzip.once("drain", resolve));
    }
  }
  gzip.end(suffix);
  await done;
  return Buffer.concat(chunks);
}

async function zipBomb(): Promise<Buffer> {
  const { Zip, ZipDeflate } = await import("fflate");
  const chunks: Uint8Array[] = [];
  let finished = false;
  const zip = new Zip((error, chunk, final) => {
    if (error) throw error;
    chunks.push(chunk);
    if (final) finished = true;
  });
  const entry = new ZipDeflate(`bin/${NAME}`, { level: 9 });
  zip.add(entry);
  const zeros = new Uint8Array(1024 * 1024);
  for (let written = 0; written < BOMB_BYTES; written += zeros.length) {
    entry.push(zeros, written + zeros.length >= BOMB_BYTES);
  }
  zip.end();
  assert.ok(finished);
  return Buffer.concat(chunks);
}

test("bombs stop at the size limit with bounded memory and disk: gzip, tar.gz and zip", async (t) => {
  const header = tarHeader({
    name: `bin/${NAME}`,
    type: "0",
    linkname: "",
    mode: 0o755,
    data: new Uint8Array(0),
    size: BOMB_BYTES,
  });
  const bombs: Array<[string, Buffer]> = [
    ["gzip", await gzipOfZeros(Buffer.from("#!/bin/sh\n"), BOMB_BYTES, Buffer.alloc(0))],
    ["tar.gz", await gzipOfZeros(header, BOMB_BYTES, Buffer.alloc(1024))],
    ["zip", await zipBomb()],
  ];
  // The property's own check on a sound release first (so a refusal of everything would not pass unnoticed), which
  // also loads what unpacking loads before the first peak is taken.
  assert.equal(await checkArchive(() => gzipSync(RELEASE_TAR)), "installed");
  assert.equal(await checkArchive(() => RELEASE_ZIP), "installed");
  for (const [kind, bomb] of bombs) {
    assert.ok(bomb.length < BOMB_BYTES / 100, `${kind} bomb is ${bomb.length} bytes`);
    const peakBefore = resourceUsage().maxRSS; // KiB
    assert.equal(await checkArchive(() => bomb), "refused", kind);
    const growth = (resourceUsage().maxRSS - peakBefore) * 1024;
    t.diagnostic(`${kind} bomb of ${bomb.length} bytes: peak RSS grew by ${(growth / 1048576).toFixed(1)} MiB`);
    // Held whole, the content alone would add 256 MiB (node-tar inflating the tar.gz itself peaked at +279 MiB);
    // streamed and cut at the limit, Node's gunzip measured +55 MiB and fflate's zip +0, whatever the bomb's size —
    // but up to +135 MiB beside two CPU loops, where the collector runs late. The bound sits between the two: 3/4 of
    // the content, which holding it whole (≥ 256 MiB) always passes.
    assert.ok(
      growth < (BOMB_BYTES * 3) / 4,
      `${kind}: peak memory grew by ${growth} bytes while unpacking ${BOMB_BYTES}`,
    );
  }
});
