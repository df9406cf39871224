// The gateway's JSON (as Cosmos SDK v0.50's gateway prints it) and the body reader with Cosmos Any type URLs.
import assert from "node:assert/strict";
import { test } from "node:test";
import { create, createRegistry, type JsonValue, toBinary } from "@bufbuild/protobuf";
import { anyPack, timestampFromMs } from "@bufbuild/protobuf/wkt";
import fc from "fast-check";
import { BaseAccountSchema, file_chain_auth_v1beta1_auth } from "../gen/chain/auth/v1beta1/auth_pb.js";
import { QueryAccountResponseSchema } from "../gen/chain/auth/v1beta1/query_pb.js";
import { QueryAllBalancesResponseSchema } from "../gen/chain/bank/v1beta1/query_pb.js";
import { file_chain_bank_v1beta1_tx, MsgSendSchema } from "../gen/chain/bank/v1beta1/tx_pb.js";
import { GetLatestBlockResponseSchema } from "../gen/chain/base/tendermint/v1beta1/query_pb.js";
import { file_chain_crypto_secp256k1_keys, PubKeySchema } from "../gen/chain/crypto/secp256k1/keys_pb.js";
import { file_chain_tx_v1beta1_tx, TxSchema } from "../gen/chain/tx/v1beta1/tx_pb.js";
import { QueryCurrentPlanResponseSchema } from "../gen/chain/upgrade/v1beta1/query_pb.js";
import { file_chain_upgrade_v1beta1_tx, MsgSoftwareUpgradeSchema } from "../gen/chain/upgrade/v1beta1/tx_pb.js";
import { GatewayJsonError, gatewayJson, gatewayJsonString, messageFromGatewayJson } from "./gateway-json.ts";
import { fromProtoJson, toProtoJson } from "./proto-json.ts";
import { buildTypeRegistry } from "./type-registry.ts";

const registry = createRegistry(
  file_chain_auth_v1beta1_auth,
  file_chain_crypto_secp256k1_keys,
  file_chain_bank_v1beta1_tx,
  file_chain_tx_v1beta1_tx,
  file_chain_upgrade_v1beta1_tx,
);

test("unset messages are null, lists [], 64-bit integers strings, empty bytes null, every field in order", () => {
  assert.equal(
    gatewayJsonString(QueryCurrentPlanResponseSchema, create(QueryCurrentPlanResponseSchema), registry),
    '{"plan":null}',
  );
  const plan = create(QueryCurrentPlanResponseSchema, {
    plan: { name: "v2", height: 130n, time: { seconds: -62135596800n, nanos: 0 } },
  });
  assert.equal(
    gatewayJsonString(QueryCurrentPlanResponseSchema, plan, registry),
    '{"plan":{"name":"v2","time":"0001-01-01T00:00:00Z","height":"130","info":"","upgraded_client_state":null}}',
  );
  const balances = create(QueryAllBalancesResponseSchema, { pagination: { total: 0n } });
  assert.equal(
    gatewayJsonString(QueryAllBalancesResponseSchema, balances, registry),
    '{"balances":[],"pagination":{"next_key":null,"total":"0"}}',
  );
});

test("Any prints its type URL first, then the packed message's fields; nested Anys too", () => {
  const pubKey = create(PubKeySchema, { key: new Uint8Array([1, 2, 3]) });
  const account = create(BaseAccountSchema, {
    address: "chain1xyz",
    pubKey: { typeUrl: "/chain.crypto.secp256k1.PubKey", value: toBinary(PubKeySchema, pubKey) },
    accountNumber: 7n,
  });
  const response = create(QueryAccountResponseSchema, {
    account: { typeUrl: "/chain.auth.v1beta1.BaseAccount", value: toBinary(BaseAccountSchema, account) },
  });
  assert.deepEqual(gatewayJson(QueryAccountResponseSchema, response, registry), {
    account: {
      "@type": "/chain.auth.v1beta1.BaseAccount",
      address: "chain1xyz",
      pub_key: { "@type": "/chain.crypto.secp256k1.PubKey", key: "AQID" },
      account_number: "7",
      sequence: "0",
    },
  });
  const unknown = create(QueryAccountResponseSchema, {
    account: { typeUrl: "/chain.nope.Thing", value: new Uint8Array() },
  });
  assert.throws(() => gatewayJson(QueryAccountResponseSchema, unknown, registry), GatewayJsonError);
});

test("enums by name, well-known types in their JSON form", () => {
  const block = create(GetLatestBlockResponseSchema, {
    block: { header: { time: timestampFromMs(1_700_000_000_123) }, lastCommit: { signatures: [{ blockIdFlag: 2 }] } },
  });
  const json = gatewayJson(GetLatestBlockResponseSchema, block, registry) as Record<
    string,
    Record<string, Record<string, unknown>>
  >;
  assert.equal((json.block.header as Record<string, unknown>).time, "2023-11-14T22:13:20.123Z");
  assert.deepEqual(
    (json.block.last_commit as { signatures: { block_id_flag: string }[] }).signatures[0].block_id_flag,
    "BLOCK_ID_FLAG_COMMIT",
  );
  assert.equal(json.sdk_block, null);
});

test("bodies: both name styles, unknown keys ignored, Any type URLs in the Cosmos form", () => {
  const send = create(MsgSendSchema, {
    fromAddress: "chain1a",
    toAddress: "chain1b",
    amount: [{ denom: "stake", amount: "5" }],
  });
  const tx = messageFromGatewayJson<ReturnType<typeof create<typeof TxSchema>>>(
    TxSchema,
    {
      body: {
        messages: [
          {
            "@type": "/chain.bank.v1beta1.MsgSend",
            from_address: "chain1a",
            toAddress: "chain1b",
            amount: [{ denom: "stake", amount: "5" }],
          },
        ],
        memo: "hi",
        surprise: 1,
      },
      auth_info: { fee: { gas_limit: "200000" } },
    },
    registry,
  );
  assert.equal(tx.body?.memo, "hi");
  assert.equal(tx.body?.messages[0].typeUrl, "/chain.bank.v1beta1.MsgSend");
  assert.deepEqual(tx.body?.messages[0].value, toBinary(MsgSendSchema, send));
  assert.equal(tx.authInfo?.fee?.gasLimit, 200000n);
  const packed = anyPack(MsgSendSchema, send);
  assert.equal(packed.typeUrl, "type.googleapis.com/chain.bank.v1beta1.MsgSend"); // what protobuf-es does by itself
});

test("a tx's JSON reads back to the bytes that were signed: a plan sent without time prints time null", () => {
  // `tx sign` prints the signed tx as this JSON and `tx broadcast` encodes it again: printing an absent time as
  // 0001-01-01T00:00:00Z (as upstream's non-nullable field would) would add a field and break the signature.
  const msg = create(MsgSoftwareUpgradeSchema, { authority: "chain1a", plan: { name: "v2", height: 9n } });
  const tx = create(TxSchema, {
    body: {
      messages: [
        { typeUrl: "/chain.upgrade.v1beta1.MsgSoftwareUpgrade", value: toBinary(MsgSoftwareUpgradeSchema, msg) },
      ],
    },
  });
  const json = gatewayJson(TxSchema, tx, registry);
  const shown = json as { body: { messages: { plan: { time: unknown } }[] } };
  assert.equal(shown.body.messages[0].plan.time, null);
  const again = messageFromGatewayJson<typeof tx>(TxSchema, json, registry);
  assert.deepEqual(toBinary(TxSchema, again), toBinary(TxSchema, tx));
});

test("any string survives printing (no escaping surprises)", () => {
  fc.assert(
    fc.property(fc.string(), (memo) => {
      const tx = create(TxSchema, { body: { memo } });
      return JSON.parse(gatewayJsonString(TxSchema, tx, registry)).body.memo === memo;
    }),
  );
});

test("a tx signed under the /cosmos.crypto.secp256k1.PubKey alias prints and reads back to the same bytes", () => {
  // The node accepts the alias stock signers (CosmJS) write; GetTx, GetTxsEvent, `query tx` and `tx decode` print the
  // stored tx, and `tx broadcast` reads that JSON back: the alias must survive both ways, byte for byte.
  const appRegistry = buildTypeRegistry([file_chain_bank_v1beta1_tx]);
  const key = new Uint8Array(33).fill(2);
  const send = create(MsgSendSchema, {
    fromAddress: "chain1a",
    toAddress: "chain1b",
    amount: [{ denom: "stake", amount: "5" }],
  });
  const tx = create(TxSchema, {
    body: { messages: [{ typeUrl: "/chain.bank.v1beta1.MsgSend", value: toBinary(MsgSendSchema, send) }] },
    authInfo: {
      signerInfos: [
        {
          publicKey: {
            typeUrl: "/cosmos.crypto.secp256k1.PubKey",
            value: toBinary(PubKeySchema, create(PubKeySchema, { key })),
          },
          sequence: 3n,
        },
      ],
    },
  });
  const json = gatewayJson(TxSchema, tx, appRegistry) as { auth_info: { signer_infos: { public_key: unknown }[] } };
  assert.deepEqual(json.auth_info.signer_infos[0].public_key, {
    "@type": "/cosmos.crypto.secp256k1.PubKey",
    key: Buffer.from(key).toString("base64"),
  });
  const again = messageFromGatewayJson<typeof tx>(TxSchema, json as JsonValue, appRegistry);
  assert.deepEqual(toBinary(TxSchema, again), toBinary(TxSchema, tx));
  const viaProtoJson = fromProtoJson(TxSchema, toProtoJson(TxSchema, tx, appRegistry), appRegistry);
  assert.deepEqual(toBinary(TxSchema, viaProtoJson), toBinary(TxSchema, tx));
});
