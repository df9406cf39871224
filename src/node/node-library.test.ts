// The node library's pure pieces: genesis edits (accounts, bond denom, dev gov periods), override-flag
// checks, the plain log format, mempool refusals as TxResponses and CometBFT RPC addresses.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { JsonObject } from "@bufbuild/protobuf";
import { ErrMempoolIsFull, ErrTxInMempoolCache, ErrTxTooLarge } from "../app/errors.ts";
import { mempoolRefusal } from "../app/tx-response.ts";
import { parseListenAddress } from "../config/index.ts";
import { bondDenomOf, withBondDenom } from "./app-state.ts";
import { cometRpcAddress } from "./comet-hooks.ts";
import { shortGovPeriods } from "./dev-chain.ts";
import { addGenesisAccount, GenesisAccountError, genesisBalanceOf } from "./genesis-accounts.ts";
import { plainLine } from "./logger.ts";
import { checkOverrides, FlagError } from "./node-settings.ts";

const ALICE = "chain1w52f43q8m4a7e4gsa0er3l6g0wl64hwy6dw8se";
const BOB = "chain1yhq6k9rny7pq8mvu7p7ewjd0c4dm09fa054m89";

function emptyState(): JsonObject {
  return {
    auth: { params: {}, accounts: [] },
    bank: { params: {}, balances: [], supply: [], denom_metadata: [], send_enabled: [] },
    staking: { params: { bond_denom: "stake" } },
    gov: {
      params: {
        min_deposit: [{ denom: "stake", amount: "10" }],
        expedited_min_deposit: [{ denom: "stake", amount: "50" }],
        voting_period: "172800s",
      },
    },
  };
}

describe("addGenesisAccount", () => {
  test("adds a BaseAccount, its balance (sorted by address) and the supply, without changing the input", () => {
    const input = emptyState();
    const one = addGenesisAccount(input, { address: BOB, coins: [{ denom: "stake", amount: 5n }] });
    const two = addGenesisAccount(one, {
      address: ALICE,
      coins: [
        { denom: "atom", amount: 1n },
        { denom: "stake", amount: 7n },
      ],
    });
    assert.deepEqual((input.auth as JsonObject).accounts, []);
    assert.deepEqual((two.auth as JsonObject).accounts, [
      { "@type": "/chain.auth.v1beta1.BaseAccount", address: BOB, pub_key: null, account_number: "0", sequence: "0" },
      { "@type": "/chain.auth.v1beta1.BaseAccount", address: ALICE, pub_key: null, account_number: "0", sequence: "0" },
    ]);
    const bank = two.bank as JsonObject;
    assert.deepEqual(
      (bank.balances as JsonObject[]).map((b) => b.address),
      [BOB, ALICE].sort(),
    );
    assert.deepEqual(bank.supply, [
      { denom: "atom", amount: "1" },
      { denom: "stake", amount: "12" },
    ]);
    assert.deepEqual(genesisBalanceOf(two, ALICE), [
      { denom: "atom", amount: 1n },
      { denom: "stake", amount: 7n },
    ]);
  });

  test("refuses an existing address unless appending, which raises its balance and the supply", () => {
    const state = addGenesisAccount(emptyState(), { address: ALICE, coins: [{ denom: "stake", amount: 5n }] });
    assert.throws(
      () => addGenesisAccount(state, { address: ALICE, coins: [{ denom: "stake", amount: 1n }] }),
      (err: unknown) =>
        err instanceof GenesisAccountError && err.message === `cannot add account at existing address ${ALICE}`,
    );
    const appended = addGenesisAccount(state, {
      address: ALICE,
      coins: [{ denom: "stake", amount: 1n }],
      append: true,
    });
    assert.deepEqual(genesisBalanceOf(appended, ALICE), [{ denom: "stake", amount: 6n }]);
    assert.deepEqual((appended.bank as JsonObject).supply, [{ denom: "stake", amount: "6" }]);
    assert.equal(((appended.auth as JsonObject).accounts as unknown[]).length, 1);
  });

  test("names the part of app_state that has the wrong shape", () => {
    const broken = { ...emptyState(), bank: { balances: "nope" } } as JsonObject;
    assert.throws(
      () => addGenesisAccount(broken, { address: ALICE, coins: [{ denom: "stake", amount: 1n }] }),
      /app_state\.bank\.balances must be a list/,
    );
  });
});

describe("genesis parameters", () => {
  test("--default-denom replaces the bond denom in staking and in gov's deposits", () => {
    const state = withBondDenom(emptyState(), "utoken");
    assert.equal(bondDenomOf(state), "utoken");
    const gov = (state.gov as JsonObject).params as JsonObject;
    assert.deepEqual(gov.min_deposit, [{ denom: "utoken", amount: "10" }]);
    assert.deepEqual(gov.expedited_min_deposit, [{ denom: "utoken", amount: "50" }]);
    assert.equal(bondDenomOf(emptyState()), "stake");
  });

  test("the dev chain shortens the deposit and voting periods", () => {
    const gov = (shortGovPeriods(emptyState()).gov as JsonObject).params as JsonObject;
    assert.equal(gov.voting_period, "20s");
    assert.equal(gov.max_deposit_period, "20s");
    assert.equal(gov.expedited_voting_period, "10s");
  });
});

describe("override flags", () => {
  const refused = (overrides: Parameters<typeof checkOverrides>[0], flag: string, expected: RegExp) =>
    assert.throws(
      () => checkOverrides(overrides),
      (err: unknown) => err instanceof FlagError && err.flag === flag && expected.test(err.message),
    );

  test("each bad value is reported by its flag with what was expected", () => {
    refused({ rpcLaddr: "127.0.0.1:26657" }, "--rpc.laddr", /expected an address with a scheme/);
    refused({ apiAddress: "localhost" }, "--api.address", /"tcp:\/\/<host>:<port>"/);
    refused({ grpcAddress: "tcp://localhost:9090" }, "--grpc.address", /without a scheme/);
    refused({ minimumGasPrices: "cheap" }, "--minimum-gas-prices", /gas prices such as "0\.025stake"/);
    refused({ haltHeight: "-1" }, "--halt-height", /a whole number/);
    refused({ haltTime: "soon" }, "--halt-time", /a whole number/);
  });

  test("good values pass", () => {
    checkOverrides({
      rpcLaddr: "tcp://127.0.0.1:0",
      apiAddress: "unix:///tmp/api.sock",
      grpcAddress: "[::1]:9090",
      minimumGasPrices: "0.025stake,1token",
      haltHeight: "0",
      haltTime: "1700000000",
    });
  });
});

test("plain log lines show time, level, message and fields", () => {
  const line = plainLine(
    `${JSON.stringify({ level: 30, time: Date.UTC(2024, 0, 2, 3, 4, 5, 678), pid: 1, hostname: "h", msg: "committed block", height: 5, hash: "AB" })}\n`,
  );
  assert.equal(line, "03:04:05.678 INF committed block height=5 hash=AB\n");
  assert.equal(
    plainLine(
      `${JSON.stringify({ level: 50, time: 0, msg: "failed", err: { type: "Error", message: "boom here", stack: "…" } })}\n`,
    ),
    '00:00:00.000 ERR failed err="boom here"\n',
  );
  assert.equal(plainLine("not json"), "not json\n");
});

test("mempool refusals become TxResponses with the sdk code, other errors do not", () => {
  const hash = "AB".repeat(32);
  assert.equal(mempoolRefusal(hash, "tx already exists in cache")?.code, ErrTxInMempoolCache.code);
  assert.equal(mempoolRefusal(hash, "mempool is full: number of txs 5000 (max: 5000)")?.code, ErrMempoolIsFull.code);
  assert.equal(mempoolRefusal(hash, "Tx too large. Max size is 1048576, but got 2000000")?.code, ErrTxTooLarge.code);
  assert.equal(mempoolRefusal(hash, "tx already exists in cache")?.codespace, "sdk");
  // Upstream's CheckCometError sets only code, codespace and hash: raw_log stays empty.
  assert.equal(mempoolRefusal(hash, "tx already exists in cache")?.rawLog, "");
  assert.equal(mempoolRefusal(hash, "connection refused"), undefined);
});

test("CometBFT's RPC is dialled on loopback when it listens on every interface", () => {
  const address = (text: string) =>
    cometRpcAddress(parseListenAddress(text) as NonNullable<ReturnType<typeof parseListenAddress>>);
  assert.equal(address("tcp://0.0.0.0:26657"), "tcp://127.0.0.1:26657");
  assert.equal(address("tcp://10.0.0.5:26657"), "tcp://10.0.0.5:26657");
  assert.throws(() => address("unix:///tmp/rpc.sock"), /only tcp:\/\/ addresses/);
});
