// JSON-RPC []byte params: standard base64 with padding, exactly as /^[A-Za-z0-9+/]*={0,2}$/ with a length that
// is a multiple of 4 (CometBFT's decoder), checked without a regexp over the whole (possibly 100 kB) string.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, test } from "node:test";
import { argsFromJsonRpc } from "./rpc-params.ts";

const SPEC = [{ name: "tx", type: "bytes" as const }];
const REFERENCE = /^[A-Za-z0-9+/]*={0,2}$/;

function decodes(text: string): Uint8Array | undefined {
  try {
    return argsFromJsonRpc(SPEC, { tx: text }).tx as Uint8Array;
  } catch {
    return undefined;
  }
}

describe("bytes params", () => {
  test("take standard base64 of any length and give the bytes back", () => {
    for (const size of [0, 1, 2, 3, 4, 5, 100, 4097, 100_000]) {
      const bytes = new Uint8Array(randomBytes(size));
      assert.deepEqual(decodes(Buffer.from(bytes).toString("base64")), bytes);
    }
  });

  test("refuse URL-safe characters, stray characters, misplaced or missing padding, with the expected form", () => {
    for (const text of [
      "ab-_",
      "AB_=",
      "A B=",
      "QUJD\n",
      "QQ",
      "QQ=",
      "Q=Q=",
      "QQ=A",
      "=QQQ",
      "QUJDRA=",
      "QUJ\u00e9",
    ]) {
      assert.equal(decodes(text), undefined, JSON.stringify(text));
    }
    assert.throws(
      () => argsFromJsonRpc(SPEC, { tx: "not base64!" }),
      (err: { code?: number; data?: string }) =>
        err.code === -32602 &&
        /error converting json params to arguments: tx: expected base64-encoded bytes/.test(err.data ?? ""),
    );
  });

  test("accept exactly what the reference expression accepts (random short strings)", () => {
    const alphabet = "ABCXYZabcxyz0189+/=-_ \n.\u00e9";
    for (let n = 0; n < 50_000; n++) {
      let text = "";
      const length = 4 * Math.floor(Math.random() * 4);
      for (let i = 0; i < length; i++) text += alphabet[Math.floor(Math.random() * alphabet.length)];
      assert.equal(decodes(text) !== undefined, REFERENCE.test(text), JSON.stringify(text));
    }
  });
});
