// `chaind snapshots load` and `restore` on hostile or mistaken input (the round-3 probe's N1, N9, N10, N12, N13):
// home A produces a few blocks and dumps a real snapshot; fresh homes beside it load altered copies of that
// archive and restore it. Every test checks that nothing outside the home's data/snapshots was touched (a victim
// folder beside the homes) and that the home is left as it was when the input is refused.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { cp, mkdir, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { gzipSync } from "node:zlib";
import { pino } from "pino";
import { create as createTar } from "tar";
import { fastDevHome, runChaindInProcess, type tempDir, waitForHeight } from "../../test/support/node/chaind.ts";
import { homePaths } from "../config/index.ts";
import { UserError } from "../errors/user-error.ts";
import { SnapshotError } from "../snapshots/index.ts";
import {
  dumpHomeSnapshot,
  ENGINE_STATE_FILE,
  exportHomeSnapshot,
  loadHomeSnapshot,
  restoreHomeSnapshot,
} from "./snapshot-home.ts";
import { startNode } from "./start-node.ts";

const PORTS = { rpcLaddr: "tcp://127.0.0.1:0", apiAddress: "tcp://127.0.0.1:0", grpcAddress: "127.0.0.1:0" };

let dir: Awaited<ReturnType<typeof tempDir>>;
let homeA: string;
let archive: string;
let height: bigint;
let appHash: Uint8Array;
/** The archive's files (snapshot.json, chunks, engine-state.json), to build altered archives from. */
let members: Map<string, Buffer>;
let victim: string;
let homes = 0;

before(async () => {
  const made = await fastDevHome("chaind-snapshot-home-", "100ms");
  dir = made.dir;
  homeA = made.dev.home;
  const node = await startNode({ home: homeA, logger: pino({ level: "silent" }), overrides: PORTS });
  await waitForHeight(node.endpoints.rpc as string, 3n);
  await node.stop();
  const info = await exportHomeSnapshot({ home: homeA });
  height = info.height;
  archive = join(dir.path, "a.tar.gz");
  await dumpHomeSnapshot({ home: homeA, height, format: info.format, out: archive });
  const unpacked = join(dir.path, "a-files");
  await mkdir(unpacked);
  const { extract } = await import("tar");
  await extract({ file: archive, cwd: unpacked });
  members = new Map();
  for (const name of await readdir(unpacked)) members.set(name, await readFile(join(unpacked, name)));
  appHash = new Uint8Array(
    Buffer.from(/"appHash":\{"\$b":"([0-9a-f]+)"\}/.exec(String(members.get(ENGINE_STATE_FILE)))?.[1] ?? "", "hex"),
  );
  assert.equal(appHash.length, 32);
  victim = join(dir.path, "victim");
  await mkdir(victim);
  await writeFile(join(victim, "precious"), "keep me");
});

after(async () => {
  await dir?.remove();
});

/** A fresh home of A's chain (A's config/, an empty data/ with the signing state), or of another chain id. */
async function freshHome(chainId?: string): Promise<string> {
  const home = join(dir.path, `home-${++homes}`);
  const a = homePaths(homeA);
  const p = homePaths(home);
  await cp(a.configDir, p.configDir, { recursive: true });
  await mkdir(p.dataDir, { recursive: true, mode: 0o700 });
  await cp(join(a.dataDir, "priv_validator_state.json"), join(p.dataDir, "priv_validator_state.json"));
  if (chainId !== undefined) {
    const genesis = JSON.parse(await readFile(p.genesis, "utf8")) as { chain_id: string };
    genesis.chain_id = chainId;
    await writeFile(p.genesis, JSON.stringify(genesis));
  }
  return home;
}

/** Writes a .tar.gz holding `files` (name → content), in that order. */
async function archiveOf(files: Map<string, Buffer | string>, name: string): Promise<string> {
  const folder = join(dir.path, `${name}-files`);
  await rm(folder, { recursive: true, force: true });
  await mkdir(folder);
  for (const [file, content] of files) await writeFile(join(folder, file), content);
  const path = join(dir.path, `${name}.tar.gz`);
  await createTar({ gzip: true, file: path, cwd: folder, portable: true }, [...files.keys()]);
  return path;
}

/** The archive's members with snapshot.json's fields changed. */
function withDescriptor(patch: Record<string, unknown>): Map<string, Buffer | string> {
  const files = new Map<string, Buffer | string>(members);
  const descriptor = { ...(JSON.parse(String(members.get("snapshot.json"))) as Record<string, unknown>), ...patch };
  files.set("snapshot.json", JSON.stringify(descriptor));
  return files;
}

/** Every path under `root` (relative), sorted. */
async function tree(root: string): Promise<string[]> {
  return ((await readdir(root, { recursive: true })) as string[]).sort();
}

async function victimUntouched(): Promise<void> {
  assert.deepEqual(await readdir(victim), ["precious"], "the folder beside the homes was changed");
  assert.equal(await readFile(join(victim, "precious"), "utf8"), "keep me");
}

/** Asserts a refusal: a UserError (printed as one line, no stack) with a one-line message matching `pattern`. */
async function refused(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof UserError, `not a UserError: ${(err as Error)?.stack}`);
    assert.match(err.message, pattern);
    assert.doesNotMatch(err.message, /\n/);
    return true;
  });
}

test("dump refuses an --out inside data/snapshots (a chunk, a new file, a link to a chunk): the snapshot stays whole", async () => {
  const snapshots = join(homePaths(homeA).dataDir, "snapshots");
  const folder = join(snapshots, String(height), "1");
  const before = new Map<string, Buffer>();
  for (const name of await readdir(folder)) before.set(name, await readFile(join(folder, name)));
  const link = join(dir.path, "looks-outside.tar.gz");
  await symlink(join(folder, "0"), link);
  for (const out of [join(folder, "0"), join(folder, "snapshot.json"), join(snapshots, "new.tar.gz"), link]) {
    await refused(
      dumpHomeSnapshot({ home: homeA, height, format: 1, out }),
      /^--out .* lies inside .*data\/snapshots, the local snapshots the dump reads and must not overwrite; write the archive outside data\/snapshots$/,
    );
  }
  assert.deepEqual((await readdir(folder)).sort(), [...before.keys()].sort());
  for (const [name, bytes] of before) assert.deepEqual(await readFile(join(folder, name)), bytes, name);
  assert.deepEqual(await readdir(snapshots), [String(height)]);
});

test("load refuses a descriptor whose height or format is not an integer, touching nothing outside data/snapshots", async () => {
  const home = await freshHome();
  const snapshots = join(homePaths(home).dataDir, "snapshots");
  const outside = "../".repeat(30) + victim.slice(1);
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ["format as a path", { format: outside }, /"format" is .*expected a whole number/],
    ["format as a string", { format: "1" }, /"format" is "1"; expected a whole number/],
    ["negative format", { format: -1 }, /"format" is -1/],
    ["fractional format", { format: 1.5 }, /"format" is 1.5/],
    ["format above uint32", { format: 2 ** 32 }, /"format" is 4294967296/],
    ["negative height", { height: "-5" }, /"height" is "-5"; expected a decimal string/],
    ["height above uint64", { height: "1".padEnd(27, "0") }, /"height" is "1000/],
    ["height as a path", { height: outside }, /"height" is/],
    ["height as a number", { height: 5 }, /"height" is 5/],
    ["height 0", { height: "0" }, /"height" is "0"/],
  ];
  for (const [what, change, pattern] of cases) {
    const path = await archiveOf(withDescriptor(change), "bad-numbers");
    await refused(loadHomeSnapshot({ home, archive: path }), pattern);
    await victimUntouched();
    assert.deepEqual(await readdir(snapshots), [], `${what}: data/snapshots is not as it was`);
  }
});

test("load of a damaged archive: one-line errors, no temporaries left in the home or the system tmp", async () => {
  const home = await freshHome();
  const snapshots = join(homePaths(home).dataDir, "snapshots");
  const systemTmp = async () => (await readdir(tmpdir())).filter((n) => n.startsWith("chaind-snapshot-load-"));
  const tmpBefore = await systemTmp();
  const whole = await readFile(archive);
  const truncated = join(dir.path, "truncated.tar.gz");
  await writeFile(truncated, whole.subarray(0, Math.floor(whole.length / 2)));
  await refused(loadHomeSnapshot({ home, archive: truncated }), /is not a snapshot archive/);
  // An absolute member (which an unpacker would write at that path or strip to a relative one).
  const absolute = join(dir.path, "absolute.tar.gz");
  await createTar({ gzip: true, file: absolute, preservePaths: true }, [join(victim, "precious")]);
  await refused(loadHomeSnapshot({ home, archive: absolute }), /is not a snapshot archive: it holds "\//);
  const extra = await archiveOf(new Map<string, Buffer | string>([...members, ["notes.txt", "x"]]), "extra");
  await refused(loadHomeSnapshot({ home, archive: extra }), /it holds "notes.txt"/);
  const missing = new Map(members);
  missing.delete("0");
  await refused(loadHomeSnapshot({ home, archive: await archiveOf(missing, "missing") }), /is missing chunk 0/);
  await refused(
    loadHomeSnapshot({
      home,
      archive: await archiveOf(withDescriptor({ hash: "0".repeat(64) }), "zero"),
    }),
    /do not add up to the snapshot hash/,
  );
  const flipped = new Map(members);
  const state = Buffer.from(members.get(ENGINE_STATE_FILE) as Buffer);
  state[10] ^= 1;
  flipped.set(ENGINE_STATE_FILE, state);
  await refused(
    loadHomeSnapshot({ home, archive: await archiveOf(flipped, "flipped") }),
    /engine-state.json in .* does not match its hash/,
  );
  assert.deepEqual(await readdir(snapshots), [], "data/snapshots holds leftovers");
  assert.deepEqual(await systemTmp(), tmpBefore, "load left a folder in the system tmp");
  await victimUntouched();
});

/** A gzip member of `bytes` zero bytes (deflate of zeros is ~1,000× smaller). */
function gzippedZeros(bytes: number): Buffer {
  return gzipSync(Buffer.alloc(bytes), { level: 9 });
}

/** A ustar header for a plain file `name` of `size` bytes. */
function tarHeader(name: string, size: number): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0, "utf8");
  header.write("0000644\0", 100);
  header.write("0000000\0", 108);
  header.write("0000000\0", 116);
  header.write(`${size.toString(8).padStart(11, "0")}\0`, 124);
  header.write("00000000000\0", 136);
  header.write("        ", 148);
  header.write("0", 156);
  header.write("ustar\0", 257);
  header.write("00", 263);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  return header;
}

test("load refuses a small archive declaring a 1 GiB chunk without inflating it", async () => {
  const home = await freshHome();
  const gib = 2 ** 30;
  // Concatenated gzip members: the header, then 1 GiB of zeros as 64 identical 16 MiB members (~1 MB in all).
  const zeros = gzippedZeros(16 * 2 ** 20);
  const bomb = Buffer.concat([gzipSync(tarHeader("0", gib)), ...Array.from({ length: 64 }, () => zeros)]);
  const path = join(dir.path, "bomb.tar.gz");
  await writeFile(path, bomb);
  assert.ok(bomb.length < 2 * 2 ** 20, `the bomb is ${bomb.length} bytes`);
  const peakBefore = process.resourceUsage().maxRSS * 1024;
  await refused(loadHomeSnapshot({ home, archive: path }), /"0" is 1073741824 bytes, more than the 16777216/);
  const grew = process.resourceUsage().maxRSS * 1024 - peakBefore;
  assert.ok(grew < 256 * 2 ** 20, `peak memory grew by ${Math.round(grew / 2 ** 20)} MB while refusing the archive`);
  assert.deepEqual(await readdir(join(homePaths(home).dataDir, "snapshots")), []);
});

test("restore refuses a snapshot of another chain before touching the home", async () => {
  const home = await freshHome("otherchain");
  await loadHomeSnapshot({ home, archive });
  const data = homePaths(home).dataDir;
  const before = await tree(data);
  await refused(
    restoreHomeSnapshot({ home, height, format: 1 }),
    /is of chain "chaind-dev", but this home's genesis.json is of chain "otherchain"/,
  );
  assert.deepEqual(await tree(data), before, "the home was changed");
});

test("restore checks the whole-snapshot hash and engine-state.json against the descriptor", async () => {
  const home = await freshHome();
  await loadHomeSnapshot({ home, archive });
  const folder = join(homePaths(home).dataDir, "snapshots", String(height), "1");
  const descriptorPath = join(folder, "snapshot.json");
  const good = await readFile(descriptorPath, "utf8");
  const applicationDb = homePaths(home).applicationDb;

  await writeFile(descriptorPath, good.replace(/"hash": "[0-9A-F]{64}"/, `"hash": "${"0".repeat(64)}"`));
  await refused(restoreHomeSnapshot({ home, height, format: 1 }), /do not add up to the snapshot hash/);
  await assert.rejects(stat(applicationDb), { code: "ENOENT" });
  await writeFile(descriptorPath, good);

  // A damaged engine-state.json: refused by its hash; and when the descriptor was made to match the damage,
  // refused as an invalid file (one line, not a JSON parser's stack).
  const statePath = join(folder, ENGINE_STATE_FILE);
  const damaged = (await readFile(statePath)).subarray(0, 40);
  await writeFile(statePath, damaged);
  await refused(restoreHomeSnapshot({ home, height, format: 1 }), /engine-state.json of snapshot .* does not match/);
  const damagedHash = createHash("sha256").update(damaged).digest("hex").toUpperCase();
  await writeFile(
    descriptorPath,
    good.replace(/"engine_state_hash": "[0-9A-F]{64}"/, `"engine_state_hash": "${damagedHash}"`),
  );
  await refused(restoreHomeSnapshot({ home, height, format: 1 }), /engine-state.json of snapshot .* is not valid/);
  await assert.rejects(stat(applicationDb), { code: "ENOENT" });
  await victimUntouched();
});

test("restore checks the app hash against a trusted one, and two restores at once are refused by a lock", async () => {
  const home = await freshHome();
  await loadHomeSnapshot({ home, archive });
  const wrong = new Uint8Array(32).fill(7);
  await refused(
    restoreHomeSnapshot({ home, height, format: 1, trustedAppHash: wrong }),
    /has app hash [0-9A-F]{64}, but --trusted-app-hash says 0707/,
  );
  await assert.rejects(stat(homePaths(home).applicationDb), { code: "ENOENT" });

  const outcomes = await Promise.allSettled([
    restoreHomeSnapshot({ home, height, format: 1, trustedAppHash: appHash }),
    restoreHomeSnapshot({ home, height, format: 1, trustedAppHash: appHash }),
  ]);
  const done = outcomes.filter((o) => o.status === "fulfilled");
  const failed = outcomes.filter((o): o is PromiseRejectedResult => o.status === "rejected");
  assert.equal(done.length, 1, JSON.stringify(outcomes.map((o) => o.status)));
  assert.ok(failed[0].reason instanceof SnapshotError, String(failed[0].reason?.stack));
  assert.match(
    failed[0].reason.message,
    /another `chaind snapshots restore` \(process \d+\) is restoring into this home/,
  );
  const restored = (done[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof restoreHomeSnapshot>>>).value;
  assert.deepEqual(restored.appHash, appHash);
  assert.equal(restored.engineBootstrapped, true);
  assert.ok(!(await readdir(join(homePaths(home).dataDir, "snapshots"))).includes(".restore.lock"));
});

test("`snapshots export` names the height it snapshots first, the latest one when none is asked (upstream's lines)", async () => {
  const home = await freshHome();
  await cp(homePaths(homeA).applicationDb, homePaths(home).applicationDb, { recursive: true });
  const latest = await runChaindInProcess(["--home", home, "snapshots", "export"]);
  assert.equal(latest.code, 0, latest.stderr);
  assert.equal(
    latest.stdout,
    `Exporting snapshot for height ${height}\nSnapshot created at height ${height}, format 1, chunks 1\n`,
  );
  const zero = await runChaindInProcess(["--home", home, "snapshots", "export", "--height", "0"]);
  assert.equal(zero.stdout, latest.stdout, "--height 0 is the latest, as upstream's default");
  const above = await runChaindInProcess(["--home", home, "snapshots", "export", "--height", String(height + 5n)]);
  assert.equal(above.code, 1);
  assert.equal(above.stdout, `Exporting snapshot for height ${height + 5n}\n`);
  assert.equal(
    above.stderr,
    `Error: cannot snapshot height ${height + 5n}: the latest committed height is ${height}\n`,
  );
  // A home with nothing committed: only the error, no "Exporting" line for a height that does not exist.
  const empty = await runChaindInProcess(["--home", await freshHome(), "snapshots", "export"]);
  assert.equal(empty.code, 1);
  assert.equal(empty.stdout, "");
});

test("dump: a bad --out is one line before anything is written; a failed dump leaves no partial archive and an existing file as it was", async () => {
  await refused(
    dumpHomeSnapshot({ home: homeA, height, format: 1, out: join(dir.path, "no-such-folder", "a.tar.gz") }),
    /^cannot write the archive .*a\.tar\.gz: .*no-such-folder does not exist; expected a file path in an existing folder$/,
  );
  await refused(
    dumpHomeSnapshot({ home: homeA, height, format: 1, out: victim }),
    /^cannot write the archive .*victim: it is a folder; expected the path of the \.tar\.gz file to write$/,
  );
  await victimUntouched();

  // A snapshot whose chunk has gone missing: the dump fails, the file already at --out keeps its bytes, and no
  // temporary is left beside it.
  const home = await freshHome();
  await loadHomeSnapshot({ home, archive });
  await rm(join(homePaths(home).dataDir, "snapshots", String(height), "1", "0"));
  const outDir = join(dir.path, "out");
  await mkdir(outDir);
  const out = join(outDir, "kept.tar.gz");
  await writeFile(out, "an older archive");
  await refused(
    dumpHomeSnapshot({ home, height, format: 1, out }),
    new RegExp(`^cannot dump snapshot ${height}/1 to .*kept\\.tar\\.gz: .*; nothing was written$`),
  );
  assert.equal(await readFile(out, "utf8"), "an older archive");
  assert.deepEqual(await readdir(outDir), ["kept.tar.gz"]);

  // A good dump replaces that file whole.
  await dumpHomeSnapshot({ home: homeA, height, format: 1, out });
  assert.deepEqual(await readFile(out), await readFile(archive));
  assert.deepEqual(await readdir(outDir), ["kept.tar.gz"]);
});

test("list, dump, delete and load on a home that is missing, a file, or whose data/snapshots is a file: one line each", async () => {
  const missing = join(dir.path, "no-such-home");
  const file = join(dir.path, "a-file-home");
  await writeFile(file, "not a home");
  const snapshotsFile = join(dir.path, "snapshots-file-home");
  await mkdir(join(snapshotsFile, "data"), { recursive: true });
  await writeFile(join(snapshotsFile, "data", "snapshots"), "not a folder");
  const commands = [["list"], ["dump", "1", "1"], ["delete", "1", "1"], ["load", archive]];
  for (const [home, pattern] of [
    [missing, /^Error: .*no-such-home is not a chaind home \(it has no data\/ folder\); run `chaind init` first\n$/],
    // Every directory flag refuses a file before the command runs (src/cli/directory-paths.ts).
    [file, /^Error: --home .*a-file-home is not a directory: expected the path of a directory\n$/],
    [
      snapshotsFile,
      /^Error: .*snapshots-file-home\/data\/snapshots is not a folder; expected the home's snapshots folder \(data\/snapshots\)\n$/,
    ],
  ] as const) {
    for (const command of commands) {
      const result = await runChaindInProcess(["--home", home, "snapshots", ...command]);
      assert.equal(result.code, 1, `${command.join(" ")} on ${home}`);
      assert.match(result.stderr, pattern, `${command.join(" ")} on ${home}`);
    }
  }
  assert.equal(existsSync(missing), false, "nothing is created for a missing home");
  assert.equal(await readFile(join(snapshotsFile, "data", "snapshots"), "utf8"), "not a folder");
  // A home with a data/ folder but no snapshots yet lists nothing, and is left as it was.
  const fresh = await freshHome();
  const empty = await runChaindInProcess(["--home", fresh, "snapshots", "list"]);
  assert.deepEqual([empty.code, empty.stdout], [0, ""]);
  assert.deepEqual(await readdir(homePaths(fresh).dataDir), ["priv_validator_state.json"]);
});
