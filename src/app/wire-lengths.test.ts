import assert from "node:assert/strict";
import { test } from "node:test";
import { create, type DescMessage, fromBinary, toBinary } from "@bufbuild/protobuf";
import { file_chain_bank_v1beta1_tx, MsgSendSchema } from "../gen/chain/bank/v1beta1/tx_pb.js";
import { AuthInfoSchema, TxBodySchema, TxRawSchema } from "../gen/chain/tx/v1beta1/tx_pb.js";
import { packAny, signTx, testKey } from "../testing/app.ts";
import { ErrTxDecode } from "./errors.ts";
import { MsgRouter } from "./router.ts";
import { decodeTx } from "./tx-decode.ts";
import { buildTypeRegistry } from "./type-registry.ts";
import { passesInPlace, rejectTruncatedLengthsByWalk } from "./wire-lengths.ts";

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

test("whatever the in-place check passes the walk passes too, over thousands of damaged signed txs", () => {
  const key = testKey("wire-lengths-fuzz");
  const bytes = signTx({
    key,
    chainId: "fuzz-1",
    accountNumber: 7n,
    sequence: 3n,
    fee: [{ denom: "stake", amount: 200n }],
    memo: "a memo",
    messages: [
      packAny(
        MsgSendSchema,
        create(MsgSendSchema, {
          fromAddress: key.bech32,
          toAddress: key.bech32,
          amount: [{ denom: "stake", amount: "1" }],
        }),
      ),
    ],
  });
  const raw = fromBinary(TxRawSchema, bytes);
  const parts: [DescMessage, Uint8Array, string][] = [
    [TxBodySchema, raw.bodyBytes, "TxBody"],
    [AuthInfoSchema, raw.authInfoBytes, "AuthInfo"],
  ];
  // An honest tx takes the in-place path.
  for (const [desc, part] of parts) assert.equal(passesInPlace(desc, part, registry), true, desc.typeName);
  // A deterministic stream of damage: flipped bytes, cut tails, bytes set to 0x80 or 0xff.
  let seed = 12345;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed;
  };
  let passed = 0;
  for (let round = 0; round < 4000; round++) {
    const [desc, part, what] = parts[round % 2] as [DescMessage, Uint8Array, string];
    let damaged = part.slice();
    for (let n = 1 + (next() % 3); n > 0; n--) {
      const at = next() % damaged.length;
      const kind = next() % 4;
      if (kind === 0) damaged[at] = next() % 256;
      else if (kind === 1) damaged = damaged.subarray(0, at);
      else damaged[at] = kind === 2 ? 0x80 : 0xff;
      if (damaged.length === 0) break;
    }
    if (!passesInPlace(desc, damaged, registry)) continue;
    passed++;
    assert.doesNotThrow(() => rejectTruncatedLengthsByWalk(desc, damaged, what, registry), `round ${round}`);
  }
  assert.ok(passed > 100, `only ${passed} damaged txs passed the in-place check`);
});
