import assert from "node:assert/strict";
import { test } from "node:test";
import { create, createRegistry, equals, fromJson, toBinary, toJson } from "@bufbuild/protobuf";
import { BaseAccountSchema, file_chain_auth_v1beta1_auth } from "../../src/gen/chain/auth/v1beta1/auth_pb.js";
import { file_chain_crypto_secp256k1_keys, PubKeySchema } from "../../src/gen/chain/crypto/secp256k1/keys_pb.js";
import { file_chain_tx_v1beta1_tx, TxBodySchema } from "../../src/gen/chain/tx/v1beta1/tx_pb.js";
import { cosmosAnyTypeUrls } from "./any-type-url.ts";

const registry = createRegistry(
  file_chain_auth_v1beta1_auth,
  file_chain_crypto_secp256k1_keys,
  file_chain_tx_v1beta1_tx,
);

// A body whose message is an account that itself carries a packed key: an Any inside an Any.
const pubKey = create(PubKeySchema, { key: new Uint8Array(33).fill(2) });
const account = create(BaseAccountSchema, {
  address: "chain1example",
  pubKey: { typeUrl: "/chain.crypto.secp256k1.PubKey", value: toBinary(PubKeySchema, pubKey) },
  accountNumber: 7n,
});
const body = create(TxBodySchema, {
  messages: [{ typeUrl: "/chain.auth.v1beta1.BaseAccount", value: toBinary(BaseAccountSchema, account) }],
  memo: "nested",
});

test("protobuf-es alone turns Cosmos type URLs into type.googleapis.com ones", () => {
  const parsed = fromJson(TxBodySchema, toJson(TxBodySchema, body, { registry }), { registry });
  assert.equal(parsed.messages[0].typeUrl, "type.googleapis.com/chain.auth.v1beta1.BaseAccount");
  assert.notDeepEqual(toBinary(TxBodySchema, parsed), toBinary(TxBodySchema, body));
});

test("cosmosAnyTypeUrls restores the /<name> form at every depth, so the bytes match again", () => {
  const parsed = fromJson(TxBodySchema, toJson(TxBodySchema, body, { registry }), { registry });
  const fixed = cosmosAnyTypeUrls(TxBodySchema, parsed, registry);
  assert.equal(fixed, parsed, "it works in place");
  assert.ok(equals(TxBodySchema, fixed, body));
  assert.deepEqual(toBinary(TxBodySchema, fixed), toBinary(TxBodySchema, body));
});

test("cosmosAnyTypeUrls leaves Anys of unknown types and empty Anys alone", () => {
  const odd = create(TxBodySchema, {
    messages: [
      { typeUrl: "type.googleapis.com/not.Registered", value: new Uint8Array([1, 2]) },
      { typeUrl: "", value: new Uint8Array() },
    ],
  });
  cosmosAnyTypeUrls(TxBodySchema, odd, registry);
  assert.equal(odd.messages[0].typeUrl, "/not.Registered");
  assert.deepEqual(odd.messages[0].value, new Uint8Array([1, 2]));
  assert.equal(odd.messages[1].typeUrl, "");
});
