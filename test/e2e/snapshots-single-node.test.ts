// State-sync snapshots on a single-node chain (embedded engine), moved by hand as an operator would when no
// peer can serve them: home A takes periodic snapshots while producing blocks with a transfer in them; once it
// is stopped, `snapshots dump` writes one to an archive; a fresh home B with the same genesis and validator key
// runs `snapshots load` + `snapshots restore`, starts, continues from the snapshot height, holds A's state at
// that height (same app hash, same balances) and answers queries below it with the pruned-height error.
import assert from "node:assert/strict";
import { copyFile, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { create as createTar, extract as extractTar } from "tar";
import { homePaths, setTomlValues } from "../../src/config/index.ts";
import { type DevHome, prepareDevHome } from "../../src/node/dev-chain.ts";
import {
  bannerEndpoints,
  killAllChaind,
  LOOPBACK_PORT_FLAGS,
  pollUntil,
  rpcCall,
  runChaind,
  spawnChaind,
  tempDir,
  waitForHeight,
} from "../support/node/chaind.ts";

let dir: Awaited<ReturnType<typeof tempDir>>;
let a: DevHome;
let homeB: string;
let userHome: string;

interface Listed {
  height: string;
  format: number;
  chunks: number;
  hash: string;
}

before(async () => {
  dir = await tempDir("chaind-snapshots-");
  userHome = join(dir.path, "user");
  a = await prepareDevHome({ home: join(dir.path, "a") });
  const paths = homePaths(a.home);
  await writeFile(
    paths.configToml,
    setTomlValues(await readFile(paths.configToml, "utf8"), { "consensus.timeout_commit": "150ms" }),
  );
  // Snapshots every 4 heights, the 2 newest kept; state pruning as tight as upstream allows.
  await writeFile(
    paths.appToml,
    setTomlValues(await readFile(paths.appToml, "utf8"), {
      "state-sync.snapshot-interval": 4n,
      "state-sync.snapshot-keep-recent": 2n,
      pruning: "custom",
      "pruning-keep-recent": "2",
      "pruning-interval": "10",
    }),
  );
});

after(async () => {
  await killAllChaind();
  await dir?.remove();
});

const cli = async (args: string[]) => {
  const result = await runChaind(args, { userHome });
  assert.equal(result.code, 0, `chaind ${args.join(" ")}: ${result.stderr}`);
  return result.stdout;
};

test("dump on one home, load + restore on another, then start it", { timeout: 600_000 }, async () => {
  const alice = a.keys.find((k) => k.name === "alice")?.address as string;
  const bob = a.keys.find((k) => k.name === "bob")?.address as string;
  const nodeA = spawnChaind(["--home", a.home, "start", ...LOOPBACK_PORT_FLAGS], { userHome });
  const endpointsA = await bannerEndpoints(nodeA);
  await waitForHeight(endpointsA.rpc, 2n, 120_000);
  await cli([
    "tx",
    "bank",
    "send",
    alice,
    bob,
    "12345stake",
    "--from",
    "alice",
    "--chain-id",
    a.chainId,
    "--keyring-backend",
    "test",
    "--home",
    a.home,
    "--node",
    endpointsA.rpc.replace(/^http:/, "tcp:"),
    "--yes",
    "--fees",
    "2000stake",
  ]);
  // Wait for a snapshot taken after the transfer, and two more heights beyond it.
  const wanted = (await waitForHeight(endpointsA.rpc, 3n)) + 4n;
  const snapshot = await pollUntil(
    async () => {
      const all = JSON.parse(await cli(["--home", a.home, "snapshots", "list", "-o", "json"])) as Listed[];
      return all.find((s) => BigInt(s.height) >= wanted);
    },
    { timeoutMs: 240_000, what: `a snapshot at or above height ${wanted}` },
  );
  const height = BigInt(snapshot.height);
  await waitForHeight(endpointsA.rpc, height + 2n, 120_000);
  const balanceAt = async (rest: string, address: string, h?: bigint) => {
    const response = await fetch(`${rest}/chain/bank/v1beta1/balances/${address}`, {
      headers: h === undefined ? {} : { "x-chain-block-height": h.toString() },
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  // Bob only receives the one transfer (before H), so his balance at the latest height is his balance at H; the
  // latest is asked for because pruning (keep-recent 2) may already have removed H on A.
  const bobAtH = await balanceAt(endpointsA.rest as string, bob);
  assert.equal(bobAtH.status, 200);
  assert.ok(JSON.stringify(bobAtH.body).includes("stake"), JSON.stringify(bobAtH.body));
  const headerA = await rpcCall<{ header: { app_hash: string } }>(endpointsA.rpc, "header", {
    height: String(height + 1n),
  });
  nodeA.signal("SIGTERM");
  assert.equal((await nodeA.exited).code, 0);

  // keep-recent = 2: never more than two snapshots; the text listing is upstream's line format.
  const listed = await cli(["--home", a.home, "snapshots", "list"]);
  const lines = listed.trim().split("\n");
  assert.ok(lines.length >= 1 && lines.length <= 2, listed);
  assert.match(lines[0], /^height: \d+ format: 1 chunks: \d+$/);

  const archive = join(dir.path, "moved.tar.gz");
  assert.equal(
    (await cli(["--home", a.home, "snapshots", "dump", String(height), "1", "--out", archive])).trim(),
    archive,
  );

  // Home B: the same chain (genesis, validator key, config), no data.
  homeB = join(dir.path, "b");
  await cli(["init", "node-b", "--chain-id", a.chainId, "--home", homeB]);
  const pa = homePaths(a.home);
  const pb = homePaths(homeB);
  for (const file of ["genesis", "privValidatorKey", "nodeKey", "configToml", "appToml"] as const) {
    await copyFile(pa[file], pb[file]);
  }
  assert.match(
    await cli(["--home", homeB, "snapshots", "load", archive]),
    new RegExp(`^Snapshot loaded at height ${height}, format 1, chunks ${snapshot.chunks}\\n$`),
  );
  const restored = await cli(["--home", homeB, "snapshots", "restore", String(height), "1"]);
  assert.match(
    restored,
    new RegExp(`Restored snapshot at height ${height}, format 1; app hash ${headerA.header.app_hash}`),
  );
  assert.match(restored, /The block store starts at height/);
  // A second restore into the same home is refused, with nothing changed.
  const again = await runChaind(["--home", homeB, "snapshots", "restore", String(height), "1"], { userHome });
  assert.equal(again.code, 1);
  assert.match(again.stderr, new RegExp(`already has state at height ${height}`));

  const nodeB = spawnChaind(["--home", homeB, "start", ...LOOPBACK_PORT_FLAGS], { userHome });
  const endpointsB = await bannerEndpoints(nodeB);
  await waitForHeight(endpointsB.rpc, height + 3n, 120_000);
  const headerB = await rpcCall<{ header: { app_hash: string } }>(endpointsB.rpc, "header", {
    height: String(height + 1n),
  });
  assert.equal(
    headerB.header.app_hash,
    headerA.header.app_hash,
    "B's first block carries A's app hash at the snapshot height",
  );
  const statusB = await rpcCall<{ sync_info: { earliest_block_height: string } }>(endpointsB.rpc, "status");
  assert.equal(statusB.sync_info.earliest_block_height, String(height + 1n), "B holds blocks from H+1 on");
  const bobOnB = await balanceAt(endpointsB.rest as string, bob);
  assert.deepEqual(bobOnB.body.balances, bobAtH.body.balances);
  const below = await balanceAt(endpointsB.rest as string, bob, height - 1n);
  assert.ok(below.status >= 400 && below.status < 500, `status ${below.status}`);
  // B's state starts at H; pruning (keep-recent 2, copied from A) may already have moved its earliest height on
  // by the time of this query, so the message names H or a later height, never one below H.
  const earliest = /earliest available height: (\d+)/.exec(String(below.body.message));
  assert.ok(earliest !== null, String(below.body.message));
  assert.ok(BigInt(earliest[1]) >= height, `earliest ${earliest[1]} is below the snapshot height ${height}`);
  nodeB.signal("SIGTERM");
  assert.equal((await nodeB.exited).code, 0);
});

test("bad input: unknown snapshot, damaged archive, a format that is a path, a bad height; export of the stopped node", {
  timeout: 300_000,
}, async () => {
  const missing = await runChaind(["--home", a.home, "snapshots", "dump", "999999", "1"], { userHome });
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /no snapshot at height 999999 in format 1/);
  assert.doesNotMatch(missing.stderr, /\n\s+at /, "no stack trace");

  const bogus = join(dir.path, "bogus.tar.gz");
  await writeFile(bogus, "not an archive");
  const load = await runChaind(["--home", a.home, "snapshots", "load", bogus], { userHome });
  assert.equal(load.code, 1);
  assert.match(load.stderr, /is not a snapshot archive/);

  // The archive's snapshot.json is input: a "format" that is a path is refused in one line (it once deleted and
  // wrote the directory it named), and the directory it points at is untouched.
  const victim = join(dir.path, "victim");
  await mkdir(victim);
  await writeFile(join(victim, "precious"), "keep me");
  const unpacked = join(dir.path, "evil");
  await mkdir(unpacked);
  await extractTar({ file: join(dir.path, "moved.tar.gz"), cwd: unpacked });
  const descriptor = JSON.parse(await readFile(join(unpacked, "snapshot.json"), "utf8")) as Record<string, unknown>;
  descriptor.format = "../".repeat(30) + victim.slice(1);
  await writeFile(join(unpacked, "snapshot.json"), JSON.stringify(descriptor));
  const evil = join(dir.path, "evil.tar.gz");
  await createTar({ gzip: true, file: evil, cwd: unpacked }, await readdir(unpacked));
  const loadEvil = await runChaind(["--home", homeB, "snapshots", "load", evil], { userHome });
  assert.equal(loadEvil.code, 1, loadEvil.stdout);
  assert.match(loadEvil.stderr, /"format" is .*; expected a whole number from 0 to 4294967295/);
  assert.doesNotMatch(loadEvil.stderr, /\n\s+at /, "no stack trace");
  assert.deepEqual(await readdir(victim), ["precious"]);
  assert.equal(await readFile(join(victim, "precious"), "utf8"), "keep me");

  const badHeight = await runChaind(["--home", a.home, "snapshots", "delete", "abc", "1"], { userHome });
  assert.notEqual(badHeight.code, 0);
  assert.match(badHeight.stderr, /expected a positive whole number, got "abc"/);

  // export reads the stopped node's state: the latest height by default.
  const exported = await cli(["--home", a.home, "snapshots", "export"]);
  const created = /Snapshot created at height (\d+), format 1, chunks \d+/.exec(exported);
  assert.ok(created !== null, exported);
  const latest = created[1] as string;

  // A folder at that height and format that chaind did not write is refused, with nothing in it deleted; once it is
  // ours again, export replaces our own snapshot of that height as before.
  const folder = join(homePaths(a.home).dataDir, "snapshots", latest, "1");
  await writeFile(join(folder, "notes.txt"), "the operator's");
  const before = (await readdir(folder)).sort();
  const refused = await runChaind(["--home", a.home, "snapshots", "export", "--height", latest], { userHome });
  assert.equal(refused.code, 1, refused.stdout);
  assert.match(
    refused.stderr,
    /^Error: .*\/data\/snapshots\/\d+\/1 already exists and is not a snapshot chaind wrote \(it also holds "notes\.txt"\); left untouched: move it away or remove it first\n$/,
  );
  assert.deepEqual((await readdir(folder)).sort(), before);
  assert.equal(await readFile(join(folder, "notes.txt"), "utf8"), "the operator's");
  await rm(join(folder, "notes.txt"));
  assert.match(
    await cli(["--home", a.home, "snapshots", "export", "--height", latest]),
    new RegExp(`Snapshot created at height ${latest}, format 1`),
  );

  // A home that has committed nothing: refused, and no store is left behind.
  const fresh = join(dir.path, "fresh");
  await cli(["init", "fresh", "--chain-id", a.chainId, "--home", fresh]);
  const dataBefore = (await readdir(homePaths(fresh).dataDir)).sort();
  const nothing = await runChaind(["--home", fresh, "snapshots", "export"], { userHome });
  assert.equal(nothing.code, 1, nothing.stdout);
  assert.match(nothing.stderr, /^Error: nothing is committed in this home yet; there is no state to snapshot\n$/);
  assert.deepEqual((await readdir(homePaths(fresh).dataDir)).sort(), dataBefore);
});
