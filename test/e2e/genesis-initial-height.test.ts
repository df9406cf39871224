// A genesis whose `initial_height` is not 1 (a chain restarted from an exported genesis): `chaind init
// --initial-height 5`, the operator's genesis commands, then a real `chaind start` with the embedded
// engine. The first block is block 5; the consensus RPC, the REST gateway (historical queries), the
// block store and the app's store versions agree on it, before and after a restart. A height above the
// last one the state store can number (2^53 − 1) is refused by init, genesis validate and start.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  bannerEndpoints,
  type ChaindResult,
  killAllChaind,
  LOOPBACK_PORT_FLAGS,
  rpcCall,
  runChaind,
  spawnChaind,
  tempDir,
  waitForHeight,
} from "../support/node/chaind.ts";

const CHAIN_ID = "initial-height-e2e";
const INITIAL_HEIGHT = 5n;
let dir: Awaited<ReturnType<typeof tempDir>>;
let home: string;
let tooHigh: string;
let userHome: string;

const chaind = async (...args: string[]) => {
  const result = await runChaind(["--home", home, ...args], { userHome });
  assert.equal(result.code, 0, `chaind ${args.join(" ")} failed (${result.code}):\n${result.stdout}\n${result.stderr}`);
  return result;
};

before(async () => {
  dir = await tempDir("chaind-initial-height-");
  home = join(dir.path, "home");
  userHome = join(dir.path, "user");
  await chaind("init", "node0", "--chain-id", CHAIN_ID, "--initial-height", String(INITIAL_HEIGHT));
  await chaind("keys", "add", "val", "--keyring-backend", "test");
  await chaind("genesis", "add-genesis-account", "val", "100000000000stake");
  await chaind("genesis", "gentx", "val", "10000000000stake", "--chain-id", CHAIN_ID);
  await chaind("genesis", "collect-gentxs");
  // The same home with a genesis whose initial_height is 2^63 − 1 (N13: it passed validation, then the store
  // printed a stack at InitChain), copied before the home above is ever started.
  tooHigh = join(dir.path, "too-high");
  await cp(home, tooHigh, { recursive: true });
  const genesisFile = join(tooHigh, "config", "genesis.json");
  const genesis = JSON.parse(await readFile(genesisFile, "utf8")) as Record<string, unknown>;
  await writeFile(genesisFile, JSON.stringify({ ...genesis, initial_height: "9223372036854775807" }, null, 2));
});

after(async () => {
  await killAllChaind();
  await dir?.remove();
});

test("the first block has height initial_height; RPC, REST, block store and store versions agree", async () => {
  let node = spawnChaind(["--home", home, "start", ...LOOPBACK_PORT_FLAGS], { userHome });
  let { rpc, rest } = await bannerEndpoints(node);
  await waitForHeight(rpc, INITIAL_HEIGHT + 1n, 180_000);

  const status = await rpcCall<{ sync_info: { earliest_block_height: string; latest_block_height: string } }>(
    rpc,
    "status",
  );
  assert.equal(status.sync_info.earliest_block_height, String(INITIAL_HEIGHT));
  const first = await rpcCall<{ block: { header: { height: string }; last_commit: { height: string } } }>(
    rpc,
    "block",
    { height: String(INITIAL_HEIGHT) },
  );
  assert.equal(first.block.header.height, String(INITIAL_HEIGHT));
  await assert.rejects(rpcCall(rpc, "block", { height: String(INITIAL_HEIGHT - 1n) }), /height/);
  const chain = await rpcCall<{ block_metas: { header: { height: string } }[] }>(rpc, "blockchain", {
    minHeight: "1",
    maxHeight: String(INITIAL_HEIGHT + 1n),
  });
  assert.deepEqual(
    chain.block_metas.map((m) => m.header.height),
    [String(INITIAL_HEIGHT + 1n), String(INITIAL_HEIGHT)],
  );
  // The app's store committed block 5 as version 5: abci_info and a historical REST query at 5 agree.
  const info = await rpcCall<{ response: { last_block_height: string } }>(rpc, "abci_info");
  assert.ok(BigInt(info.response.last_block_height) >= INITIAL_HEIGHT + 1n, info.response.last_block_height);
  const atFirst = await fetch(`${rest}/chain/bank/v1beta1/supply`, {
    headers: { "x-chain-block-height": String(INITIAL_HEIGHT) },
  });
  assert.equal(atFirst.status, 200, await atFirst.clone().text());
  assert.equal(atFirst.headers.get("x-chain-block-height"), String(INITIAL_HEIGHT));
  const before = await fetch(`${rest}/chain/bank/v1beta1/supply`, {
    headers: { "x-chain-block-height": String(INITIAL_HEIGHT - 1n) },
  });
  assert.equal(before.status, 404, await before.clone().text());
  // A restart continues from the stored chain, with the same first block.
  node.signal("SIGTERM");
  assert.equal((await node.exited).code, 0);
  node = spawnChaind(["--home", home, "start", ...LOOPBACK_PORT_FLAGS], { userHome });
  ({ rpc, rest } = await bannerEndpoints(node));
  const restartedAt = BigInt(
    (await rpcCall<{ sync_info: { latest_block_height: string } }>(rpc, "status")).sync_info.latest_block_height,
  );
  await waitForHeight(rpc, restartedAt + 1n, 180_000);
  const again = await rpcCall<{ block: { header: { height: string } } }>(rpc, "block", {
    height: String(INITIAL_HEIGHT),
  });
  assert.equal(again.block.header.height, String(INITIAL_HEIGHT));
  node.signal("SIGTERM");
  assert.equal((await node.exited).code, 0);
});

/** The run failed with one error line on stderr matching `pattern` and no stack frame. */
function assertOneLine(result: ChaindResult, pattern: RegExp): void {
  assert.notEqual(result.code, 0, `expected a non-zero exit\n${result.stderr}`);
  assert.equal(result.stderr.trimEnd().split("\n").length, 1, `expected one line\n${result.stderr}`);
  assert.match(result.stderr, pattern);
  assert.doesNotMatch(result.stderr, /^\s+at /m, `a stack trace was printed\n${result.stderr}`);
}

test("an initial_height above 2^53 − 1 is refused in one line by init, genesis validate and start", async () => {
  const fresh = join(dir.path, "too-high-init");
  const init = await runChaind(
    ["--home", fresh, "init", "node0", "--chain-id", CHAIN_ID, "--initial-height", "9223372036854775807"],
    { userHome },
  );
  assertOneLine(init, /--initial-height.*expected a whole number from 1 to 9007199254740991 \(2\^53 − 1\)/);
  assert.equal(existsSync(fresh), false, "init wrote nothing");
  const expected =
    /initial_height: expected a height from 1 to 9007199254740991 \(2\^53 − 1, the highest this node can run.*got "9223372036854775807"/;
  assertOneLine(await runChaind(["--home", tooHigh, "genesis", "validate"], { userHome }), expected);
  assertOneLine(await runChaind(["--home", tooHigh, "start", ...LOOPBACK_PORT_FLAGS], { userHome }), expected);
  assert.equal(existsSync(join(tooHigh, "data", "application.db")), false, "start stopped before opening the state");
});
