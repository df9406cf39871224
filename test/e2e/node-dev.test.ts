// `chaind dev` in a fresh temp home, as a real process on loopback ports picked at run time: it
// prints its keys with their mnemonics, its endpoints and commands to paste; the chain produces
// blocks with the funded keys and the short governance periods; the printed commands work; SIGINT
// exits 0; running it again continues the same chain without printing mnemonics.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  bannerEndpoints,
  CHAIND_ENTRY,
  type ChaindProcess,
  killAllChaind,
  LOOPBACK_PORT_FLAGS,
  NODE_BIN,
  PROJECT_ROOT,
  pollUntil,
  runChaind,
  spawnChaind,
  tempDir,
  waitForHeight,
} from "../support/node/chaind.ts";

let dir: Awaited<ReturnType<typeof tempDir>>;
let home: string;
let userHome: string;

before(async () => {
  dir = await tempDir("chaind-node-dev-");
  home = join(dir.path, "home");
  userHome = join(dir.path, "user");
});

after(async () => {
  await killAllChaind();
  await dir?.remove();
});

const startDev = () => spawnChaind(["dev", "--home", home, ...LOOPBACK_PORT_FLAGS], { userHome });

/** Runs one of the banner's `Try:` lines as printed (the node binary and script are the project's). */
function runPrinted(line: string) {
  const words = line.trim().split(/\s+/);
  assert.equal(words[0], "node_modules/.bin/node", line);
  assert.equal(words[1], "chain/cmd/chaind.mjs", line);
  assert.equal(join(PROJECT_ROOT, words[0]), NODE_BIN);
  assert.equal(join(PROJECT_ROOT, words[1]), CHAIND_ENTRY);
  return runChaind(words.slice(2), { userHome });
}

test("dev creates a funded single-validator chain, prints keys, endpoints and working commands, and continues after a restart", async () => {
  let node: ChaindProcess = startDev();
  const endpoints = await bannerEndpoints(node);
  const out = node.stdout;
  assert.match(out, /Created the development chain "chaind-dev"/);
  const keys = Object.fromEntries(
    [...out.matchAll(/^ {2}(validator|alice|bob) +(chain1[0-9a-z]{38})$/gm)].map((m) => [m[1], m[2]]),
  );
  assert.deepEqual(Object.keys(keys).sort(), ["alice", "bob", "validator"]);
  const mnemonics = [...out.matchAll(/^ {2}(validator|alice|bob): ((?:[a-z]+ ){23}[a-z]+)$/gm)];
  assert.equal(mnemonics.length, 3);
  assert.match(endpoints.rest ?? "", /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.match(endpoints.grpc ?? "", /^127\.0\.0\.1:\d+$/);
  assert.equal(endpoints.swagger, `${endpoints.rest}/swagger`);

  await waitForHeight(endpoints.rpc, 2n);
  const balance = (await (await fetch(`${endpoints.rest}/chain/bank/v1beta1/balances/${keys.alice}`)).json()) as {
    balances: { denom: string; amount: string }[];
  };
  assert.deepEqual(balance.balances, [{ denom: "stake", amount: "1000000000000" }]);
  const voting = (await (await fetch(`${endpoints.rest}/chain/gov/v1/params/voting`)).json()) as {
    params: { voting_period: string; max_deposit_period: string; expedited_voting_period: string };
  };
  assert.equal(voting.params.voting_period, "20s");
  assert.equal(voting.params.max_deposit_period, "20s");
  assert.equal(voting.params.expedited_voting_period, "10s");

  const printed = out.split("\n").filter((line) => line.startsWith("  node_modules/.bin/node "));
  const query = printed.find((line) => line.includes(" query bank balances "));
  const send = printed.find((line) => line.includes(" tx bank send "));
  assert.ok(query !== undefined && send !== undefined, out);
  const queried = await runPrinted(query);
  assert.equal(queried.code, 0, queried.stderr);
  assert.match(queried.stdout, /amount: "1000000000000"/);
  const sent = await runPrinted(send);
  assert.equal(sent.code, 0, sent.stderr);
  await pollUntil(
    async () => {
      const bob = (await (await fetch(`${endpoints.rest}/chain/bank/v1beta1/balances/${keys.bob}`)).json()) as {
        balances: { amount: string }[];
      };
      return bob.balances[0]?.amount === "1000001000000" ? true : undefined;
    },
    { what: "the printed send to land" },
  );

  node.signal("SIGINT");
  const first = await node.exited;
  assert.equal(first.code, 0, first.stderr.slice(-2000));
  const stoppedAt = BigInt(/node stopped height=(\d+)/.exec(first.stderr)?.[1] ?? "0");

  node = startDev();
  const again = await bannerEndpoints(node);
  assert.match(node.stdout, /Continuing the chain "chaind-dev"/);
  assert.doesNotMatch(node.stdout, /Mnemonics/);
  assert.match(node.stdout, new RegExp(`alice +${keys.alice}`));
  await waitForHeight(again.rpc, stoppedAt + 1n);
  node.signal("SIGTERM");
  assert.equal((await node.exited).code, 0);
});
