// Staking decimals in upstream's binary form, checked with the tools Cosmos clients use: a MsgCreateValidator
// built and signed by CosmJS (commission rates as 10^18-scaled integers, as cosmjs-types carries LegacyDec) lands,
// and cosmjs-types decodes every staking query response — over ABCI query and over gRPC — to upstream's values.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fromBech32, toBech32 } from "@cosmjs/encoding";
import { DirectSecp256k1HdWallet, Registry } from "@cosmjs/proto-signing";
import { SigningStargateClient } from "@cosmjs/stargate";
import { Comet38Client } from "@cosmjs/tendermint-rpc";
import { credentials, makeGenericClientConstructor } from "@grpc/grpc-js";
import { BaseAccount } from "cosmjs-types/cosmos/auth/v1beta1/auth";
import { QueryAccountRequest, QueryAccountResponse } from "cosmjs-types/cosmos/auth/v1beta1/query";
import { PubKey as Ed25519PubKey } from "cosmjs-types/cosmos/crypto/ed25519/keys";
import * as q from "cosmjs-types/cosmos/staking/v1beta1/query";
import { MsgCreateValidator } from "cosmjs-types/cosmos/staking/v1beta1/tx";
import { TxRaw } from "cosmjs-types/cosmos/tx/v1beta1/tx";
import {
  type InProcessNode,
  prepareTestChainHome,
  startInProcessNode,
  TEST_MNEMONICS,
  TEST_VALIDATOR_BOND,
  type TestChainHome,
} from "../../src/testing/test-chain.ts";

const SCALE = 10n ** 18n;
const BOND = 5_000_000n;

/** A cosmjs-types codec pair for one query. */
interface QueryCodec<Req, Res> {
  request: { encode(r: Req): { finish(): Uint8Array } };
  response: { decode(b: Uint8Array): Res };
}

describe("staking decimals with CosmJS and cosmjs-types", { timeout: 180_000 }, () => {
  let dir: string;
  let home: TestChainHome;
  let node: InProcessNode;
  let comet: Comet38Client;
  let alice: string;
  let aliceValoper: string;
  let genesisValoper: string;

  async function abci<Req, Res>(method: string, codec: QueryCodec<Req, Res>, request: Req): Promise<Res> {
    const answer = await comet.abciQuery({
      path: `/chain.staking.v1beta1.Query/${method}`,
      data: codec.request.encode(request).finish(),
    });
    assert.equal(answer.code, 0, `${method}: ${answer.log}`);
    return codec.response.decode(answer.value);
  }

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "chaind-dec-"));
    home = await prepareTestChainHome({ home: dir });
    node = await startInProcessNode(dir, home.chainId);
    // Height 2: the block store has height 1 a moment before the app has committed it (queries answer then).
    await node.waitForHeight(2n);
    comet = await Comet38Client.connect(node.node.replace("tcp://", "http://"));
    genesisValoper = home.validatorOperator;
  });

  after(async () => {
    comet?.disconnect();
    await node?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("accepts a MsgCreateValidator built and signed by CosmJS", async () => {
    const wallet = await DirectSecp256k1HdWallet.fromMnemonic(TEST_MNEMONICS.alice, { prefix: "chain" });
    [{ address: alice }] = await wallet.getAccounts();
    aliceValoper = toBech32("chainvaloper", fromBech32(alice, 90).data);
    const account = await comet.abciQuery({
      path: "/chain.auth.v1beta1.Query/Account",
      data: QueryAccountRequest.encode({ address: alice }).finish(),
    });
    const base = BaseAccount.decode(QueryAccountResponse.decode(account.value).account?.value ?? new Uint8Array());
    const signer = await SigningStargateClient.offline(wallet, {
      registry: new Registry([["/chain.staking.v1beta1.MsgCreateValidator", MsgCreateValidator]]),
    });
    const msg = MsgCreateValidator.fromPartial({
      description: { moniker: "cosmjs-validator" },
      // cosmjs-types carries LegacyDec as upstream's binary form: the value times 10^18.
      commission: {
        rate: (SCALE / 20n).toString(), // 0.05
        maxRate: (SCALE / 5n).toString(), // 0.2
        maxChangeRate: (SCALE / 100n).toString(), // 0.01
      },
      minSelfDelegation: "1",
      delegatorAddress: "",
      validatorAddress: aliceValoper,
      pubkey: {
        typeUrl: "/chain.crypto.ed25519.PubKey",
        value: Ed25519PubKey.encode({ key: randomBytes(32) }).finish(),
      },
      value: { denom: "stake", amount: BOND.toString() },
    });
    const signed = await signer.sign(
      alice,
      [{ typeUrl: "/chain.staking.v1beta1.MsgCreateValidator", value: msg }],
      { amount: [], gas: "400000" },
      "",
      { accountNumber: base.accountNumber, sequence: Number(base.sequence), chainId: home.chainId },
    );
    const result = await comet.broadcastTxCommit({ tx: TxRaw.encode(signed).finish() });
    assert.equal(result.checkTx.code, 0, result.checkTx.log);
    assert.equal(result.txResult?.code, 0, result.txResult?.log);
  });

  it("cosmjs-types decodes every staking query response to upstream's values", async () => {
    assert.ok(aliceValoper, "the previous test created the validator");
    const shares = (BOND * SCALE).toString(); // a new validator issues 1 share per token, as LegacyDec
    const validator = (
      await abci(
        "Validator",
        { request: q.QueryValidatorRequest, response: q.QueryValidatorResponse },
        {
          validatorAddr: aliceValoper,
        },
      )
    ).validator;
    assert.ok(validator);
    assert.equal(validator.description.moniker, "cosmjs-validator");
    assert.deepEqual(validator.commission.commissionRates, {
      rate: "50000000000000000",
      maxRate: "200000000000000000",
      maxChangeRate: "10000000000000000",
    });
    assert.equal(validator.delegatorShares, shares);
    assert.equal(validator.tokens, BOND.toString()); // an Int: plain integer text on both sides
    assert.equal(validator.minSelfDelegation, "1");

    const all = await abci(
      "Validators",
      { request: q.QueryValidatorsRequest, response: q.QueryValidatorsResponse },
      {
        status: "",
      },
    );
    const genesis = all.validators.find((v) => v.operatorAddress === genesisValoper);
    assert.ok(genesis);
    assert.equal(genesis.commission.commissionRates.rate, "100000000000000000"); // 0.1 from the gentx
    assert.equal(genesis.delegatorShares, (TEST_VALIDATOR_BOND * SCALE).toString());
    assert.ok(all.validators.some((v) => v.operatorAddress === aliceValoper));

    const byValidator = await abci(
      "ValidatorDelegations",
      { request: q.QueryValidatorDelegationsRequest, response: q.QueryValidatorDelegationsResponse },
      { validatorAddr: aliceValoper },
    );
    assert.equal(byValidator.delegationResponses.length, 1);
    assert.equal(byValidator.delegationResponses[0].delegation.shares, shares);
    assert.deepEqual(byValidator.delegationResponses[0].balance, { denom: "stake", amount: BOND.toString() });

    const one = await abci(
      "Delegation",
      { request: q.QueryDelegationRequest, response: q.QueryDelegationResponse },
      {
        delegatorAddr: alice,
        validatorAddr: aliceValoper,
      },
    );
    assert.equal(one.delegationResponse?.delegation.shares, shares);

    const mine = await abci(
      "DelegatorDelegations",
      { request: q.QueryDelegatorDelegationsRequest, response: q.QueryDelegatorDelegationsResponse },
      { delegatorAddr: alice },
    );
    assert.deepEqual(
      mine.delegationResponses.map((d) => d.delegation.shares),
      [shares],
    );

    const theirs = await abci(
      "DelegatorValidators",
      { request: q.QueryDelegatorValidatorsRequest, response: q.QueryDelegatorValidatorsResponse },
      { delegatorAddr: alice },
    );
    assert.deepEqual(
      theirs.validators.map((v) => [v.operatorAddress, v.delegatorShares, v.commission.commissionRates.rate]),
      [[aliceValoper, shares, "50000000000000000"]],
    );
    const single = await abci(
      "DelegatorValidator",
      { request: q.QueryDelegatorValidatorRequest, response: q.QueryDelegatorValidatorResponse },
      { delegatorAddr: alice, validatorAddr: aliceValoper },
    );
    assert.equal(single.validator.delegatorShares, shares);

    const params = await abci("Params", { request: q.QueryParamsRequest, response: q.QueryParamsResponse }, {});
    assert.equal(params.params.minCommissionRate, "0"); // upstream's default 0, as the scaled integer
    assert.equal(params.params.bondDenom, "stake");

    const pool = await abci("Pool", { request: q.QueryPoolRequest, response: q.QueryPoolResponse }, {});
    assert.equal(pool.pool.bondedTokens, (TEST_VALIDATOR_BOND + BOND).toString());

    for (const [method, request, response, body] of [
      [
        "ValidatorUnbondingDelegations",
        q.QueryValidatorUnbondingDelegationsRequest,
        q.QueryValidatorUnbondingDelegationsResponse,
        { validatorAddr: aliceValoper },
      ],
      [
        "DelegatorUnbondingDelegations",
        q.QueryDelegatorUnbondingDelegationsRequest,
        q.QueryDelegatorUnbondingDelegationsResponse,
        { delegatorAddr: alice },
      ],
      ["Redelegations", q.QueryRedelegationsRequest, q.QueryRedelegationsResponse, { delegatorAddr: alice }],
    ] as const) {
      // Nothing unbonds or redelegates on this chain; the answers must still decode.
      const answer = await comet.abciQuery({
        path: `/chain.staking.v1beta1.Query/${method}`,
        data: (request as { encode(r: unknown): { finish(): Uint8Array }; fromPartial(p: unknown): unknown })
          .encode((request as { fromPartial(p: unknown): unknown }).fromPartial(body))
          .finish(),
      });
      assert.equal(answer.code, 0, `${method}: ${answer.log}`);
      (response as { decode(b: Uint8Array): unknown }).decode(answer.value);
    }
  });

  it("gRPC answers carry the same binary form", async () => {
    assert.ok(node.grpcAddr);
    const Client = makeGenericClientConstructor({}, "chain.staking.v1beta1.Query");
    const client = new Client(node.grpcAddr, credentials.createInsecure());
    try {
      const bytes: Buffer = await new Promise((resolve, reject) => {
        client.makeUnaryRequest(
          "/chain.staking.v1beta1.Query/Validator",
          (b: Buffer) => b,
          (b: Buffer) => b,
          Buffer.from(q.QueryValidatorRequest.encode({ validatorAddr: aliceValoper }).finish()),
          (err: Error | null, value?: Buffer) => (err || value === undefined ? reject(err) : resolve(value)),
        );
      });
      const validator = q.QueryValidatorResponse.decode(bytes).validator;
      assert.equal(validator.commission.commissionRates.rate, "50000000000000000");
      assert.equal(validator.delegatorShares, (BOND * SCALE).toString());
    } finally {
      client.close();
    }
  });
});
