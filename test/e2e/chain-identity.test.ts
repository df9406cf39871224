// A chain with its own identity (test/e2e/support/tally/tallyd.ts: prefix `tally`, denom `utally`, dev chain
// `tally-dev`) as a real process: `dev` prints `tally1…` keys and funds them in `utally`, `init` writes a genesis
// in `utally`, a send signed by the CLI commits, REST answers with the chain's addresses and Swagger names the
// binary. `dev` was given fixed ports: they are saved in the new home, so `status --home` and `query … --home`
// find the node without --node (SPEC §13 "Clients find their node").
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { homePaths } from "../../src/config/home.ts";
import { encodeBech32 } from "../../src/crypto/bech32.ts";
import {
  bannerEndpoints,
  type ChainBinary,
  killAllStarted,
  pollUntil,
  spawnChainBinary,
  tempDir,
  waitForHeight,
} from "../../src/testing/processes.ts";
import { freePorts } from "../support/abci/processes.ts";
import { NODE_BIN, PROJECT_ROOT } from "../support/node/chaind.ts";

const TALLYD: ChainBinary = {
  node: NODE_BIN,
  entry: join(PROJECT_ROOT, "test", "e2e", "support", "tally", "tallyd.ts"),
  cwd: PROJECT_ROOT,
  releaseEnv: "TALLYD_RELEASE",
};

let dir: Awaited<ReturnType<typeof tempDir>>;
let userHome: string;

before(async () => {
  dir = await tempDir("chaind-identity-");
  userHome = join(dir.path, "user");
});

after(async () => {
  await killAllStarted();
  await dir?.remove();
});

const tallyd = (args: string[]) => spawnChainBinary(TALLYD, args, { userHome }).exited;

/**
 * `dev` on fixed ports picked free just before: between the pick and the node's listen another process on the machine
 * may still take one, and the node then exits naming the address in use. Then the ports are picked again, with a new
 * home, up to three times; any other failure is the test's.
 */
async function startDevOnFixedPorts() {
  for (let attempt = 1; ; attempt++) {
    const home = join(dir.path, `home-${attempt}`);
    const [rpcPort, apiPort, grpcPort] = await freePorts(3);
    const node = spawnChainBinary(
      TALLYD,
      [
        "dev",
        "--home",
        home,
        "--rpc.laddr",
        `tcp://127.0.0.1:${rpcPort}`,
        "--api.address",
        `tcp://127.0.0.1:${apiPort}`,
        "--grpc.address",
        `127.0.0.1:${grpcPort}`,
      ],
      { userHome },
    );
    try {
      return { home, rpcPort, apiPort, node, endpoints: await bannerEndpoints(node) };
    } catch (err) {
      if (attempt >= 3 || !/address already in use/.test((err as Error).message)) throw err;
    }
  }
}

test("a chain's identity: tally1 keys, utally genesis, a send and REST; dev's ports are saved for --home clients", async () => {
  const { home, rpcPort, apiPort, node, endpoints } = await startDevOnFixedPorts();
  assert.equal(endpoints.rpc, `http://127.0.0.1:${rpcPort}`);
  assert.match(node.stdout, /Created the development chain "tally-dev"/);
  const keys = Object.fromEntries(
    [...node.stdout.matchAll(/^ {2}(validator|alice|bob) +(tally1[0-9a-z]{38})$/gm)].map((m) => [m[1], m[2]]),
  );
  assert.deepEqual(Object.keys(keys).sort(), ["alice", "bob", "validator"], node.stdout);
  assert.match(node.stdout, / tx bank send alice tally1\S+ 1000000utally --chain-id tally-dev /);
  // The printed commands need no --node: the home names the node.
  assert.doesNotMatch(node.stdout, / --node /);

  // The ports given to dev are in the home's config: clients and chainvisor read them there.
  const paths = homePaths(home);
  assert.match(await readFile(paths.configToml, "utf8"), new RegExp(`laddr = "tcp://127\\.0\\.0\\.1:${rpcPort}"`));
  const appToml = await readFile(paths.appToml, "utf8");
  assert.match(appToml, new RegExp(`address = "tcp://127\\.0\\.0\\.1:${apiPort}"`));
  assert.match(appToml, /minimum-gas-prices = "0utally"/);

  const genesis = JSON.parse(await readFile(paths.genesis, "utf8"));
  assert.equal(genesis.chain_id, "tally-dev");
  assert.equal(genesis.app_state.staking.params.bond_denom, "utally");
  assert.equal(genesis.app_state.gov.params.min_deposit[0].denom, "utally");

  await waitForHeight(endpoints.rpc, 2n);
  // keys show: the chain's prefix.
  const shown = await tallyd(["keys", "show", "alice", "-a", "--home", home, "--keyring-backend", "test"]);
  assert.equal(shown.code, 0, shown.stderr);
  assert.equal(shown.stdout.trim(), keys.alice);
  const operator = await tallyd([
    "keys",
    "show",
    "validator",
    "--bech",
    "val",
    "-a",
    "--home",
    home,
    "--keyring-backend",
    "test",
  ]);
  assert.equal(operator.code, 0, operator.stderr);
  assert.match(operator.stdout.trim(), /^tallyvaloper1[0-9a-z]{38}$/);

  // status and a query without --node: the home's saved rpc.laddr.
  const status = await tallyd(["status", "--home", home]);
  assert.equal(status.code, 0, status.stderr);
  assert.equal(JSON.parse(status.stdout).node_info.network, "tally-dev");
  const balances = await tallyd(["query", "bank", "balances", keys.alice, "--home", home, "-o", "json"]);
  assert.equal(balances.code, 0, balances.stderr);
  assert.deepEqual(JSON.parse(balances.stdout).balances, [{ denom: "utally", amount: "1000000000000" }]);

  // A send signed by the CLI commits; another chain's address is refused with the expected prefix named.
  const send = await tallyd([
    "tx",
    "bank",
    "send",
    "alice",
    keys.bob,
    "7utally",
    "--home",
    home,
    "--keyring-backend",
    "test",
    "-y",
    "--wait",
    "-o",
    "json",
  ]);
  assert.equal(send.code, 0, send.stderr);
  assert.equal(JSON.parse(send.stdout).code, 0, send.stdout);
  const foreign = await tallyd([
    "tx",
    "bank",
    "send",
    "alice",
    encodeBech32("chain", new Uint8Array(20).fill(1)),
    "7utally",
    "--home",
    home,
    "--keyring-backend",
    "test",
    "-y",
  ]);
  assert.notEqual(foreign.code, 0);
  assert.match(foreign.stderr, /expected "tally"/);

  // REST: the bank balance of bob, the auth prefix, Swagger's title.
  const rest = endpoints.rest as string;
  await pollUntil(
    async () => {
      const bob = (await (await fetch(`${rest}/chain/bank/v1beta1/balances/${keys.bob}`)).json()) as {
        balances: { denom: string; amount: string }[];
      };
      return bob.balances[0]?.amount === "1000000000007" ? true : undefined;
    },
    { what: "bob's balance after the send" },
  );
  const prefix = (await (await fetch(`${rest}/chain/auth/v1beta1/bech32`)).json()) as { bech32_prefix: string };
  assert.equal(prefix.bech32_prefix, "tally");
  const swagger = (await (await fetch(`${rest}/swagger/swagger.json`)).json()) as { info: { title: string } };
  assert.equal(swagger.info.title, "tallyd REST gateway");
  assert.match(await (await fetch(`${rest}/upgrade`)).text(), /<title>tallyd: upgrade status<\/title>/);

  node.signal("SIGINT");
  assert.equal((await node.exited).code, 0);

  // init: the chain's denom is the default of a new genesis.
  const initHome = join(dir.path, "init-home");
  const init = await tallyd(["init", "node0", "--chain-id", "tally-1", "--home", initHome]);
  assert.equal(init.code, 0, init.stderr);
  const initGenesis = JSON.parse(await readFile(homePaths(initHome).genesis, "utf8"));
  assert.equal(initGenesis.app_state.staking.params.bond_denom, "utally");
});
