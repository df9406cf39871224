// `chaind status` (docs/CONTRACT.md §8, §12) as a real process against a real node: the consensus RPC's /status result
// from --node (else the home's rpc.laddr); the same shape read from a stopped node's home when nothing answers and
// --home was given; a one-line error otherwise. The home read is checked as cosmovisor v1.6+ uses it (stdout and
// stderr parsed together as one JSON document, `sync_info.latest_block_height` compared with the plan's height),
// against damaged stores, and under concurrent calls.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { cp, mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { homePaths, setTomlValues } from "../../src/config/index.ts";
import { type DevHome, prepareDevHome } from "../../src/node/dev-chain.ts";
import { dumpUpgradeInfoToDisk } from "../../src/x/upgrade/upgrade-info-file.ts";
import {
  bannerEndpoints,
  killAllChaind,
  LOOPBACK_PORT_FLAGS,
  rpcCall,
  runChaind,
  runChaindInProcess,
  spawnChaind,
  tempDir,
  waitForHeight,
} from "../support/node/chaind.ts";

interface Status {
  node_info: { network: string; id: string; moniker: string; protocol_version: Record<string, string> };
  sync_info: {
    latest_block_height: string;
    latest_block_hash: string;
    latest_app_hash: string;
    latest_block_time: string;
    earliest_block_height: string;
    catching_up: boolean;
    latest_committed_height?: string;
  };
  validator_info: { address: string; voting_power: string };
}

let dir: Awaited<ReturnType<typeof tempDir>>;
let home: string;
let userHome: string;
let chainId: string;
let dev: DevHome;

/** A tcp:// address on 127.0.0.1 where nothing listens (bound by the system, then released). */
async function deadNode(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `tcp://127.0.0.1:${port}`;
}

/** A copy of the (stopped) test home whose config.toml rpc.laddr is `rpcLaddr`, so no node answers there. */
async function copyOfHome(name: string, rpcLaddr: string): Promise<string> {
  const copy = join(dir.path, name);
  await cp(home, copy, { recursive: true });
  const configToml = homePaths(copy).configToml;
  await writeFile(configToml, setTomlValues(await readFile(configToml, "utf8"), { "rpc.laddr": rpcLaddr }));
  return copy;
}

/** Overwrites the LevelDB MANIFEST of the store at `db` with garbage. */
async function garbleManifest(db: string): Promise<void> {
  const manifest = (await readdir(db)).find((name) => name.startsWith("MANIFEST-"));
  assert.ok(manifest, `no MANIFEST in ${db}`);
  await writeFile(join(db, manifest), Buffer.alloc(4096, 0x5a));
}

/** The height cosmovisor v1.6+ reads: stdout and stderr together as one JSON document, sync_info's (or SyncInfo's). */
function cosmovisorHeight(result: { stdout: string; stderr: string }): bigint {
  const parsed = JSON.parse(result.stdout + result.stderr) as Record<string, { latest_block_height?: string }>;
  const text = parsed.sync_info?.latest_block_height ?? parsed.SyncInfo?.latest_block_height ?? "";
  assert.match(text, /^[0-9]+$/, "latest block height is empty");
  return BigInt(text);
}

function parseStatus(stdout: string): Status {
  assert.equal(stdout.trim().split("\n").length, 1, `one line of JSON expected:\n${stdout}`);
  return JSON.parse(stdout) as Status;
}

before(async () => {
  dir = await tempDir("chaind-status-");
  home = join(dir.path, "home");
  userHome = join(dir.path, "user");
  dev = await prepareDevHome({ home });
  chainId = dev.chainId;
  const configToml = homePaths(home).configToml;
  await writeFile(
    configToml,
    setTomlValues(await readFile(configToml, "utf8"), { "consensus.timeout_commit": "100ms" }),
  );
});

after(async () => {
  await killAllChaind();
  await dir?.remove();
});

test("status: from a running node, then from its home once it is stopped, then a one-line error", async () => {
  const node = spawnChaind(["--home", home, "start", ...LOOPBACK_PORT_FLAGS], { userHome });
  const { rpc } = await bannerEndpoints(node);
  await waitForHeight(rpc, 3n);

  // 1. A node answers at --node: its /status result, printed as one line of JSON.
  const live = await runChaind(["status", "--node", rpc.replace(/^http:/, "tcp:")], { userHome });
  assert.equal(live.code, 0, live.stderr);
  const online = parseStatus(live.stdout);
  const direct = await rpcCall<Status>(rpc, "status");
  assert.deepEqual(Object.keys(online).sort(), ["node_info", "sync_info", "validator_info"]);
  assert.equal(online.node_info.network, chainId);
  assert.equal(online.node_info.id, direct.node_info.id);
  assert.match(online.validator_info.address, /^[0-9A-F]{40}$/);
  assert.equal(online.validator_info.address, direct.validator_info.address);
  assert.match(online.sync_info.latest_block_height, /^[0-9]+$/);
  assert.ok(BigInt(online.sync_info.latest_block_height) >= 3n);
  assert.match(online.sync_info.latest_block_hash, /^[0-9A-F]{64}$/);
  assert.equal(online.sync_info.catching_up, false);
  // Added to the node's /status: the application's committed height (its /abci_info), asked at the same time.
  assert.match(online.sync_info.latest_committed_height ?? "", /^[0-9]+$/);
  // Nothing on stderr: cosmovisor v1.6+ parses stdout and stderr together as one JSON document.
  assert.equal(live.stderr, "");
  // Global flags before the command word dispatch the same way (how supervisors call it).
  const before = await runChaind(["--home", home, "status", "--node", rpc], { userHome });
  assert.equal(before.code, 0, before.stderr);
  assert.equal(parseStatus(before.stdout).node_info.network, chainId);

  node.signal("SIGTERM");
  const exit = await node.exited;
  assert.equal(exit.code, 0, exit.stderr);

  // 2. Nothing answers, the home has data: the same shape, read from the block store, at the last height.
  const dead = await deadNode();
  const offline = await runChaind(["status", "--node", dead, "--home", home], { userHome });
  assert.equal(offline.code, 0, offline.stderr);
  const stopped = parseStatus(offline.stdout);
  assert.deepEqual(Object.keys(stopped).sort(), ["node_info", "sync_info", "validator_info"]);
  assert.equal(offline.stderr, "");
  // The node's sync_info fields, none renamed, and one added.
  assert.deepEqual(
    Object.keys(stopped.sync_info).sort(),
    [...Object.keys(direct.sync_info), "latest_committed_height"].sort(),
  );
  assert.equal(stopped.sync_info.latest_committed_height, stopped.sync_info.latest_block_height);
  assert.deepEqual(Object.keys(stopped.node_info).sort(), Object.keys(direct.node_info).sort());
  assert.equal(stopped.node_info.network, chainId);
  assert.equal(stopped.node_info.id, online.node_info.id);
  assert.equal(stopped.node_info.moniker, online.node_info.moniker);
  assert.equal(stopped.validator_info.address, online.validator_info.address);
  assert.equal(stopped.validator_info.voting_power, online.validator_info.voting_power);
  assert.ok(BigInt(stopped.sync_info.latest_block_height) >= BigInt(online.sync_info.latest_block_height));
  assert.equal(stopped.sync_info.earliest_block_height, online.sync_info.earliest_block_height);
  assert.match(stopped.sync_info.latest_block_hash, /^[0-9A-F]{64}$/);
  assert.match(stopped.sync_info.latest_app_hash, /^[0-9A-F]{64}$/);

  // The same height and hash the node itself reports when it is started again (before it makes a new block the
  // RPC's latest is the stored one).
  const again = spawnChaind(["--home", home, "start", ...LOOPBACK_PORT_FLAGS], { userHome });
  const restarted = await bannerEndpoints(again);
  const height = BigInt(stopped.sync_info.latest_block_height);
  const block = await rpcCall<{ block_id: { hash: string }; block: { header: { app_hash: string } } }>(
    restarted.rpc,
    "block",
    { height: height.toString() },
  );
  assert.equal(block.block_id.hash, stopped.sync_info.latest_block_hash);
  again.signal("SIGTERM");
  assert.equal((await again.exited).code, 0);

  // 3. Nothing answers and the home holds no node: one line on stderr, exit 1, nothing created there.
  const empty = join(dir.path, "empty-home");
  const none = await runChaind(["status", "--node", dead, "--home", empty], { userHome });
  assert.equal(none.code, 1);
  assert.equal(none.stdout, "");
  assert.equal(none.stderr.trim().split("\n").length, 1, none.stderr);
  assert.match(none.stderr, new RegExp(`^Error: no node answers at ${dead} \\(connection refused\\) and .*empty-home`));
  await assert.rejects(readFile(join(empty, "data", "blocks.db", "CURRENT")));
});

test("status: bad flags are a usage error, --help prints usage", async () => {
  const bad = await runChaind(["status", "--nope"], { userHome });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^Error: Unknown option '--nope'/);
  // An empty --home names no home (resolved, it would be the default home, which status never reads unasked).
  const empty = await runChaind(["status", "--home", ""], { userHome });
  assert.equal(empty.code, 2);
  assert.equal(empty.stderr, "Error: --home is empty: expected the path of a file or directory\n");
  const help = await runChaind(["status", "--help"], { userHome });
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: chaind status \[--node <url>\] \[--home <dir>\]/);
});

test("status is listed in --help and answers in process through the command tree too", async () => {
  const help = await runChaind(["--help"], { userHome });
  assert.match(help.stdout, /^ {2}status .*Query the node's status/m);
  const dead = await deadNode();
  const none = await runChaindInProcess(["--home", join(dir.path, "nothing-here"), "status", "--node", dead]);
  assert.equal(none.code, 1);
  assert.match(
    none.stderr,
    /^Error: no node answers at tcp:\/\/127\.0\.0\.1:\d+ \(connection refused\) and .*nothing-here/,
  );
  assert.equal(none.stderr.trim().split("\n").length, 1, none.stderr);
  // Without --home the command tree passes no home on: the default home is never read (its rpc.laddr only).
  const bare = await runChaindInProcess(["status", "--node", dead]);
  assert.equal(bare.code, 1);
  assert.match(
    bare.stderr,
    /^Error: no node answers at tcp:\/\/127\.0\.0\.1:\d+ \(connection refused\); .*give --home/,
  );
});

// The tests below use the home the first test left stopped, with blocks.

test("status of a home halted for an upgrade at H reports H, as a CometBFT node, and the committed H-1 beside it", async () => {
  const dead = await deadNode();
  // The call cosmovisor v1.6+ makes, `status --home <DAEMON_HOME>`: no --node, so the home's rpc.laddr is asked.
  const halted = await copyOfHome("halted-home", dead);
  const before = await runChaind(["status", "--home", halted], { userHome });
  assert.equal(before.code, 0, before.stderr);
  const stored = parseStatus(before.stdout).sync_info;
  const planHeight = BigInt(stored.latest_block_height) + 1n;

  // What the node leaves at an upgrade halt at H: upgrade-info.json naming H, H-1 committed, nothing of H stored.
  await dumpUpgradeInfoToDisk(halted, planHeight, { name: "v2", info: "" });
  const at = await runChaind(["status", "--home", halted], { userHome });
  assert.equal(at.code, 0, at.stderr);
  assert.equal(at.stderr, "");
  assert.equal(cosmovisorHeight(at), planHeight, "cosmovisor v1.6+ switches once the height reaches the plan's");
  const sync = parseStatus(at.stdout).sync_info;
  assert.equal(sync.latest_block_height, planHeight.toString());
  assert.equal(sync.latest_committed_height, stored.latest_block_height);
  // The other latest_* fields stay those of the last stored block: nothing of H exists to describe.
  assert.equal(sync.latest_block_hash, stored.latest_block_hash);
  assert.equal(sync.latest_app_hash, stored.latest_app_hash);
  assert.equal(sync.latest_block_time, stored.latest_block_time);

  // An upgrade-info.json of a height already passed (the new binary went on) changes nothing.
  await dumpUpgradeInfoToDisk(halted, planHeight - 1n, { name: "v2", info: "" });
  const passed = parseStatus((await runChaind(["status", "--home", halted], { userHome })).stdout).sync_info;
  assert.equal(passed.latest_block_height, stored.latest_block_height);
  assert.equal(passed.latest_committed_height, stored.latest_block_height);
});

test("status reports a damaged or missing store as such, not as a running node that does not answer", async () => {
  const dead = await deadNode();
  const cases: { name: string; damage: (copy: string) => Promise<void>; message: RegExp }[] = [
    {
      name: "blocks.db MANIFEST garbage",
      damage: (copy) => garbleManifest(homePaths(copy).blocksDb),
      message: /the block store .*blocks\.db cannot be read: it is damaged \(/,
    },
    {
      name: "blocks.db CURRENT missing",
      damage: (copy) => rm(join(homePaths(copy).blocksDb, "CURRENT")),
      message: /the block store .*blocks\.db cannot be read: it is damaged \(/,
    },
    {
      name: "application.db removed",
      damage: (copy) => rm(homePaths(copy).applicationDb, { recursive: true }),
      message: /the home holds no application state \(.*application\.db does not exist\)/,
    },
    {
      name: "application.db MANIFEST garbage",
      damage: (copy) => garbleManifest(homePaths(copy).applicationDb),
      message: /the application state .*application\.db cannot be read: it is damaged \(/,
    },
    {
      name: "application.db emptied",
      damage: async (copy) => {
        await rm(homePaths(copy).applicationDb, { recursive: true });
        await mkdir(homePaths(copy).applicationDb);
      },
      message: /the application state .*application\.db holds no committed height/,
    },
  ];
  for (const [i, { name, damage, message }] of cases.entries()) {
    const copy = await copyOfHome(`damaged-${i}`, dead);
    await damage(copy);
    const result = await runChaind(["status", "--home", copy], { userHome });
    assert.equal(result.code, 1, `${name}: ${result.stdout}`);
    assert.equal(result.stdout, "", name);
    assert.equal(result.stderr.trim().split("\n").length, 1, `${name}: ${result.stderr}`);
    assert.doesNotMatch(result.stderr, /in use by a running node/, name);
    assert.match(result.stderr, message, name);
  }
});

/** Every entry under `root` with its size, modification time and (for files) content hash. */
async function snapshotOf(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    const info = await stat(path);
    const hash = entry.isFile()
      ? createHash("sha256")
          .update(await readFile(path))
          .digest("hex")
      : "dir";
    out.set(path.slice(root.length), `${info.size} ${info.mtimeMs} ${hash}`);
  }
  return out;
}

test("status reads a stopped home read-only: no file or directory in it changes", async () => {
  // LevelDB writes whenever it opens a store (its log replayed into a new table, a new MANIFEST, CURRENT and LOG),
  // so an open in place would change data/ even though status only reads.
  const before = await snapshotOf(home);
  assert.ok(
    [...before.keys()].some((p) => p.endsWith(".log")),
    "the stopped node left a write-ahead log to replay",
  );
  const result = await runChaind(["status", "--node", await deadNode(), "--home", home], { userHome });
  assert.equal(result.code, 0, result.stderr);
  assert.match(parseStatus(result.stdout).sync_info.latest_block_height, /^[0-9]+$/);
  assert.deepEqual(await snapshotOf(home), before);
});

test("concurrent status calls on a stopped home all succeed", async () => {
  const dead = await deadNode();
  const results = await Promise.all(
    Array.from({ length: 6 }, () => runChaind(["status", "--node", dead, "--home", home], { userHome })),
  );
  const heights = results.map((result) => {
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stderr, "");
    return parseStatus(result.stdout).sync_info.latest_block_height;
  });
  assert.equal(new Set(heights).size, 1, `one height expected: ${heights.join(", ")}`);
});

test("without --node, status and the client commands ask the given (or default) home's rpc.laddr; status reads only a home it was given", async () => {
  const dead = await deadNode();
  // A default home (~/.chaind) with a stopped node's data, whose rpc.laddr nobody answers: status without --home asks
  // that address, and never reads that home's data (on a shared host it may be another chain's).
  const otherUser = join(dir.path, "other-user");
  await mkdir(otherUser);
  await cp(await copyOfHome("default-home", dead), join(otherUser, ".chaind"), { recursive: true });
  const bare = await runChaind(["status"], { userHome: otherUser });
  assert.equal(bare.code, 1, bare.stdout);
  assert.equal(bare.stdout, "");
  assert.equal(bare.stderr.trim().split("\n").length, 1, bare.stderr);
  assert.match(bare.stderr, new RegExp(`^Error: no node answers at ${dead} \\(connection refused\\); .*give --home`));

  // A node listening where its config.toml says (no --rpc.laddr flag).
  const port = Number(new URL((await deadNode()).replace(/^tcp:/, "http:")).port);
  const laddr = `tcp://127.0.0.1:${port}`;
  const configToml = homePaths(home).configToml;
  const original = await readFile(configToml, "utf8");
  await writeFile(configToml, setTomlValues(original, { "rpc.laddr": laddr }));
  const node = spawnChaind(
    ["--home", home, "start", "--api.address", "tcp://127.0.0.1:0", "--grpc.address", "127.0.0.1:0"],
    {
      userHome,
    },
  );
  try {
    const { rpc } = await bannerEndpoints(node);
    assert.equal(rpc, `http://127.0.0.1:${port}`);
    await waitForHeight(rpc, 1n);
    // status --home, as cosmovisor v1.6+ calls it: the node answers (its block store is locked, so a reply means the
    // RPC answered, not the home).
    const viaHome = await runChaind(["status", "--home", home], { userHome });
    assert.equal(viaHome.code, 0, viaHome.stderr);
    assert.equal(parseStatus(viaHome.stdout).node_info.network, chainId);
    // The default home's rpc.laddr, when only its config names the node.
    const user = join(dir.path, "config-only-user");
    await mkdir(join(user, ".chaind", "config"), { recursive: true });
    await writeFile(join(user, ".chaind", "config", "config.toml"), `[rpc]\nladdr = "tcp://0.0.0.0:${port}"\n`);
    const viaDefault = await runChaind(["status"], { userHome: user });
    assert.equal(viaDefault.code, 0, viaDefault.stderr);
    assert.equal(parseStatus(viaDefault.stdout).node_info.network, chainId);

    // A query and a tx without --node reach the same node through the home's rpc.laddr.
    const alice = dev.keys.find((key) => key.name === "alice")?.address as string;
    const bob = dev.keys.find((key) => key.name === "bob")?.address as string;
    const balances = await runChaind(["query", "bank", "balances", alice, "--home", home, "-o", "json"], { userHome });
    assert.equal(balances.code, 0, balances.stderr);
    assert.ok((JSON.parse(balances.stdout) as { balances: unknown[] }).balances.length > 0);
    const send = await runChaind(
      ["tx", "bank", "send", "alice", bob, "1stake", "--home", home, "--keyring-backend", "test", "-y", "--wait"],
      { userHome },
    );
    assert.equal(send.code, 0, send.stderr);
    // An explicit --node wins over the home's.
    const elsewhere = await runChaind(["query", "bank", "balances", alice, "--home", home, "--node", dead], {
      userHome,
    });
    assert.notEqual(elsewhere.code, 0);
    assert.match(elsewhere.stderr, new RegExp(dead.replace("tcp://", "").replace(/\./g, "\\.")));
  } finally {
    node.signal("SIGTERM");
    await node.exited;
    await writeFile(configToml, original);
  }
});
