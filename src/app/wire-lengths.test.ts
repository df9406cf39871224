import assert from "node:assert/strict";
import { test } from "node:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { file_chain_bank_v1beta1_tx } from "../gen/chain/bank/v1beta1/tx_pb.js";
import { TxBodySchema, TxRawSchema } from "../gen/chain/tx/v1beta1/tx_pb.js";
import { ErrTxDecode } from "./errors.ts";
import { MsgRouter } from "./router.ts";
import { decodeTx } from "./tx-decode.ts";
import { buildTypeRegistry } from "./type-registry.ts";

const registry = buildTypeRegistry([file_chain_bank_v1beta1_tx]);
const router = new MsgRouter();

// 2^32 as a five-byte varint: protobuf-es alone reads it as 0 (it keeps the low 32 bits of a length).
const LENGTH_2_POW_32 = [0x80, 0x80, 0x80, 0x80, 0x10];

function txRaw(bodyBytes: Uint8Array, authInfoBytes: Uint8Array): Uint8Array {
  return toBinary(TxRawSchema, create(TxRawSchema, { bodyBytes, authInfoBytes }));
}

test("a length of 2^32 inside the auth info, the body or an Any is a tx parse error, not an empty field", () => {
  const msgSend = toBinary(
    TxBodySchema,
    create(TxBodySchema, {
      messages: [{ $typeName: "google.protobuf.Any", typeUrl: "/chain.bank.v1beta1.MsgSend", value: new Uint8Array() }],
    }),
  );
  const cases: [string, Uint8Array, RegExp][] = [
    // AuthInfo.signer_infos (field 1) declaring 2^32 bytes, none following.
    [
      "auth info",
      txRaw(new Uint8Array(), Uint8Array.of(0x0a, ...LENGTH_2_POW_32)),
      /^cannot decode AuthInfo: field 1 of chain\.tx\.v1beta1\.AuthInfo declares more bytes than follow/,
    ],
    // TxBody.memo (field 2).
    [
      "body",
      txRaw(Uint8Array.of(0x12, ...LENGTH_2_POW_32), new Uint8Array()),
      /^cannot decode TxBody: field 2 of chain\.tx\.v1beta1\.TxBody declares/,
    ],
    // A MsgSend inside an Any whose from_address (field 1) declares 2^32 bytes.
    [
      "any",
      txRaw(
        toBinary(
          TxBodySchema,
          create(TxBodySchema, {
            messages: [
              {
                $typeName: "google.protobuf.Any",
                typeUrl: "/chain.bank.v1beta1.MsgSend",
                value: Uint8Array.of(0x0a, ...LENGTH_2_POW_32),
              },
            ],
          }),
        ),
        new Uint8Array(),
      ),
      /^cannot decode TxBody: field 1 of chain\.bank\.v1beta1\.MsgSend declares/,
    ],
  ];
  for (const [where, bytes, pattern] of cases) {
    assert.throws(
      () => decodeTx(bytes, registry, router),
      (err: unknown) =>
        ErrTxDecode.is(err) &&
        pattern.test((err as Error).message) &&
        /unexpected end of input: tx parse error$/.test((err as Error).message),
      where,
    );
  }
  // The same shapes with honest lengths get past the check (the empty MsgSend then fails on its signer, later).
  assert.throws(() => decodeTx(txRaw(msgSend, new Uint8Array()), registry, router), /empty address string/);
  assert.doesNotThrow(() => decodeTx(txRaw(Uint8Array.of(0x12, 0), Uint8Array.of(0x0a, 0)), registry, router));
});
