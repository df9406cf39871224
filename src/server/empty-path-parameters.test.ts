// A REST path with an empty parameter (`/chain/bank/v1beta1/balances/`): upstream's gateway matches the pattern with
// the empty value and the handler answers as for any empty field (docs/shared reference rest-gateway.md §1.1), so
// each route here answers what upstream's handler does for "" — applied_plan included: 200 {"height":"0"}.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { parseAppConfig } from "../config/app-config.ts";
import { type ChainFixture, openChainFixture } from "../testing/chain-fixture.ts";
import { type RunningServers, startServers } from "./servers.ts";

const TOML = `
[api]
address = "tcp://127.0.0.1:0"
[grpc]
enable = false
`;

let chain: ChainFixture;
let servers: RunningServers;
let base: string;

before(async () => {
  chain = await openChainFixture();
  await chain.nextBlock();
  servers = await startServers({ backend: chain.backend, hooks: chain.hooks, config: parseAppConfig(TOML) });
  assert.ok(servers.rest !== undefined);
  base = `http://127.0.0.1:${(servers.rest.address as { port: number }).port}`;
});

after(async () => {
  await servers?.stop();
  await chain?.close();
});

const ADDRESS = "chain1qyqszqgpqyqszqgpqyqszqgpqyqszqgpjnp7du";

// [path, status, body]: an error body is {code, message, details: []}.
const CASES: [string, number, unknown][] = [
  ["/chain/upgrade/v1beta1/applied_plan/", 200, { height: "0" }],
  [
    "/chain/bank/v1beta1/balances/",
    400,
    { code: 3, message: "invalid address: empty address string is not allowed", details: [] },
  ],
  [
    "/chain/bank/v1beta1/spendable_balances/",
    400,
    { code: 3, message: "invalid address: empty address string is not allowed", details: [] },
  ],
  [
    "/chain/bank/v1beta1/balances//by_denom?denom=stake",
    400,
    { code: 3, message: "invalid address: empty address string is not allowed", details: [] },
  ],
  // Upstream's Balance checks the denom before the address.
  ["/chain/bank/v1beta1/balances//by_denom", 400, { code: 3, message: "invalid denom: ", details: [] }],
  ["/chain/bank/v1beta1/denoms_metadata/", 400, { code: 3, message: "invalid denom: ", details: [] }],
  ["/chain/bank/v1beta1/denom_owners/", 400, { code: 3, message: "invalid denom: ", details: [] }],
  ["/chain/auth/v1beta1/accounts/", 400, { code: 3, message: "Address cannot be empty", details: [] }],
  ["/chain/auth/v1beta1/account_info/", 400, { code: 3, message: "address cannot be empty", details: [] }],
  ["/chain/auth/v1beta1/module_accounts/", 400, { code: 3, message: "module name is empty", details: [] }],
  // Upstream's texts; where upstream answers 500 (a plain error, an Internal status) ours is 400 code 3, as
  // docs/CONTRACT.md §7 asks of every bad parameter (the schemathesis e2e test finds any 500).
  ["/chain/auth/v1beta1/bech32/", 400, { code: 3, message: "empty address bytes is not allowed", details: [] }],
  ["/chain/tx/v1beta1/txs/", 400, { code: 3, message: "tx hash cannot be empty", details: [] }],
  [
    "/chain/staking/v1beta1/delegators//redelegations",
    400,
    { code: 3, message: "empty address string is not allowed", details: [] },
  ],
  ["/chain/staking/v1beta1/delegations/", 400, { code: 3, message: "delegator address cannot be empty", details: [] }],
  ["/chain/staking/v1beta1/validators/", 400, { code: 3, message: "validator address cannot be empty", details: [] }],
];

test("a REST route's empty path parameter answers as upstream's handler does for an empty field", async () => {
  const wrong: string[] = [];
  for (const [path, status, body] of CASES) {
    const response = await fetch(`${base}${path}`);
    const text = await response.text();
    try {
      assert.equal(response.status, status);
      assert.deepEqual(JSON.parse(text), body);
    } catch {
      wrong.push(`${path}: ${response.status} ${text}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test("redelegations by source validator alone need no delegator", async () => {
  const response = await fetch(
    `${base}/chain/staking/v1beta1/delegators//redelegations?src_validator_addr=${ADDRESS.replace("chain1", "chainvaloper1")}`,
  );
  assert.notEqual(response.status, 500, await response.text());
});
