import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { SignDocSchema } from "../../gen/chain/tx/v1beta1/tx_pb.js";
import { encodeSignDoc } from "./sign-doc.ts";

function reference(bodyBytes: Uint8Array, authInfoBytes: Uint8Array, chainId: string, accountNumber: bigint) {
  return toBinary(SignDocSchema, create(SignDocSchema, { bodyBytes, authInfoBytes, chainId, accountNumber }));
}

test("encodeSignDoc gives the protobuf encoding of SignDoc, empty and zero fields left out", () => {
  const cases: [Uint8Array, Uint8Array, string, bigint][] = [
    [new Uint8Array(), new Uint8Array(), "", 0n],
    [randomBytes(1), new Uint8Array(), "c", 1n],
    [new Uint8Array(), randomBytes(200), "", 127n],
    [randomBytes(127), randomBytes(128), "chaind-1", 128n],
    [randomBytes(20_000), randomBytes(300), "ünïcødé-chain", 2n ** 53n - 1n],
    [randomBytes(90), randomBytes(110), "x".repeat(300), 2n ** 53n],
    [randomBytes(3), randomBytes(4), "testing", 2n ** 64n - 1n],
  ];
  for (const [body, authInfo, chainId, accountNumber] of cases) {
    assert.deepEqual(
      Buffer.from(encodeSignDoc(body, authInfo, chainId, accountNumber)),
      Buffer.from(reference(body, authInfo, chainId, accountNumber)),
      `chain ${chainId.slice(0, 20)}, account ${accountNumber}, body ${body.length} bytes`,
    );
  }
  for (let i = 0; i < 200; i++) {
    const accountNumber = BigInt.asUintN(64, BigInt(`0x${randomBytes(8).toString("hex")}`) >> BigInt(i % 64));
    const body = randomBytes(i * 3);
    const authInfo = randomBytes((i * 7) % 250);
    const chainId = "c".repeat(i % 40);
    assert.deepEqual(
      Buffer.from(encodeSignDoc(body, authInfo, chainId, accountNumber)),
      Buffer.from(reference(body, authInfo, chainId, accountNumber)),
    );
  }
});
