// Tx decoding under fuzz: every broadcast tx (RPC broadcast_tx_*, gRPC/REST BroadcastTx, CheckTx from peers) goes
// through the node's decoder (src/app/tx-decode.ts) before anything else looks at it, and `chaind tx decode` runs the
// client's (src/client/tx/decode.ts) on whatever the user pastes. Properties: the node's decoder refuses only with sdk
// error 2 (`tx parse error`) and never because it crashed on the way (no TypeError behind the error); the client's
// refuses with TxClientError; what the node accepts is consistent; lengths declared in the bytes never make either
// decoder allocate what the input does not hold.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { create, type DescMessage, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import { type Any, AnySchema } from "@bufbuild/protobuf/wkt";
import fc from "fast-check";
import { accountBech32 } from "../../src/app/address-cache.ts";
import { ChainError, ErrTxDecode } from "../../src/app/errors.ts";
import { MsgRouter } from "../../src/app/router.ts";
import { type DecodedTx, decodeTx } from "../../src/app/tx-decode.ts";
import { buildTypeRegistry } from "../../src/app/type-registry.ts";
import { unpackTx as clientDecodeTx } from "../../src/client/tx/decode.ts";
import { TxClientError } from "../../src/client/tx/errors.ts";
import { file_chain_bank_v1beta1_tx, MsgSendSchema } from "../../src/gen/chain/bank/v1beta1/tx_pb.js";
import { PubKeySchema as Secp256k1PubKeySchema } from "../../src/gen/chain/crypto/secp256k1/keys_pb.js";
import { file_chain_gov_v1_tx, MsgSubmitProposalSchema } from "../../src/gen/chain/gov/v1/tx_pb.js";
import { AuthInfoSchema, TxBodySchema, TxRawSchema } from "../../src/gen/chain/tx/v1beta1/tx_pb.js";
import { file_chain_upgrade_v1beta1_tx } from "../../src/gen/chain/upgrade/v1beta1/tx_pb.js";
import { mutatedBytes } from "./mutations.ts";
import { assertOwnError } from "./own-errors.ts";
import { fuzzParameters } from "./settings.ts";

// The real registry (the modules' Msg files); no Msg service is registered, which the decoder reports as no route.
const registry = buildTypeRegistry([file_chain_bank_v1beta1_tx, file_chain_gov_v1_tx, file_chain_upgrade_v1beta1_tx]);
const router = new MsgRouter();

/** Decodes with both decoders; each must succeed or refuse with its own error. Returns the node's result. */
function decodeBoth(bytes: Uint8Array): DecodedTx | undefined {
  try {
    clientDecodeTx(bytes);
  } catch (error) {
    assertOwnError(error, [TxClientError], bytes);
  }
  try {
    return decodeTx(bytes, registry, router);
  } catch (error) {
    assertOwnError(error, [ChainError], bytes, { noBugCause: true });
    assert.ok(ErrTxDecode.is(error), `not a tx parse error: ${(error as Error).message}`);
    return undefined;
  }
}

/** An Any as clients send it: the type URL is `/` and the full type name. */
function packed<Desc extends DescMessage>(schema: Desc, fields: MessageInitShape<Desc>): Any {
  return create(AnySchema, { typeUrl: `/${schema.typeName}`, value: toBinary(schema, create(schema, fields)) });
}

/** What an accepted tx must satisfy. */
function checkAccepted(tx: DecodedTx): void {
  assert.ok(tx.msgs.length === tx.body.messages.length);
  for (const msg of tx.msgs) assert.ok(registry.getMessage(msg.typeUrl.slice(1)) !== undefined, msg.typeUrl);
  const hex = tx.signers.map((signer) => Buffer.from(signer).toString("hex"));
  assert.equal(new Set(hex).size, hex.length, "signers are unique");
  assert.equal(tx.signerAddresses.length, tx.signers.length);
  assert.equal(tx.pubKeys.length, tx.authInfo.signerInfos.length);
}

const address = fc.oneof(
  { weight: 8, arbitrary: fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => accountBech32(bytes)) },
  fc.constantFrom("", "chain1", "cosmos1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq"),
  fc.string({ maxLength: 50 }),
);
const coin = fc.record({
  denom: fc.oneof(fc.constantFrom("stake", "ustake", "ibc/ABC"), fc.string({ maxLength: 10 })),
  amount: fc.oneof(
    { weight: 4, arbitrary: fc.bigInt({ min: 0n, max: 2n ** 260n }).map(String) },
    fc.string({ maxLength: 10 }),
  ),
});

/** An Any: a MsgSend, a proposal nesting further Anys, or a random type URL and value. */
const { any } = fc.letrec<{ any: Any }>((tie) => ({
  any: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc
      .record({ fromAddress: address, toAddress: address, amount: fc.array(coin, { maxLength: 2 }) })
      .map((fields) => packed(MsgSendSchema, fields)),
    fc
      .record({
        typeUrl: fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom("/", "/chain.bank.v1beta1.MsgSend")),
        value: fc.uint8Array({ maxLength: 40 }),
      })
      .map((fields) => create(AnySchema, fields)),
    fc
      .record({
        messages: fc.array(tie("any"), { maxLength: 2 }),
        proposer: address,
        title: fc.string({ maxLength: 8 }),
      })
      .map((fields) => packed(MsgSubmitProposalSchema, fields)),
  ),
}));

const publicKey = fc.oneof(
  fc.uint8Array({ minLength: 33, maxLength: 33 }).map((key) => packed(Secp256k1PubKeySchema, { key })),
  fc
    .record({
      typeUrl: fc.constantFrom("/cosmos.crypto.secp256k1.PubKey", "/cosmos.crypto.ed25519.PubKey", "/x"),
      value: fc.uint8Array({ maxLength: 40 }),
    })
    .map((fields) => create(AnySchema, fields)),
);

/** A protobuf field the schema does not declare: a non-critical one (bit 11 set) or a critical one. */
const unknownField = fc
  .tuple(fc.constantFrom(1025, 1031, 2047, 99, 15), fc.uint8Array({ maxLength: 6 }))
  .map(
    ([number, value]) =>
      new Uint8Array([...varint(BigInt((number << 3) | 2)), ...varint(BigInt(value.length)), ...value]),
  );

const bodyBytes = fc
  .tuple(
    fc.record({
      messages: fc.array(any, { maxLength: 3 }),
      memo: fc.string({ maxLength: 20 }),
      timeoutHeight: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
    }),
    fc.array(unknownField, { maxLength: 2 }),
  )
  .map(([fields, extra]) => concat(toBinary(TxBodySchema, create(TxBodySchema, fields)), ...extra));

const authInfoBytes = fc
  .record({
    fee: fc.record({
      amount: fc.array(coin, { maxLength: 2 }),
      gasLimit: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
      payer: fc.oneof(fc.constant(""), address),
      granter: fc.constant(""),
    }),
    signerInfos: fc.array(fc.record({ publicKey, sequence: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }) }), {
      maxLength: 2,
    }),
  })
  .map((fields) => toBinary(AuthInfoSchema, create(AuthInfoSchema, fields)));

/** A TxRaw built from the parts above (so the decoder gets past its first checks), whole or damaged. */
const txBytes = fc
  .record({
    bodyBytes,
    authInfoBytes,
    signatures: fc.array(fc.uint8Array({ minLength: 0, maxLength: 70 }), { maxLength: 2 }),
  })
  .map((fields) => toBinary(TxRawSchema, create(TxRawSchema, fields)));

describe("tx decoding", () => {
  test("random bytes are refused with a tx parse error (node) and TxClientError (client)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const tx = decodeBoth(bytes);
        if (tx !== undefined) checkAccepted(tx);
      }),
      fuzzParameters(500),
    );
  });

  test("structured txs, whole or damaged, are decoded consistently or refused with the decoders' own errors", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          txBytes,
          txBytes.chain((bytes) => mutatedBytes(bytes)),
        ),
        (bytes) => {
          const tx = decodeBoth(bytes);
          if (tx !== undefined) checkAccepted(tx);
        },
      ),
      fuzzParameters(300),
    );
  });

  test("Anys nested far deeper than the decoder allows are refused, not a stack overflow", () => {
    let message = packed(MsgSendSchema, {});
    for (let depth = 0; depth < 200; depth++) {
      message = packed(MsgSubmitProposalSchema, { messages: [message] });
    }
    const bytes = toBinary(
      TxRawSchema,
      create(TxRawSchema, { bodyBytes: toBinary(TxBodySchema, create(TxBodySchema, { messages: [message] })) }),
    );
    assert.equal(decodeBoth(bytes), undefined);
  });
});

/** A TxRaw field (1 body, 2 auth info, 3 signature) whose declared length is `length`, followed by `tail`. */
function field(number: number, length: bigint, tail: Uint8Array): Uint8Array {
  return concat(varint(BigInt((number << 3) | 2)), varint(length), tail);
}

describe("tx decoding: declared lengths", () => {
  // Lengths from 2^31 up to 2^64-1 (a ten-byte varint), where the bytes that follow hold almost nothing.
  const hugeLength = fc.oneof(
    fc.constantFrom(2n ** 31n - 1n, 2n ** 31n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 53n, 2n ** 63n, 2n ** 64n - 1n),
    fc.bigInt({ min: 2n ** 20n, max: 2n ** 64n - 1n }),
  );

  test("a length beyond the input is refused without allocating it, at any level of the tx", () => {
    fc.assert(
      fc.property(
        hugeLength,
        fc.constantFrom(1, 2, 3),
        fc.constantFrom("raw", "body", "any", "authInfo"),
        fc.uint8Array({ maxLength: 16 }),
        (length, number, level, tail) => {
          let bytes: Uint8Array;
          if (level === "raw") bytes = field(number, length, tail);
          else {
            // A well-formed outer TxRaw around an inner message whose own length is the lie.
            // "any": the body's first message is an Any whose value (field 2) declares the length.
            const anyValue = field(2, length, tail);
            const inner = level === "any" ? field(1, BigInt(anyValue.length), anyValue) : field(1, length, tail);
            const body = level === "authInfo" ? new Uint8Array() : inner;
            const authInfo = level === "authInfo" ? inner : new Uint8Array();
            bytes = toBinary(TxRawSchema, create(TxRawSchema, { bodyBytes: body, authInfoBytes: authInfo }));
          }
          const before = process.memoryUsage().arrayBuffers;
          assert.equal(decodeBoth(bytes), undefined);
          const grown = process.memoryUsage().arrayBuffers - before;
          assert.ok(grown < 16 * 1024 * 1024, `array buffers grew by ${grown} bytes for ${bytes.length} input bytes`);
        },
      ),
      fuzzParameters(200),
    );
  });
});

/** The unsigned varint of any 64-bit value (the project's encoder stops at 2^53). */
function varint(value: bigint): Uint8Array {
  const out: number[] = [];
  let rest = value;
  while (rest >= 0x80n) {
    out.push(Number(rest & 0x7fn) | 0x80);
    rest >>= 7n;
  }
  out.push(Number(rest));
  return Uint8Array.from(out);
}

function concat(...parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}
