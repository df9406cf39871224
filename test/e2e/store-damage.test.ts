// A stopped node's stores damaged on disk, seen through every command that opens them (round 3, N4 and N5), as
// real processes on a real home whose LevelDB stores hold real table files:
// - CURRENT removed from data/application.db or data/blocks.db: `start`, `snapshots export`, `status` and
//   `replay` refuse with one line naming the store and leave every file as it was (LevelDB's create-if-missing
//   used to start an empty database there and delete the table files); `chaind repair-store` then rebuilds the
//   store and the node starts again at its height;
// - one bit flipped in a tx's signature inside data/blocks.db: the start stops on the damaged block, and
//   `chaind replay` names the source home as damaged at that height instead of blaming the release.
import assert from "node:assert/strict";
import { cp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { homePaths, setTomlValues } from "../../src/config/index.ts";
import { BlockStore } from "../../src/engine/block-store.ts";
import { type DevHome, prepareDevHome } from "../../src/node/dev-chain.ts";
import { openLevelBackend } from "../../src/store/kv-backend.ts";
import {
  bannerEndpoints,
  type ChaindResult,
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
let dev: DevHome;
let userHome: string;
let pristine: string;
/** The last height of the pristine home, and the height and signature of its one transfer. */
let lastHeight = 0n;
let txHeight = 0n;
let signature: Buffer;

const STACK_FRAME = /^\s+at /m;

function assertOneLine(result: ChaindResult, pattern: RegExp): void {
  const lines = result.stderr.split("\n").filter((line) => line.startsWith("Error"));
  assert.notEqual(result.code, 0, `expected a non-zero exit\n${result.stdout}\n${result.stderr}`);
  assert.equal(lines.length, 1, `expected one Error line\n${result.stderr}`);
  assert.match(lines[0] as string, pattern);
  assert.doesNotMatch(result.stderr, STACK_FRAME, `a stack trace was printed\n${result.stderr}`);
  // A refusal closes all it opened: the CLI's exit backstop (src/cli/exit-backstop.ts) must not have had to end it.
  assert.doesNotMatch(result.stderr, /the process was still held/, `a handle was left open\n${result.stderr}`);
}

/** A tcp:// address on 127.0.0.1 where nothing listens. */
async function deadNode(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `tcp://127.0.0.1:${port}`;
}

/** name → size of each file in `path` (a store directory). */
async function listing(path: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const name of await readdir(path)) out[name] = (await stat(join(path, name))).size;
  return out;
}

/**
 * Runs `chaind <args>`, which must exit by itself: one CI run saw this file's damaged-tx test hang until the test's
 * own timeout, which did not say which command. After `DEADLINE_MS` the process is killed and the failure names the
 * command with what it printed.
 */
async function runWithDeadline(args: string[]): Promise<ChaindResult> {
  const child = spawnChaind(args, { userHome });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<"hung">((resolve) => {
    timer = setTimeout(() => resolve("hung"), DEADLINE_MS);
  });
  const outcome = await Promise.race([child.exited, deadline]);
  clearTimeout(timer);
  if (outcome === "hung") {
    child.signal("SIGKILL");
    assert.fail(
      `chaind ${args.join(" ")} did not exit within ${DEADLINE_MS} ms\nstdout:\n${child.stdout}\nstderr:\n${child.stderr}`,
    );
  }
  return outcome;
}

/** Far above what a refusal takes (2–6 s on a busy machine), below the test runner's own timeout. */
const DEADLINE_MS = 240_000;

async function copyHome(name: string): Promise<string> {
  const home = join(dir.path, name);
  await cp(pristine, home, { recursive: true });
  return home;
}

before(async () => {
  dir = await tempDir("chaind-store-damage-");
  userHome = join(dir.path, "user");
  dev = await prepareDevHome({ home: join(dir.path, "source") });
  const paths = homePaths(dev.home);
  await writeFile(
    paths.configToml,
    setTomlValues(await readFile(paths.configToml, "utf8"), { "consensus.timeout_commit": "100ms" }),
  );
  const alice = dev.keys.find((k) => k.name === "alice")?.address as string;
  const bob = dev.keys.find((k) => k.name === "bob")?.address as string;
  const node = spawnChaind(["--home", dev.home, "start", ...LOOPBACK_PORT_FLAGS], { userHome });
  const { rpc } = await bannerEndpoints(node);
  await waitForHeight(rpc, 2n);
  const sent = await runChaind(
    [
      "tx",
      "bank",
      "send",
      alice,
      bob,
      "777stake",
      "--from",
      "alice",
      "--chain-id",
      dev.chainId,
      "--keyring-backend",
      "test",
      "--home",
      dev.home,
      "--node",
      rpc.replace(/^http:/, "tcp:"),
      "--yes",
      "--fees",
      "2000stake",
      "-o",
      "json",
    ],
    { userHome },
  );
  assert.equal(sent.code, 0, sent.stderr);
  const hash = (JSON.parse(sent.stdout) as { txhash: string }).txhash;
  const found = await pollUntil(
    async () =>
      rpcCall<{ height: string; tx: string }>(rpc, "tx", { hash: Buffer.from(hash, "hex").toString("base64") }).catch(
        () => undefined,
      ),
    { what: `tx ${hash} in a block` },
  );
  txHeight = BigInt(found.height);
  // TxRaw ends with its one signature (64 bytes, random-looking: stored as they are in the table files).
  signature = Buffer.from(found.tx, "base64").subarray(-64);
  await waitForHeight(rpc, txHeight + 3n);
  node.signal("SIGTERM");
  assert.equal((await node.exited).code, 0);
  // Reopening each store moves LevelDB's log into a table file (.ldb), the files the N4 defect deleted.
  const blocks = await BlockStore.open(paths.blocksDb);
  lastHeight = blocks.height;
  await blocks.close();
  await (await openLevelBackend(paths.applicationDb)).close();
  for (const store of [paths.blocksDb, paths.applicationDb]) {
    assert.ok(
      Object.keys(await listing(store)).some((name) => name.endsWith(".ldb")),
      `no table file in ${store}`,
    );
  }
  pristine = join(dir.path, "pristine");
  await cp(dev.home, pristine, { recursive: true });
});

after(async () => {
  await killAllChaind();
  await dir?.remove();
});

for (const store of ["application.db", "blocks.db"] as const) {
  test(`no CURRENT in data/${store}: every command refuses, no file is lost, repair-store brings it back`, async () => {
    const home = await copyHome(`no-current-${store}`);
    const path = join(home, "data", store);
    await rm(join(path, "CURRENT"));
    const before = await listing(path);
    const refused = new RegExp(`data/${store.replace(".", "\\.")} holds \\d+ files but no CURRENT file`);

    const start = await runChaind(["--home", home, "start", ...LOOPBACK_PORT_FLAGS], { userHome });
    assertOneLine(start, refused);
    assert.match(start.stderr, /chaind repair-store/);
    assert.deepEqual(await listing(path), before, "start changed the store");

    // The snapshot needs the state store; without the block store it is taken without the engine state.
    const exported = await runChaind(["--home", home, "snapshots", "export"], { userHome });
    if (store === "application.db") assertOneLine(exported, refused);
    assert.deepEqual(await listing(path), before, "snapshots export changed the store");

    // status reads only the block store.
    const status = await runChaind(["status", "--home", home, "--node", await deadNode()], { userHome });
    if (store === "blocks.db") {
      assert.notEqual(status.code, 0, status.stdout);
      // It counts the store's own files (it said 3 of 6: the throwaway view it reads leaves LOCK and LOG out).
      assert.match(status.stderr, new RegExp(`holds ${Object.keys(before).length} files but no CURRENT`));
    }
    assert.deepEqual(await listing(path), before, "status changed the store");

    if (store === "blocks.db") {
      const replay = await runChaind(["replay", "--from", home, "--home", join(dir.path, "replay-no-current")], {
        userHome,
      });
      assertOneLine(replay, /the source home .* is damaged: its data\/blocks\.db holds \d+ files but no CURRENT file/);
      assert.deepEqual(await listing(path), before, "replay changed the source");
    }

    // The documented way back: LevelDB's repair, then the node starts at the height it had.
    const repaired = await runChaind(["repair-store", path], { userHome });
    assert.equal(repaired.code, 0, repaired.stderr);
    assert.match(repaired.stdout, /^repaired .*: \d+ table files in the store/);
    const node = spawnChaind(["--home", home, "start", ...LOOPBACK_PORT_FLAGS], { userHome });
    const { rpc } = await bannerEndpoints(node);
    await waitForHeight(rpc, lastHeight + 1n);
    const block = await rpcCall<{ block: { data: { txs: string[] } } }>(rpc, "block", { height: txHeight.toString() });
    // The send is still there (beside the extended commit each block opens with since readiness).
    const txs = block.block.data.txs.map((tx) => Buffer.from(tx, "base64"));
    assert.equal(txs.filter((tx) => tx.subarray(-64).equals(signature)).length, 1);
    node.signal("SIGTERM");
    assert.equal((await node.exited).code, 0);
  });
}

test("a tx's bytes damaged in data/blocks.db: the start stops on that block; replay names the source as damaged", async () => {
  const home = await copyHome("flipped-tx");
  const path = join(home, "data", "blocks.db");
  let flipped = 0;
  for (const name of await readdir(path)) {
    if (!name.endsWith(".ldb")) continue;
    const bytes = await readFile(join(path, name));
    for (let at = bytes.indexOf(signature); at >= 0; at = bytes.indexOf(signature, at + 1)) {
      bytes[at + 10] ^= 0x01;
      flipped++;
    }
    await writeFile(join(path, name), bytes);
  }
  assert.ok(flipped > 0, "the signature was not found in the table files");

  // The block is within the heights the start verifies.
  const start = await runWithDeadline(["--home", home, "start", ...LOOPBACK_PORT_FLAGS]);
  assertOneLine(
    start,
    new RegExp(
      `the block store \\(data/blocks\\.db\\) is damaged: the txs of block ${txHeight} hash to [0-9a-f]+ but its header's data_hash`,
    ),
  );

  const replay = await runWithDeadline(["replay", "--from", home, "--home", join(dir.path, "replay-flipped")]);
  assertOneLine(
    replay,
    new RegExp(
      `the source home .*flipped-tx is damaged at height ${txHeight}: the txs of block ${txHeight} hash to [0-9a-f]+ but its header's data_hash is [0-9a-f]+ \\(in its data/blocks\\.db\\)`,
    ),
  );
  assert.doesNotMatch(replay.stderr, /app hash mismatch|replayed with release/);
});
