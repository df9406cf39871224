// The auth module: module account addresses, genesis numbering and validation, queries, params.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create, fromBinary, type JsonValue, toBinary } from "@bufbuild/protobuf";
import { addressToBech32, moduleAddress } from "../../crypto/index.ts";
import { BaseAccountSchema, ModuleAccountSchema } from "../../gen/chain/auth/v1beta1/auth_pb.js";
import {
  AddressBytesToStringRequestSchema,
  QueryAccountAddressByIDRequestSchema,
  QueryAccountAddressByIDResponseSchema,
  QueryAccountRequestSchema,
  QueryAccountResponseSchema,
  QueryAccountsRequestSchema,
  QueryAccountsResponseSchema,
  QueryModuleAccountByNameRequestSchema,
  QueryModuleAccountByNameResponseSchema,
} from "../../gen/chain/auth/v1beta1/query_pb.js";
import { MsgUpdateParamsSchema } from "../../gen/chain/auth/v1beta1/tx_pb.js";
import { RequestQuerySchema } from "../../gen/tendermint/abci/types_pb.js";
import { createTestApp, genesisFor, testKey } from "../../testing/app.ts";
import { decodeAccount } from "./account.ts";
import { validateAuthGenesis } from "./genesis.ts";
import { defaultAuthParams } from "./params.ts";

const [alice, bob, carol] = ["alice", "bob", "carol"].map(testKey);

describe("auth", () => {
  it("derives module account addresses as upstream", () => {
    assert.equal(addressToBech32(moduleAddress("gov")), "chain10d07y265gmmuvt4z0w9aw880jnsr700j0q8wax");
    assert.equal(addressToBech32(moduleAddress("fee_collector")), "chain17xpfvakm2amg962yls6f84z3kell8c5l9mhtqg");
    assert.equal(addressToBech32(moduleAddress("bonded_tokens_pool")), "chain1fl48vsnmsdzcv85q5d2q4z5ajdha8yu3qeayjz");
    assert.equal(
      addressToBech32(moduleAddress("not_bonded_tokens_pool")),
      "chain1tygms3xhhs3yv487phx3dw4a95jn7t7l5ep4yk",
    );
  });

  it("renumbers duplicate genesis account numbers to the lowest free ones and creates the fee collector next", async () => {
    const appState = genesisFor({ [alice.bech32]: [], [bob.bech32]: [], [carol.bech32]: [] });
    const accounts = (appState.auth as { accounts: { account_number: string }[] }).accounts;
    accounts[0].account_number = "0";
    accounts[1].account_number = "0";
    accounts[2].account_number = "5";
    const t = await createTestApp({ appState });
    await t.nextBlock();
    const ctx = await t.app.createQueryContext();
    const number = async (address: Uint8Array) => (await t.accountKeeper.getAccount(ctx, address))?.accountNumber;
    assert.equal(await number(alice.address), 0n);
    assert.equal(await number(bob.address), 1n);
    assert.equal(await number(carol.address), 5n);
    assert.equal(await number(moduleAddress("fee_collector")), 6n);
  });

  it("answers InvalidArgument, not an internal error, for address bytes of impossible length", async () => {
    const t = await createTestApp();
    await t.nextBlock();
    const ctx = await t.app.createQueryContext();
    const request = toBinary(
      AddressBytesToStringRequestSchema,
      create(AddressBytesToStringRequestSchema, { addressBytes: new Uint8Array(300) }),
    );
    await assert.rejects(
      t.app.queryRouter.queryBinary("/chain.auth.v1beta1.Query/AddressBytesToString", request, ctx),
      (err: Error & { grpcCode?: number }) => {
        assert.match(err.message, /invalid address bytes/);
        assert.equal(err.grpcCode, 3);
        return true;
      },
    );
  });

  it("validates genesis with upstream's messages", () => {
    const appState = genesisFor({ [alice.bech32]: [] });
    const auth = appState.auth as { accounts: JsonValue[] };
    auth.accounts.push(auth.accounts[0]);
    assert.throws(() => validateAuthGenesis(appState.auth), {
      message: `duplicate account found in genesis state; address: ${alice.bech32}`,
    });
    const zero = genesisFor({});
    (zero.auth as { params: Record<string, string> }).params.tx_sig_limit = "0";
    assert.throws(() => validateAuthGenesis(zero.auth), { message: "invalid tx signature limit: 0" });
    assert.throws(
      () => validateAuthGenesis({ accounts: [{ "@type": "/chain.auth.v1beta1.BaseAccount", address: "cosmos1abc" }] }),
      /cannot read auth genesis account 0: /,
    );
  });

  it("answers Account, Accounts, ModuleAccountByName and AccountAddressByID", async () => {
    const t = await createTestApp({ balances: { [alice.bech32]: [{ denom: "stake", amount: 1n }] } });
    await t.nextBlock();
    const call = async (path: string, data: Uint8Array) => {
      const r = await t.app.query(create(RequestQuerySchema, { path, data }));
      assert.equal(r.code, 0, r.log);
      return r.value;
    };
    const account = fromBinary(
      QueryAccountResponseSchema,
      await call(
        "/chain.auth.v1beta1.Query/Account",
        toBinary(QueryAccountRequestSchema, create(QueryAccountRequestSchema, { address: alice.bech32 })),
      ),
    ).account!;
    assert.equal(account.typeUrl, "/chain.auth.v1beta1.BaseAccount");
    const base = fromBinary(BaseAccountSchema, account.value);
    assert.deepEqual([base.address, base.accountNumber, base.sequence], [alice.bech32, 0n, 0n]);

    const gov = fromBinary(
      QueryModuleAccountByNameResponseSchema,
      await call(
        "/chain.auth.v1beta1.Query/ModuleAccountByName",
        toBinary(QueryModuleAccountByNameRequestSchema, create(QueryModuleAccountByNameRequestSchema, { name: "gov" })),
      ),
    ).account!;
    const moduleAccount = fromBinary(ModuleAccountSchema, gov.value);
    assert.deepEqual([moduleAccount.name, moduleAccount.permissions], ["gov", ["burner"]]);
    assert.equal(moduleAccount.baseAccount?.address, "chain10d07y265gmmuvt4z0w9aw880jnsr700j0q8wax");

    const byId = fromBinary(
      QueryAccountAddressByIDResponseSchema,
      await call(
        "/chain.auth.v1beta1.Query/AccountAddressByID",
        toBinary(QueryAccountAddressByIDRequestSchema, create(QueryAccountAddressByIDRequestSchema, { accountId: 0n })),
      ),
    );
    assert.equal(byId.accountAddress, alice.bech32);

    const all = fromBinary(
      QueryAccountsResponseSchema,
      await call(
        "/chain.auth.v1beta1.Query/Accounts",
        toBinary(QueryAccountsRequestSchema, create(QueryAccountsRequestSchema, {})),
      ),
    );
    assert.equal(all.accounts.length, 2, "alice and the fee collector");
    assert.equal(all.pagination?.total, 2n);

    const unknownModule = await t.app.query(
      create(RequestQuerySchema, {
        path: "/chain.auth.v1beta1.Query/ModuleAccountByName",
        data: toBinary(
          QueryModuleAccountByNameRequestSchema,
          create(QueryModuleAccountByNameRequestSchema, { name: "nope" }),
        ),
      }),
    );
    assert.equal(unknownModule.code, 22);
    assert.equal(unknownModule.log, "rpc error: code = NotFound desc = account nope not found: key not found");
  });

  it("updates params only for the authority", async () => {
    const t = await createTestApp();
    await t.nextBlock();
    const ctx = t.app.newContext(t.app.store.branch(), "finalize", (await t.app.createQueryContext()).header);
    const route = t.app.msgRouter.route("/chain.auth.v1beta1.MsgUpdateParams")!;
    const params = { ...defaultAuthParams(), maxMemoCharacters: 512n };
    await assert.rejects(route.handler(create(MsgUpdateParamsSchema, { authority: alice.bech32, params }), ctx), {
      message: `invalid authority; expected chain10d07y265gmmuvt4z0w9aw880jnsr700j0q8wax, got ${alice.bech32}: expected authority account as only signer for proposal message`,
    });
    await route.handler(
      create(MsgUpdateParamsSchema, { authority: "chain10d07y265gmmuvt4z0w9aw880jnsr700j0q8wax", params }),
      ctx,
    );
    assert.equal((await t.accountKeeper.getParams(ctx)).maxMemoCharacters, 512n);
    await assert.rejects(
      route.handler(
        create(MsgUpdateParamsSchema, {
          authority: "chain10d07y265gmmuvt4z0w9aw880jnsr700j0q8wax",
          params: { ...params, txSigLimit: 0n },
        }),
        ctx,
      ),
      { message: "invalid tx signature limit: 0: invalid request" },
    );
  });

  it("an account read back after setAccount is exactly what decoding its stored bytes gives", async () => {
    const t = await createTestApp();
    await t.nextBlock();
    const ctx = t.app.newContext(t.app.store.branch(), "finalize", (await t.app.createQueryContext()).header);
    const records = [
      { address: alice.address, pubKey: undefined, accountNumber: 7n, sequence: 0n },
      {
        address: alice.address,
        pubKey: { algorithm: "secp256k1" as const, key: alice.publicKey },
        accountNumber: 7n,
        sequence: 2n ** 63n,
      },
      {
        address: moduleAddress("fee_collector"),
        pubKey: undefined,
        accountNumber: 1n,
        sequence: 0n,
        module: { name: "fee_collector", permissions: ["burner", "minter"] },
      },
    ];
    for (const record of records) {
      t.accountKeeper.setAccount(ctx, record);
      const stored = await ctx.kvStore("acc").get(new Uint8Array([0x01, ...record.address]));
      assert.ok(stored !== undefined);
      const read = await t.accountKeeper.getAccount(ctx, record.address);
      assert.deepEqual(read, decodeAccount(stored, record.address));
      assert.ok(Object.isFrozen(read), "records handed out are frozen");
    }
  });
});
