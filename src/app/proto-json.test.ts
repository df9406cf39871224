// Cosmos-style proto JSON: Any type URLs read back as `/<name>`, nested Anys included, and written
// with proto field names and every field present.
import assert from "node:assert/strict";
import { describe, it, test } from "node:test";
import { create, createRegistry, fromBinary, toBinary } from "@bufbuild/protobuf";
import { BaseAccountSchema } from "../gen/chain/auth/v1beta1/auth_pb.js";
import { QueryAccountResponseSchema } from "../gen/chain/auth/v1beta1/query_pb.js";
import { file_chain_bank_v1beta1_tx, MsgSendSchema } from "../gen/chain/bank/v1beta1/tx_pb.js";
import { file_chain_gov_v1_tx, MsgSubmitProposalSchema } from "../gen/chain/gov/v1/tx_pb.js";
import { TxBodySchema } from "../gen/chain/tx/v1beta1/tx_pb.js";
import { fromProtoJson, toProtoJson } from "./proto-json.ts";
import { buildTypeRegistry } from "./type-registry.ts";

const registry = buildTypeRegistry([file_chain_bank_v1beta1_tx]);

describe("proto JSON", () => {
  it("reads Any type URLs as /<name> and writes them back", () => {
    const json = {
      messages: [
        {
          "@type": "/chain.bank.v1beta1.MsgSend",
          from_address: "chain1a",
          to_address: "chain1b",
          amount: [{ denom: "stake", amount: "10" }],
        },
      ],
      memo: "hi",
    };
    const body = fromProtoJson(TxBodySchema, json, registry);
    assert.equal(body.messages[0].typeUrl, "/chain.bank.v1beta1.MsgSend");
    const out = toProtoJson(TxBodySchema, body, registry) as {
      messages: { "@type": string }[];
      timeout_height: string;
    };
    assert.equal(out.messages[0]["@type"], "/chain.bank.v1beta1.MsgSend");
    assert.equal(out.timeout_height, "0", "defaults are emitted with proto names");
  });

  it("rewrites Anys nested inside Any values", () => {
    const json = {
      account: {
        "@type": "/chain.auth.v1beta1.BaseAccount",
        address: "chain1a",
        pub_key: { "@type": "/chain.crypto.secp256k1.PubKey", key: Buffer.alloc(33, 2).toString("base64") },
        account_number: "3",
        sequence: "1",
      },
    };
    const response = fromProtoJson(QueryAccountResponseSchema, json, registry);
    assert.equal(response.account?.typeUrl, "/chain.auth.v1beta1.BaseAccount");
    const inner = fromBinary(BaseAccountSchema, response.account!.value);
    assert.equal(inner.pubKey?.typeUrl, "/chain.crypto.secp256k1.PubKey");
    assert.equal(inner.accountNumber, 3n);
  });
});

test("toProtoJson writes an Any's @type first, at every depth", () => {
  const registry = createRegistry(file_chain_bank_v1beta1_tx, file_chain_gov_v1_tx);
  const send = create(MsgSendSchema, { fromAddress: "a", toAddress: "b", amount: [] });
  const proposal = create(MsgSubmitProposalSchema, {
    messages: [{ typeUrl: "/chain.bank.v1beta1.MsgSend", value: toBinary(MsgSendSchema, send) }],
  });
  const json = toProtoJson(MsgSubmitProposalSchema, proposal, registry) as { messages: Record<string, unknown>[] };
  assert.equal(Object.keys(json.messages[0])[0], "@type");
  assert.equal(json.messages[0]["@type"], "/chain.bank.v1beta1.MsgSend");
});
