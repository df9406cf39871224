// The bank module through the app: sends and their events, mint/burn permissions, blocked
// recipients, send-enabled flags, authority checks, queries with pagination, genesis export.
import assert from "node:assert/strict";
import { describe, it, test } from "node:test";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { abciInfo } from "../../app/errors.ts";
import { addressToBech32, moduleAddress } from "../../crypto/index.ts";
import {
  QueryAllBalancesRequestSchema,
  QueryAllBalancesResponseSchema,
  QueryBalanceRequestSchema,
  QueryBalanceResponseSchema,
  QuerySupplyOfRequestSchema,
  QuerySupplyOfResponseSchema,
  QueryTotalSupplyRequestSchema,
  QueryTotalSupplyResponseSchema,
} from "../../gen/chain/bank/v1beta1/query_pb.js";
import { MsgMultiSendSchema, MsgSendSchema, MsgSetSendEnabledSchema } from "../../gen/chain/bank/v1beta1/tx_pb.js";
import { RequestQuerySchema } from "../../gen/tendermint/abci/types_pb.js";
import { createTestApp, packAny, signTx, type TestApp, testKey } from "../../testing/app.ts";
import { balanceKey, denomOwnerKey } from "./keys.ts";

const alice = testKey("alice");
const bob = testKey("bob");
const GOV = addressToBech32(moduleAddress("gov"));

async function setup(): Promise<TestApp> {
  const t = await createTestApp({
    balances: {
      [alice.bech32]: [
        { denom: "atom", amount: 50n },
        { denom: "stake", amount: 1_000_000n },
        { denom: "zeta", amount: 7n },
      ],
    },
    moduleAccountPermissions: {
      fee_collector: [],
      gov: ["burner"],
      minter_mod: ["minter"],
      bonded_tokens_pool: ["burner", "staking"],
      not_bonded_tokens_pool: ["burner", "staking"],
    },
  });
  await t.nextBlock();
  return t;
}

function sendTx(t: TestApp, sequence: bigint, to: string, amount: { denom: string; amount: string }[]) {
  return signTx({
    key: alice,
    chainId: t.chainId,
    accountNumber: 0n,
    sequence,
    messages: [packAny(MsgSendSchema, create(MsgSendSchema, { fromAddress: alice.bech32, toAddress: to, amount }))],
  });
}

async function grpc<T>(t: TestApp, path: string, data: Uint8Array, decode: (b: Uint8Array) => T): Promise<T> {
  const r = await t.app.query(create(RequestQuerySchema, { path, data }));
  assert.equal(r.code, 0, r.log);
  return decode(r.value);
}

describe("bank", () => {
  it("creates the recipient's account on first receipt and emits upstream's events", async () => {
    const t = await setup();
    const block = await t.nextBlock([sendTx(t, 0n, bob.bech32, [{ denom: "stake", amount: "10" }])]);
    assert.equal(block.txResults[0].code, 0, block.txResults[0].log);
    const ctx = await t.app.createQueryContext();
    const account = await t.accountKeeper.getAccount(ctx, bob.address);
    assert.ok(account !== undefined);
    assert.ok(account.accountNumber > 0n);
    const types = block.txResults[0].events
      .filter((e) => e.attributes.some((a) => a.key === "msg_index"))
      .map((e) => e.type);
    assert.deepEqual(types, ["message", "coin_spent", "coin_received", "transfer", "message"]);
  });

  it("refuses invalid amounts and addresses, blocked recipients and disabled denoms", async () => {
    const t = await setup();
    const zero = await t.nextBlock([sendTx(t, 0n, bob.bech32, [{ denom: "stake", amount: "0" }])]);
    assert.equal(zero.txResults[0].log, "failed to execute message; message index: 0: 0stake: invalid coins");
    assert.equal(zero.txResults[0].code, 10);
    const badTo = await t.nextBlock([sendTx(t, 1n, "chain1notanaddress", [{ denom: "stake", amount: "1" }])]);
    assert.equal(badTo.txResults[0].code, 7);
    assert.match(
      badTo.txResults[0].log,
      /^failed to execute message; message index: 0: invalid to address: .*: invalid address$/,
    );
    const feeCollector = addressToBech32(moduleAddress("fee_collector"));
    const blocked = await t.nextBlock([sendTx(t, 2n, feeCollector, [{ denom: "stake", amount: "1" }])]);
    assert.equal(blocked.txResults[0].code, 4);
    assert.equal(
      blocked.txResults[0].log,
      `failed to execute message; message index: 0: ${feeCollector} is not allowed to receive funds: unauthorized`,
    );
    const toGov = await t.nextBlock([sendTx(t, 3n, GOV, [{ denom: "stake", amount: "1" }])]);
    assert.equal(toGov.txResults[0].code, 0, "gov may receive funds");

    // Disable "zeta" as the authority would (through the Msg handler, as a passed proposal does).
    const ctx = t.app.newContext(t.app.store.branch(), "finalize", (await t.app.createQueryContext()).header);
    const route = t.app.msgRouter.route("/chain.bank.v1beta1.MsgSetSendEnabled")!;
    await assert.rejects(
      route.handler(
        create(MsgSetSendEnabledSchema, { authority: alice.bech32, sendEnabled: [{ denom: "zeta", enabled: false }] }),
        ctx,
      ),
      (err: Error) => {
        assert.equal(
          err.message,
          `invalid authority; expected ${GOV}, got ${alice.bech32}: expected authority account as only signer for proposal message`,
        );
        assert.deepEqual([abciInfo(err).codespace, abciInfo(err).code], ["gov", 13]);
        return true;
      },
    );
    await route.handler(
      create(MsgSetSendEnabledSchema, { authority: GOV, sendEnabled: [{ denom: "zeta", enabled: false }] }),
      ctx,
    );
    await assert.rejects(t.bankKeeper.assertSendEnabled(ctx, [{ denom: "zeta", amount: 1n }]), {
      message: "zeta transfers are currently disabled: send transactions are disabled",
    });
    assert.equal(await t.bankKeeper.isSendEnabledDenom(ctx, "stake"), true);
  });

  it("mints and burns only with the permission, moving the supply", async () => {
    const t = await setup();
    const ctx = t.app.newContext(t.app.store.branch(), "finalize", (await t.app.createQueryContext()).header);
    await t.bankKeeper.mintCoins(ctx, "minter_mod", [{ denom: "stake", amount: 500n }]);
    assert.equal((await t.bankKeeper.getSupply(ctx, "stake")).amount, 1_000_500n);
    await assert.rejects(t.bankKeeper.mintCoins(ctx, "gov", [{ denom: "stake", amount: 1n }]), {
      message: "module account gov does not have permissions to mint tokens: unauthorized",
    });
    await t.bankKeeper.sendCoinsFromModuleToModule(ctx, "minter_mod", "gov", [{ denom: "stake", amount: 100n }]);
    await t.bankKeeper.burnCoins(ctx, "gov", [{ denom: "stake", amount: 40n }]);
    assert.equal((await t.bankKeeper.getSupply(ctx, "stake")).amount, 1_000_460n);
    assert.equal((await t.bankKeeper.getBalance(ctx, moduleAddress("gov"), "stake")).amount, 60n);
    await assert.rejects(
      t.bankKeeper.burnCoins(ctx, "minter_mod", [{ denom: "stake", amount: 1n }]),
      /does not have permissions to burn tokens/,
    );
    await assert.rejects(
      t.bankKeeper.sendCoinsFromModuleToAccount(ctx, "gov", moduleAddress("fee_collector"), [
        { denom: "stake", amount: 1n },
      ]),
      /is not allowed to receive funds: unauthorized$/,
    );
  });

  it("runs a multi-send with one input and checks the sums", async () => {
    const t = await setup();
    const carol = testKey("carol");
    const msg = create(MsgMultiSendSchema, {
      inputs: [{ address: alice.bech32, coins: [{ denom: "stake", amount: "30" }] }],
      outputs: [
        { address: bob.bech32, coins: [{ denom: "stake", amount: "10" }] },
        { address: carol.bech32, coins: [{ denom: "stake", amount: "20" }] },
      ],
    });
    const ctx = t.app.newContext(t.app.store.branch(), "finalize", (await t.app.createQueryContext()).header);
    const route = t.app.msgRouter.route("/chain.bank.v1beta1.MsgMultiSend")!;
    await route.handler(msg, ctx);
    assert.equal((await t.bankKeeper.getBalance(ctx, carol.address, "stake")).amount, 20n);
    msg.outputs[1].coins[0].amount = "21";
    await assert.rejects(route.handler(msg, ctx), { message: "sum inputs != sum outputs" });
    // Upstream's Coins.IsAllPositive is false for no coins at all: an empty input or output is invalid.
    msg.outputs[1].coins = [];
    await assert.rejects(route.handler(msg, ctx), { message: ": invalid coins" });
  });

  it("refuses a send of no coins at all, as upstream (IsAllPositive is false for empty coins)", async () => {
    const t = await setup();
    const block = await t.nextBlock([sendTx(t, 0n, bob.bech32, [])]);
    assert.equal(block.txResults[0].code, 10);
    assert.equal(block.txResults[0].log, "failed to execute message; message index: 0: : invalid coins");
  });

  it("answers balance, paginated balance, supply queries; a missing balance is zero", async () => {
    const t = await setup();
    const balance = await grpc(
      t,
      "/chain.bank.v1beta1.Query/Balance",
      toBinary(QueryBalanceRequestSchema, create(QueryBalanceRequestSchema, { address: bob.bech32, denom: "stake" })),
      (b) => fromBinary(QueryBalanceResponseSchema, b),
    );
    assert.deepEqual([balance.balance?.denom, balance.balance?.amount], ["stake", "0"]);
    const page1 = await grpc(
      t,
      "/chain.bank.v1beta1.Query/AllBalances",
      toBinary(
        QueryAllBalancesRequestSchema,
        create(QueryAllBalancesRequestSchema, { address: alice.bech32, pagination: { limit: 2n, countTotal: true } }),
      ),
      (b) => fromBinary(QueryAllBalancesResponseSchema, b),
    );
    assert.deepEqual(
      page1.balances.map((c) => c.denom),
      ["atom", "stake"],
    );
    assert.equal(page1.pagination?.total, 3n);
    assert.equal(new TextDecoder().decode(page1.pagination?.nextKey), "zeta");
    const page2 = await grpc(
      t,
      "/chain.bank.v1beta1.Query/AllBalances",
      toBinary(
        QueryAllBalancesRequestSchema,
        create(QueryAllBalancesRequestSchema, {
          address: alice.bech32,
          pagination: { key: page1.pagination?.nextKey, limit: 2n },
        }),
      ),
      (b) => fromBinary(QueryAllBalancesResponseSchema, b),
    );
    assert.deepEqual(
      page2.balances.map((c) => `${c.amount}${c.denom}`),
      ["7zeta"],
    );
    assert.equal(page2.pagination?.nextKey.length, 0);
    const both = await t.app.query(
      create(RequestQuerySchema, {
        path: "/chain.bank.v1beta1.Query/AllBalances",
        data: toBinary(
          QueryAllBalancesRequestSchema,
          create(QueryAllBalancesRequestSchema, {
            address: alice.bech32,
            pagination: { key: new Uint8Array([1]), offset: 1n },
          }),
        ),
      }),
    );
    assert.equal(both.code, 18);
    assert.match(both.log, /either offset or key is expected, got both/);
    const supply = await grpc(
      t,
      "/chain.bank.v1beta1.Query/TotalSupply",
      toBinary(QueryTotalSupplyRequestSchema, create(QueryTotalSupplyRequestSchema, {})),
      (b) => fromBinary(QueryTotalSupplyResponseSchema, b),
    );
    assert.deepEqual(
      supply.supply.map((c) => `${c.amount}${c.denom}`),
      ["50atom", "1000000stake", "7zeta"],
    );
    const of = await grpc(
      t,
      "/chain.bank.v1beta1.Query/SupplyOf",
      toBinary(QuerySupplyOfRequestSchema, create(QuerySupplyOfRequestSchema, { denom: "atom" })),
      (b) => fromBinary(QuerySupplyOfResponseSchema, b),
    );
    assert.equal(of.amount?.amount, "50");
    const badAddress = await t.app.query(
      create(RequestQuerySchema, {
        path: "/chain.bank.v1beta1.Query/AllBalances",
        data: toBinary(QueryAllBalancesRequestSchema, create(QueryAllBalancesRequestSchema, { address: "cosmos1xyz" })),
      }),
    );
    assert.equal(badAddress.code, 18);
    assert.match(badAddress.log, /^rpc error: code = InvalidArgument desc = invalid address: /);
  });

  it("exports genesis that validates and reflects the state", async () => {
    const t = await setup();
    await t.nextBlock([sendTx(t, 0n, bob.bech32, [{ denom: "atom", amount: "5" }])]);
    const state = await t.app.exportAppState();
    t.moduleManager.validateGenesis(state);
    const bank = state.bank as {
      balances: { address: string; coins: { denom: string; amount: string }[] }[];
      supply: unknown[];
    };
    const bobs = bank.balances.find((b) => b.address === bob.bech32);
    assert.deepEqual(bobs?.coins, [{ denom: "atom", amount: "5" }]);
    assert.equal(bank.supply.length, 3);
  });
});

test("balance and denom-owner keys: the same bytes for ASCII and non-ASCII denoms as the generic layout", () => {
  const address = new Uint8Array(Array.from({ length: 20 }, (_, i) => i + 1));
  for (const denom of ["stake", "ibc/27394FB092D2ECCD56123C74F36E4C1F926001CEADA9CA97EA622B25F41E5EB2", "ünï", ""]) {
    const utf8Denom = new TextEncoder().encode(denom);
    assert.deepEqual(
      Buffer.from(balanceKey(address, denom)),
      Buffer.concat([Buffer.of(0x02, address.length), address, utf8Denom]),
    );
    assert.deepEqual(
      Buffer.from(denomOwnerKey(denom, address)),
      Buffer.concat([Buffer.of(0x03), utf8Denom, Buffer.of(0), address]),
    );
    assert.equal(
      balanceKey(address, denom).buffer.byteLength,
      balanceKey(address, denom).length,
      "own exact-size array",
    );
  }
});
