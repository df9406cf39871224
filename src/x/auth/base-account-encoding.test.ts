// The hand-written account encoder gives exactly the general protobuf encoder's bytes.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { toBinary } from "@bufbuild/protobuf";
import { AnySchema } from "@bufbuild/protobuf/wkt";
import { type Account, accountToAny, encodeAccount } from "./account.ts";

test("encodeAccount writes protobuf's bytes for plain accounts of every shape", () => {
  const numbers = [0n, 1n, 127n, 128n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 64n - 1n];
  const keys: Account["pubKey"][] = [
    undefined,
    { algorithm: "secp256k1", key: randomBytes(33) },
    { algorithm: "ed25519", key: randomBytes(32) },
    { algorithm: "secp256k1", key: new Uint8Array(0) },
  ];
  let cases = 0;
  for (const accountNumber of numbers) {
    for (const sequence of numbers) {
      for (const pubKey of keys) {
        for (const address of [randomBytes(20), randomBytes(32)]) {
          const account: Account = { address, pubKey, accountNumber, sequence };
          assert.deepEqual(
            Buffer.from(encodeAccount(account)),
            Buffer.from(toBinary(AnySchema, accountToAny(account))),
          );
          cases++;
        }
      }
    }
  }
  assert.equal(cases, numbers.length * numbers.length * keys.length * 2);
});
