// Snapshot archives and descriptors are input (`chaind snapshots load` takes a file from anywhere): for arbitrary and
// mutated descriptors, members, member names and types, and damaged gzip, the descriptor parser and `load` either
// succeed or throw the project's own errors (UserError: one line, no stack), never write or delete outside the home's
// data/snapshots (a sentinel folder beside the home and the rest of the sandbox stay as they were), leave no work
// folder behind, and keep memory bounded. Everything happens inside one temporary sandbox.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { after, before, test } from "node:test";
import { gzipSync } from "node:zlib";
import fc from "fast-check";
import { UserError } from "../../src/errors/user-error.ts";
import { loadHomeSnapshot } from "../../src/node/snapshot-home.ts";
import { parseDescriptor, SnapshotFormatError } from "../../src/snapshots/index.ts";
import { tempDir } from "../support/node/chaind.ts";
import { fuzzParameters } from "./settings.ts";

let sandbox: Awaited<ReturnType<typeof tempDir>>;
let home: string;
let snapshotsDir: string;
let sentinel: string;

const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex").toUpperCase();
const CHUNKS = [Buffer.from("first chunk of the state stream"), Buffer.from("second chunk")];
const ENGINE_STATE = Buffer.from('{"state":{"chainId":"fuzz"}}');
/** A descriptor that `load` accepts for CHUNKS and ENGINE_STATE. */
const VALID = {
  height: "42",
  format: 1,
  chunks: 2,
  hash: sha256(Buffer.concat(CHUNKS)),
  chunk_hashes: CHUNKS.map((c) => sha256(c)),
  engine_state_hash: sha256(ENGINE_STATE),
};

before(async () => {
  sandbox = await tempDir("chaind-fuzz-snapshot-archive-");
  home = join(sandbox.path, "home");
  snapshotsDir = join(home, "data", "snapshots");
  await mkdir(join(home, "data"), { recursive: true });
  await mkdir(join(home, "config"));
  await writeFile(join(home, "config", "genesis.json"), "{}");
  sentinel = join(sandbox.path, "sentinel");
  await mkdir(join(sentinel, "inner"), { recursive: true });
  await writeFile(join(sentinel, "inner", "keep"), "keep me");
});

after(async () => {
  await sandbox?.remove();
});

/** Every path in the sandbox outside the home's data/snapshots, with each file's size and content hash. */
async function outsideState(): Promise<string[]> {
  const out: string[] = [];
  for (const path of (await readdir(sandbox.path, { recursive: true })) as string[]) {
    const full = join(sandbox.path, path);
    const rel = relative(snapshotsDir, full);
    if (!rel.startsWith("..")) continue; // inside data/snapshots (or it)
    const info = await stat(full);
    out.push(info.isFile() ? `${path} ${sha256(await readFile(full))}` : `${path}/`);
  }
  return out.sort();
}

/** One tar member as the fuzzer makes it: any name, a type flag, any content. */
interface Member {
  name: string;
  type: "0" | "2" | "5" | "1";
  body: Uint8Array;
  /** A size the header declares instead of the body's (a lie, or a bomb's huge size). */
  declared?: number;
}

/** A ustar header (names cut to 100 bytes); written by hand so that no library normalises hostile names. */
function header(member: Member): Buffer {
  const h = Buffer.alloc(512);
  h.write(member.name.slice(0, 100), 0, "utf8");
  h.write("0000644\0", 100);
  h.write("0000000\0", 108);
  h.write("0000000\0", 116);
  const size = member.declared ?? (member.type === "0" ? member.body.length : 0);
  h.write(`${size.toString(8).padStart(11, "0").slice(-11)}\0`, 124);
  h.write("00000000000\0", 136);
  h.write("        ", 148);
  h.write(member.type, 156);
  if (member.type === "2" || member.type === "1") h.write(join(sentinel, "inner", "keep").slice(0, 100), 157);
  h.write("ustar\0", 257);
  h.write("00", 263);
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  return h;
}

function tarOf(members: Member[]): Buffer {
  const parts: Buffer[] = [];
  for (const m of members) {
    parts.push(header(m));
    if (m.type === "0") {
      parts.push(Buffer.from(m.body));
      parts.push(Buffer.alloc((512 - (m.body.length % 512)) % 512));
    }
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

const validMembers = (descriptor: unknown): Member[] => [
  { name: "snapshot.json", type: "0", body: Buffer.from(JSON.stringify(descriptor)) },
  { name: "0", type: "0", body: CHUNKS[0] },
  { name: "1", type: "0", body: CHUNKS[1] },
  { name: "engine-state.json", type: "0", body: ENGINE_STATE },
];

/** Values aimed at the descriptor's fields: paths, wrong types, out-of-range and near-boundary numbers. */
const hostileValue = fc.oneof(
  fc.constantFrom(
    "../sentinel",
    "../../../sentinel/inner",
    "..",
    ".",
    "",
    "/",
    "1",
    "-5",
    "0",
    "007",
    "1e3",
    "18446744073709551615",
    "18446744073709551616",
    "100000000000000000000000000",
    -1,
    0,
    1.5,
    2 ** 32 - 1,
    2 ** 32,
    2 ** 53,
    1e26,
    null,
    true,
    [],
    {},
  ),
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.jsonValue({ maxDepth: 2 }),
);
const field = fc.constantFrom("height", "format", "chunks", "hash", "chunk_hashes", "engine_state_hash", "other");

const descriptorArb = fc.oneof(
  { weight: 1, arbitrary: fc.constant<unknown>(VALID) },
  {
    weight: 4,
    arbitrary: fc
      .array(fc.tuple(field, fc.option(hostileValue, { nil: undefined })), { maxLength: 3 })
      .map((changes) => {
        const d: Record<string, unknown> = { ...VALID };
        for (const [key, value] of changes) {
          if (value === undefined) delete d[key];
          else d[key] = value;
        }
        // Descriptors that keep their hashes valid but name other heights and formats must still be refused or
        // stored inside data/snapshots only.
        return d;
      }),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

const memberName = fc.oneof(
  fc.constantFrom(
    "snapshot.json",
    "engine-state.json",
    "0",
    "1",
    "2",
    "00",
    "./0",
    "../sentinel/inner/keep",
    "../../escape",
    "/tmp/absolute",
    `${"../".repeat(20)}tmp/deep`,
    "sub/0",
    ".",
    "./",
  ),
  fc.string({ minLength: 1, maxLength: 20 }),
);

/** A change to the member list. */
type Change =
  | { kind: "drop"; index: number }
  | { kind: "add"; name: string; type: Member["type"]; body: Uint8Array }
  | { kind: "flip"; index: number; at: number }
  | { kind: "declare"; index: number; size: number };
const memberChange: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ kind: fc.constant("drop" as const), index: fc.nat(5) }),
  fc.record({
    kind: fc.constant("add" as const),
    name: memberName,
    type: fc.constantFrom<Member["type"]>("0", "0", "0", "2", "5", "1"),
    body: fc.uint8Array({ maxLength: 64 }),
  }),
  fc.record({ kind: fc.constant("flip" as const), index: fc.nat(5), at: fc.nat(64) }),
  fc.record({
    kind: fc.constant("declare" as const),
    index: fc.nat(5),
    size: fc.constantFrom(0, 1, 2 ** 30, 2 ** 33 - 1),
  }),
);

const archiveArb = fc.record({
  descriptor: descriptorArb,
  changes: fc.array(memberChange, { maxLength: 3 }),
  /** Damage to the compressed file: cut it at a fraction of its length, or flip a byte. */
  damage: fc.option(
    fc.oneof(
      fc.record({ cut: fc.double({ min: 0, max: 1, noNaN: true }), flip: fc.constant(undefined) }),
      fc.record({ cut: fc.constant(undefined), flip: fc.nat() }),
    ),
  ),
});

function applyChanges(members: Member[], changes: Change[]): Member[] {
  const out = members.map((m) => ({ ...m }));
  for (const change of changes) {
    if (change.kind === "add") {
      out.push({ name: change.name, type: change.type, body: change.body });
      continue;
    }
    if (out.length === 0) continue;
    const at = change.index % out.length;
    if (change.kind === "drop") out.splice(at, 1);
    else if (change.kind === "flip" && out[at].body.length > 0) {
      const body = Buffer.from(out[at].body);
      body[change.at % body.length] ^= 0x40;
      out[at].body = body;
    } else if (change.kind === "declare") out[at].declared = change.size;
  }
  return out;
}

test("the descriptor parser returns a valid snapshot or throws SnapshotFormatError", () => {
  fc.assert(
    fc.property(descriptorArb, (descriptor) => {
      try {
        const info = parseDescriptor(descriptor, "snapshot.json");
        assert.ok(info.height >= 1n && info.height < 2n ** 64n);
        assert.ok(Number.isInteger(info.format) && info.format >= 0 && info.format <= 0xffffffff);
        assert.equal(info.chunkHashes.length, info.chunks);
      } catch (err) {
        if (!(err instanceof SnapshotFormatError)) throw err;
        assert.doesNotMatch(err.message, /\n/);
      }
    }),
    fuzzParameters(300),
  );
});

test("snapshots load: succeeds or refuses with the project's errors, touching nothing outside data/snapshots", async () => {
  // The unmutated archive loads: the property below is not refusing everything for a reason of its own.
  const valid = join(sandbox.path, "input.tar.gz");
  await writeFile(valid, gzipSync(tarOf(validMembers(VALID))));
  assert.equal((await loadHomeSnapshot({ home, archive: valid })).height, 42n);
  const outsideBefore = await outsideState();
  const peakBefore = process.resourceUsage().maxRSS * 1024;
  let runs = 0;
  await fc.assert(
    fc.asyncProperty(archiveArb, async ({ descriptor, changes, damage }) => {
      let gz = gzipSync(tarOf(applyChanges(validMembers(descriptor), changes)));
      const cut = damage?.cut;
      const flip = damage?.flip;
      if (cut !== undefined) gz = gz.subarray(0, Math.floor(gz.length * cut));
      if (flip !== undefined && gz.length > 0) {
        gz = Buffer.from(gz);
        gz[flip % gz.length] ^= 0x01;
      }
      const archive = join(sandbox.path, "input.tar.gz");
      await writeFile(archive, gz);
      const outsideNow = (await outsideState()).filter((line) => !line.startsWith("input.tar.gz "));
      try {
        const info = await loadHomeSnapshot({ home, archive });
        const folder = join(snapshotsDir, String(info.height), String(info.format));
        assert.ok(!relative(snapshotsDir, folder).startsWith(".."));
        assert.ok((await stat(join(folder, "snapshot.json"))).isFile());
      } catch (err) {
        if (!(err instanceof UserError)) throw err;
        assert.doesNotMatch(err.message, /\n/, "a refusal is one line");
      }
      runs++;
      assert.deepEqual(
        (await outsideState()).filter((line) => !line.startsWith("input.tar.gz ")),
        outsideNow,
        "load changed something outside data/snapshots",
      );
      assert.deepEqual(
        (await readdir(snapshotsDir).catch(() => [])).filter((n) => n.startsWith(".")),
        [],
        "load left a work folder",
      );
    }),
    fuzzParameters(60),
  );
  assert.ok(runs > 0);
  assert.deepEqual(
    (await outsideState()).filter((line) => !line.startsWith("input.tar.gz ")),
    outsideBefore.filter((line) => !line.startsWith("input.tar.gz ")),
  );
  assert.equal(await readFile(join(sentinel, "inner", "keep"), "utf8"), "keep me");
  const grew = process.resourceUsage().maxRSS * 1024 - peakBefore;
  assert.ok(grew < 256 * 2 ** 20, `peak memory grew by ${Math.round(grew / 2 ** 20)} MB`);
});
