import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { toProtoJson } from "../../app/proto-json.ts";
import { txFromTxRaw } from "../../client/tx/tx-raw.ts";
import { addressToBech32 } from "../../crypto/index.ts";
import { BaseAccountSchema } from "../../gen/chain/auth/v1beta1/auth_pb.js";
import { Query as AuthQuery } from "../../gen/chain/auth/v1beta1/query_pb.js";
import { Query } from "../../gen/chain/staking/v1beta1/query_pb.js";
import { BondStatus, HistoricalInfoSchema } from "../../gen/chain/staking/v1beta1/staking_pb.js";
import {
  MsgCreateValidatorSchema,
  MsgDelegateSchema,
  MsgUndelegateSchema,
  MsgUpdateParamsSchema,
} from "../../gen/chain/staking/v1beta1/tx_pb.js";
import { TxSchema } from "../../gen/chain/tx/v1beta1/tx_pb.js";
import { HeaderSchema } from "../../gen/tendermint/types/types_pb.js";
import { packAny, signTx } from "../../testing/app.ts";
import { consensusKeyOf, createStakingTestChain, createValidatorMsg, key } from "../../testing/staking.ts";
import { historicalInfoKey } from "./keys.ts";
import { ed25519PubKeyAny } from "./validator.ts";

const val1 = key("staking-val-1");
const val2 = key("staking-val-2");
const alice = key("staking-alice");

function delegateMsg(from: typeof alice, to: typeof val1, amount: bigint) {
  return packAny(
    MsgDelegateSchema,
    create(MsgDelegateSchema, {
      delegatorAddress: from.bech32,
      validatorAddress: addressToBech32(to.address, "val"),
      amount: { denom: "stake", amount: amount.toString() },
    }),
  );
}

async function chainWithOneValidator() {
  return createStakingTestChain({
    accounts: [
      { key: val1, stake: 100_000_000n },
      { key: val2, stake: 100_000_000n },
      { key: alice, stake: 100_000_000n },
    ],
    validators: [{ key: val1, selfDelegation: 10_000_000n, moniker: "one" }],
  });
}

describe("staking genesis from gentxs", () => {
  test("the gentx validator is bonded with power tokens/10^6 and returned to the engine", async () => {
    const chain = await chainWithOneValidator();
    assert.deepEqual(chain.genesisValidators, [{ pubKey: consensusKeyOf(val1), power: 10n }]);
    await chain.nextBlock();

    const { validator } = await chain.query(Query.method.validator, {
      validatorAddr: addressToBech32(val1.address, "val"),
    });
    assert.equal(validator?.status, BondStatus.BONDED);
    assert.equal(validator?.tokens, "10000000");
    assert.equal(validator?.delegatorShares, "10000000.000000000000000000");
    assert.equal(validator?.description?.moniker, "one");

    const { pool } = await chain.query(Query.method.pool, {});
    assert.deepEqual(
      { bonded: pool?.bondedTokens, notBonded: pool?.notBondedTokens },
      { bonded: "10000000", notBonded: "0" },
    );

    // The gentx went through the normal deliver path: the signer's sequence is 1 afterwards.
    const { account } = await chain.query(AuthQuery.method.account, { address: val1.bech32 });
    assert.equal(fromBinary(BaseAccountSchema, account!.value).sequence, 1n);
    const { bankKeeper } = chain;
    const ctx = await chain.app.createQueryContext();
    assert.equal((await bankKeeper.getBalance(ctx, val1.address, "stake")).amount, 90_000_000n);
  });

  test("a gentx below the power reduction gives no validator set (power 0 is not bonded)", async () => {
    const chain = await createStakingTestChain({
      accounts: [{ key: val1, stake: 100_000_000n }],
      validators: [{ key: val1, selfDelegation: 999_999n }],
    });
    assert.deepEqual(chain.genesisValidators, []);
    await chain.nextBlock();
    const { validator } = await chain.query(Query.method.validator, {
      validatorAddr: addressToBech32(val1.address, "val"),
    });
    assert.equal(validator?.status, BondStatus.UNBONDED);
  });

  test("export then import reproduces validators, delegations and the validator set", async () => {
    const chain = await chainWithOneValidator();
    await chain.deliver(alice, [delegateMsg(alice, val1, 3_000_000n)]);
    const exported = await chain.app.exportAppState();
    const staking = exported.staking as Record<string, unknown>;
    assert.equal(staking.exported, true);
    assert.equal(staking.last_total_power, "13");
    assert.equal((staking.delegations as unknown[]).length, 2);

    const { stakingGenesisFromJson, validateStakingGenesis } = await import("./genesis.ts");
    const parsed = stakingGenesisFromJson(exported.staking);
    validateStakingGenesis(parsed);
    assert.equal(parsed.validators[0].tokens, "13000000");
    assert.deepEqual(
      parsed.lastValidatorPowers.map((p) => [p.address, p.power]),
      [[addressToBech32(val1.address, "val"), 13n]],
    );

    // A new chain started from the export has the same validator set without any gentx.
    const restarted = await createStakingTestChain({
      accounts: [],
      validators: [],
      fullAppState: { ...exported, genutil: { gen_txs: [] } },
    });
    assert.deepEqual(restarted.genesisValidators, [{ pubKey: consensusKeyOf(val1), power: 13n }]);
    await restarted.nextBlock();
    const { delegationResponse } = await restarted.query(Query.method.delegation, {
      delegatorAddr: alice.bech32,
      validatorAddr: addressToBech32(val1.address, "val"),
    });
    assert.equal(delegationResponse?.balance?.amount, "3000000");
  });
});

describe("MsgDelegate", () => {
  test("a delegation raises the validator's power and yields one validator-set update", async () => {
    const chain = await chainWithOneValidator();
    await chain.nextBlock();
    const { result, block } = await chain.deliver(alice, [delegateMsg(alice, val1, 5_000_000n)]);
    assert.equal(result.code, 0, result.log);
    assert.equal(block.validatorUpdates.length, 1);
    assert.equal(block.validatorUpdates[0].power, 15n);
    assert.deepEqual(block.validatorUpdates[0].pubKey?.sum.value, consensusKeyOf(val1));

    const delegate = result.events.find((e) => e.type === "delegate");
    assert.deepEqual(
      delegate?.attributes.filter((a) => a.key !== "msg_index").map((a) => [a.key, a.value]),
      [
        ["validator", addressToBech32(val1.address, "val")],
        ["delegator", alice.bech32],
        ["amount", "5000000stake"],
        ["new_shares", "5000000.000000000000000000"],
      ],
    );

    // Unchanged powers produce no update.
    const quiet = await chain.nextBlock();
    assert.deepEqual(quiet.validatorUpdates, []);

    const { delegationResponse } = await chain.query(Query.method.delegation, {
      delegatorAddr: alice.bech32,
      validatorAddr: addressToBech32(val1.address, "val"),
    });
    assert.equal(delegationResponse?.delegation?.shares, "5000000.000000000000000000");
    assert.deepEqual(delegationResponse?.balance?.amount, "5000000");

    const { delegationResponses } = await chain.query(Query.method.validatorDelegations, {
      validatorAddr: addressToBech32(val1.address, "val"),
    });
    assert.deepEqual(
      delegationResponses.map((d) => d.delegation?.delegatorAddress).sort(),
      [alice.bech32, val1.bech32].sort(),
    );
    const { validators } = await chain.query(Query.method.delegatorValidators, { delegatorAddr: alice.bech32 });
    assert.deepEqual(
      validators.map((v) => v.operatorAddress),
      [addressToBech32(val1.address, "val")],
    );
    const { pool } = await chain.query(Query.method.pool, {});
    assert.equal(pool?.bondedTokens, "15000000");
  });

  test("errors: unknown validator, wrong denom, zero amount, insufficient funds", async () => {
    const chain = await chainWithOneValidator();
    const unknown = await chain.deliver(alice, [delegateMsg(alice, val2, 1_000_000n)]);
    assert.equal(unknown.result.codespace, "staking");
    assert.equal(unknown.result.code, 3);
    assert.match(unknown.result.log, /validator does not exist$/);

    const wrongDenom = packAny(
      MsgDelegateSchema,
      create(MsgDelegateSchema, {
        delegatorAddress: alice.bech32,
        validatorAddress: addressToBech32(val1.address, "val"),
        amount: { denom: "atom", amount: "5" },
      }),
    );
    const denom = await chain.deliver(alice, [wrongDenom]);
    assert.equal(denom.result.code, 18);
    assert.match(denom.result.log, /invalid coin denomination: got atom, expected stake: invalid request$/);

    const zero = await chain.deliver(alice, [delegateMsg(alice, val1, 0n)]);
    assert.equal(zero.result.code, 18);
    assert.match(zero.result.log, /invalid delegation amount: invalid request$/);

    const tooMuch = await chain.deliver(alice, [delegateMsg(alice, val1, 500_000_000n)]);
    assert.equal(tooMuch.result.codespace, "sdk");
    assert.equal(tooMuch.result.code, 5);
  });

  test("undelegation and redelegation are refused as not supported", async () => {
    const chain = await chainWithOneValidator();
    const undelegate = packAny(
      MsgUndelegateSchema,
      create(MsgUndelegateSchema, {
        delegatorAddress: val1.bech32,
        validatorAddress: addressToBech32(val1.address, "val"),
        amount: { denom: "stake", amount: "1" },
      }),
    );
    const { result } = await chain.deliver(val1, [undelegate]);
    assert.equal(result.codespace, "sdk");
    assert.equal(result.code, 37);
    assert.match(result.log, /MsgUndelegate: .*not supported: feature not supported$/);
  });
});

describe("MsgCreateValidator", () => {
  test("a new validator joins the set in the same block's EndBlock", async () => {
    const chain = await chainWithOneValidator();
    const { result, block } = await chain.deliver(val2, [createValidatorMsg(val2, 2_000_000n, "two")]);
    assert.equal(result.code, 0, result.log);
    assert.deepEqual(
      block.validatorUpdates.map((u) => [u.pubKey?.sum.value, u.power]),
      [[consensusKeyOf(val2), 2n]],
    );
    const created = result.events.find((e) => e.type === "create_validator");
    assert.deepEqual(
      created?.attributes.filter((a) => a.key !== "msg_index").map((a) => [a.key, a.value]),
      [
        ["validator", addressToBech32(val2.address, "val")],
        ["amount", "2000000stake"],
      ],
    );
    const bonded = await chain.query(Query.method.validators, { status: "BOND_STATUS_BONDED" });
    assert.equal(bonded.validators.length, 2);
    const unbonded = await chain.query(Query.method.validators, { status: "BOND_STATUS_UNBONDED" });
    assert.equal(unbonded.validators.length, 0);
    await assert.rejects(chain.query(Query.method.validators, { status: "bonded" }), /invalid validator status bonded/);
  });

  test("validation errors carry upstream codes and texts", async () => {
    const chain = await chainWithOneValidator();
    const base = {
      description: { moniker: "x" },
      commission: { rate: "0.1", maxRate: "0.2", maxChangeRate: "0.01" },
      minSelfDelegation: "1",
      validatorAddress: addressToBech32(val2.address, "val"),
      pubkey: ed25519PubKeyAny(consensusKeyOf(val2)),
      value: { denom: "stake", amount: "2000000" },
    };
    const cases: { change: Record<string, unknown>; codespace: string; code: number; log: RegExp }[] = [
      {
        change: { commission: { rate: "0.3", maxRate: "0.2", maxChangeRate: "0.01" } },
        codespace: "staking",
        code: 11,
        log: /^failed to execute message; message index: 0: commission cannot be more than the max rate$/,
      },
      {
        change: { commission: { rate: "0.1", maxRate: "1.5", maxChangeRate: "0.01" } },
        codespace: "staking",
        code: 10,
        log: /commission cannot be more than 100%$/,
      },
      { change: { minSelfDelegation: "3000000" }, codespace: "staking", code: 16, log: /minimum self delegation$/ },
      {
        change: { minSelfDelegation: "0" },
        codespace: "sdk",
        code: 18,
        log: /minimum self delegation must be a positive integer: invalid request$/,
      },
      { change: { description: {} }, codespace: "sdk", code: 18, log: /empty description: invalid request$/ },
      {
        change: { value: { denom: "atom", amount: "2000000" } },
        codespace: "sdk",
        code: 18,
        log: /invalid coin denomination: got atom, expected stake: invalid request$/,
      },
      {
        change: { pubkey: ed25519PubKeyAny(consensusKeyOf(val1)) },
        codespace: "staking",
        code: 5,
        log: /validator already exist for this pubkey; must use new validator pubkey$/,
      },
      {
        change: {
          pubkey: { typeUrl: "/chain.crypto.secp256k1.PubKey", value: new Uint8Array([10, 33, ...val2.publicKey]) },
        },
        codespace: "staking",
        code: 6,
        log: /got: secp256k1, expected: \[ed25519\]: validator pubkey type is not supported$/,
      },
      {
        change: { description: { moniker: "m".repeat(71) } },
        codespace: "sdk",
        code: 18,
        log: /invalid moniker length; got: 71, max: 70: invalid request$/,
      },
    ];
    for (const c of cases) {
      const msg = packAny(MsgCreateValidatorSchema, create(MsgCreateValidatorSchema, { ...base, ...c.change }));
      const { result } = await chain.deliver(val2, [msg]);
      assert.equal(`${result.codespace}/${result.code}`, `${c.codespace}/${c.code}`, result.log);
      assert.match(result.log, c.log);
    }
    // The operator already has a validator.
    const { result } = await chain.deliver(val1, [createValidatorMsg(val1, 2_000_000n)]);
    assert.equal(`${result.codespace}/${result.code}`, "staking/4");
    assert.match(result.log, /validator already exist for this operator address/);
  });
});

describe("validator set limits", () => {
  test("with max_validators 1 a stronger validator replaces the bonded one (power 0 update)", async () => {
    const chain = await createStakingTestChain({
      accounts: [
        { key: val1, stake: 100_000_000n },
        { key: val2, stake: 100_000_000n },
      ],
      validators: [
        { key: val1, selfDelegation: 10_000_000n },
        { key: val2, selfDelegation: 5_000_000n },
      ],
      appState: {
        staking: {
          params: {
            unbonding_time: "60s",
            max_validators: 1,
            max_entries: 7,
            historical_entries: 3,
            bond_denom: "stake",
            min_commission_rate: "0.000000000000000000",
          },
        },
      },
    });
    assert.deepEqual(chain.genesisValidators, [{ pubKey: consensusKeyOf(val1), power: 10n }]);
    await chain.nextBlock();
    const { block } = await chain.deliver(val2, [delegateMsg(val2, val2, 20_000_000n)]);
    const updates = block.validatorUpdates.map((u) => [u.pubKey?.sum.value, u.power]);
    assert.deepEqual(updates, [
      [consensusKeyOf(val2), 25n],
      [consensusKeyOf(val1), 0n],
    ]);
    const { validator } = await chain.query(Query.method.validator, {
      validatorAddr: addressToBech32(val1.address, "val"),
    });
    assert.equal(validator?.status, BondStatus.UNBONDING);
    const { pool } = await chain.query(Query.method.pool, {});
    assert.deepEqual([pool?.bondedTokens, pool?.notBondedTokens], ["25000000", "10000000"]);

    // After unbonding_time the old validator is unbonded; historical info keeps only 3 entries.
    await chain.nextBlock(undefined, chain.timeMs() + 61_000);
    await chain.nextBlock();
    const after = await chain.query(Query.method.validator, { validatorAddr: addressToBech32(val1.address, "val") });
    assert.equal(after.validator?.status, BondStatus.UNBONDED);
    const latest = chain.app.lastBlockHeight();
    const { hist } = await chain.query(Query.method.historicalInfo, { height: latest });
    assert.equal(hist?.valset.length, 1);
    // Upstream's non-nullable header fields come back as zero-valued messages, not absent.
    assert.deepEqual([hist?.header?.version?.block, hist?.header?.version?.app], [0n, 0n]);
    assert.equal(hist?.header?.lastBlockId?.partSetHeader?.total, 0);
    await assert.rejects(
      chain.query(Query.method.historicalInfo, { height: latest - 3n }),
      /historical info for height \d+ not found/,
    );
  });
});

describe("historical info", () => {
  test("each block's record is HistoricalInfo's own encoding, before and after the set's records change", async () => {
    const chain = await createStakingTestChain({
      accounts: [
        { key: val1, stake: 100_000_000n },
        { key: val2, stake: 100_000_000n },
      ],
      validators: [
        { key: val1, selfDelegation: 10_000_000n, moniker: "one" },
        { key: val2, selfDelegation: 5_000_000n, moniker: "two" },
      ],
    });
    await chain.nextBlock();
    await chain.nextBlock();
    // val2's record changes (its tokens): the keeper's encoded valset must follow.
    await chain.deliver(val2, [delegateMsg(val2, val2, 20_000_000n)]);
    await chain.nextBlock();
    const ctx = await chain.app.createQueryContext();
    const store = ctx.kvStore(chain.stakingKeeper.storeKey);
    const latest = chain.app.lastBlockHeight();
    const powers: bigint[][] = [];
    for (let height = latest - 3n; height <= latest; height++) {
      const raw = await store.get(historicalInfoKey(height));
      assert.ok(raw !== undefined, `no historical info at ${height}`);
      const info = fromBinary(HistoricalInfoSchema, raw);
      assert.deepEqual(toBinary(HistoricalInfoSchema, info), raw, `the record of height ${height}`);
      // What the keeper wrote before it encoded the record itself: the five header fields and the set, through create.
      const { chainId, time, appHash, proposerAddress } = info.header ?? {};
      const header = create(HeaderSchema, { chainId, height, time, appHash, proposerAddress });
      const expected = toBinary(HistoricalInfoSchema, create(HistoricalInfoSchema, { header, valset: info.valset }));
      assert.deepEqual(raw, expected, `the record of height ${height}, against toBinary`);
      assert.equal(info.header?.height, height);
      powers.push(info.valset.map((v) => BigInt(v.tokens)));
    }
    assert.deepEqual(powers[0], [10_000_000n, 5_000_000n]);
    assert.deepEqual(powers[3], [25_000_000n, 10_000_000n]);
  });
});

describe("MsgUpdateParams", () => {
  test("anyone but the authority is refused with gov's invalid-signer error", async () => {
    const chain = await chainWithOneValidator();
    const msg = packAny(
      MsgUpdateParamsSchema,
      create(MsgUpdateParamsSchema, { authority: alice.bech32, params: { bondDenom: "stake", maxValidators: 5 } }),
    );
    const { result } = await chain.deliver(alice, [msg]);
    assert.equal(`${result.codespace}/${result.code}`, "gov/13");
    assert.match(result.log, /invalid authority; expected chain10d07y265gmmuvt4z0w9aw880jnsr700j0q8wax, got /);
  });
});

describe("bad genesis", () => {
  test("a gentx that fails aborts InitChain naming the gentx and the failure", async () => {
    await assert.rejects(
      createStakingTestChain({
        accounts: [{ key: val1, stake: 1_000_000n }],
        validators: [{ key: val1, selfDelegation: 10_000_000n }],
      }),
      /failed to execute DeliverTx for '\{.*MsgCreateValidator.*\}': .*insufficient funds/,
    );
  });

  test("genesis validation runs each gentx's MsgCreateValidator checks, as upstream's message validator does", async () => {
    const { validateGenTxs } = await import("./genutil.ts");
    const chain = await chainWithOneValidator();
    const registry = chain.app.typeRegistry;
    const genTx = (amount: bigint, moniker: string) =>
      toProtoJson(
        TxSchema,
        txFromTxRaw(
          signTx({
            key: val2,
            messages: [createValidatorMsg(val2, amount, moniker)],
            chainId: chain.chainId,
            accountNumber: 0n,
            sequence: 0n,
          }),
        ),
        registry,
      );
    validateGenTxs([genTx(5_000_000n, "two")], registry);
    assert.throws(
      () => validateGenTxs([genTx(0n, "two")], registry),
      /^GenTxError: invalid gentx 0 \(chainvaloper1\S+\): invalid delegation amount/,
    );
    assert.throws(() => validateGenTxs([genTx(5_000_000n, "")], registry), /invalid gentx 0 .*empty description/);
    // The module's validateGenesis (what `genesis validate` and collect-gentxs run) has the app's registry.
    assert.throws(
      () => chain.moduleManager.validateGenesis({ genutil: { gen_txs: [genTx(0n, "two")] } }),
      /invalid delegation amount/,
    );
  });

  test("validator tokens that do not match the bonded pool's balance are refused", async () => {
    const chain = await chainWithOneValidator();
    await chain.nextBlock();
    const exported = await chain.app.exportAppState();
    const staking = structuredClone(exported.staking) as { validators: { tokens: string }[] };
    staking.validators[0].tokens = "11000000";
    await assert.rejects(
      createStakingTestChain({
        accounts: [],
        validators: [],
        fullAppState: { ...exported, staking, genutil: { gen_txs: [] } },
      }),
      /bonded pool balance is different from bonded coins: 10000000stake <-> 11000000stake/,
    );
  });

  test("genesis validation names the problem", async () => {
    const { validateGenTxs } = await import("./genutil.ts");
    assert.throws(
      () => validateGenTxs([{ body: { messages: [{}, {}] } }]),
      /genesis transactions must be single-message/,
    );
    assert.throws(
      () => validateGenTxs([{ body: { messages: [{ "@type": "/chain.bank.v1beta1.MsgSend" }] } }]),
      /genesis transaction 0 does not contain a MsgCreateValidator/,
    );
    const { stakingGenesisFromJson, validateStakingGenesis } = await import("./genesis.ts");
    assert.throws(
      () => stakingGenesisFromJson({ last_total_power: "x" }),
      /last_total_power must be a non-negative integer string/,
    );
    const genesis = stakingGenesisFromJson({
      params: { bond_denom: "", max_validators: 1, max_entries: 1, unbonding_time: "1s" },
    });
    assert.throws(() => validateStakingGenesis(genesis), /bond denom cannot be blank/);
  });
});
