// `chaind status` (SPEC §12) as a real process against a real node: the consensus RPC's /status result from
// --node; the same shape read from a stopped node's home when nothing answers; a one-line error otherwise.
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { homePaths, setTomlValues } from "../../src/config/index.ts";
import { prepareDevHome } from "../../src/node/dev-chain.ts";
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
} from "../../src/node/test-support.ts";

interface Status {
  node_info: { network: string; id: string; moniker: string; protocol_version: Record<string, string> };
  sync_info: {
    latest_block_height: string;
    latest_block_hash: string;
    latest_app_hash: string;
    latest_block_time: string;
    earliest_block_height: string;
    catching_up: boolean;
  };
  validator_info: { address: string; voting_power: string };
}

let dir: Awaited<ReturnType<typeof tempDir>>;
let home: string;
let userHome: string;
let chainId: string;

/** A tcp:// address on 127.0.0.1 where nothing listens (bound by the system, then released). */
async function deadNode(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `tcp://127.0.0.1:${port}`;
}

function parseStatus(stdout: string): Status {
  assert.equal(stdout.trim().split("\n").length, 1, `one line of JSON expected:\n${stdout}`);
  return JSON.parse(stdout) as Status;
}

before(async () => {
  dir = await tempDir("chaind-status-");
  home = join(dir.path, "home");
  userHome = join(dir.path, "user");
  const dev = await prepareDevHome({ home });
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
  assert.deepEqual(Object.keys(stopped.sync_info).sort(), Object.keys(direct.sync_info).sort());
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
});
