// The error registry: wrapping keeps identity and builds upstream's texts; ABCI and gRPC mappings.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  abciInfo,
  ChainError,
  ErrInsufficientFunds,
  ErrKeyNotFound,
  ErrOutOfGas,
  ErrTxDecode,
  ErrWrongSequence,
  GrpcCode,
  grpcCodeName,
  grpcCodeOf,
  grpcError,
  httpStatusForGrpcCode,
  lookupError,
  registerError,
  registeredErrors,
  rootOf,
  wrap,
} from "./errors.ts";

describe("error registry", () => {
  it("has upstream's root numbering", () => {
    const expected: [number, string][] = [
      [2, "tx parse error"],
      [3, "invalid sequence"],
      [4, "unauthorized"],
      [5, "insufficient funds"],
      [6, "unknown request"],
      [7, "invalid address"],
      [8, "invalid pubkey"],
      [9, "unknown address"],
      [10, "invalid coins"],
      [11, "out of gas"],
      [12, "memo too large"],
      [13, "insufficient fee"],
      [14, "maximum number of signatures exceeded"],
      [15, "no signatures supplied"],
      [18, "invalid request"],
      [19, "tx already in mempool"],
      [21, "tx too large"],
      [22, "key not found"],
      [26, "invalid height"],
      [30, "tx timeout height"],
      [32, "incorrect account sequence"],
      [38, "not found"],
      [40, "error in app.toml"],
      [41, "invalid gas limit"],
    ];
    for (const [code, description] of expected)
      assert.equal(lookupError("sdk", code)?.description, description, `sdk ${code}`);
    assert.ok(registeredErrors().length >= 40);
  });

  it("wraps with context and keeps the root's identity", () => {
    const err = ErrWrongSequence.wrap("account sequence mismatch, expected 5, got 4");
    assert.equal(err.message, "account sequence mismatch, expected 5, got 4: incorrect account sequence");
    assert.deepEqual(abciInfo(err), { codespace: "sdk", code: 32, log: err.message });
    const outer = wrap(err, "failed to execute message; message index: 0");
    assert.equal(
      outer.message,
      "failed to execute message; message index: 0: account sequence mismatch, expected 5, got 4: incorrect account sequence",
    );
    assert.equal(rootOf(outer), ErrWrongSequence);
    assert.ok(ErrWrongSequence.is(outer));
    assert.equal(wrap(ErrInsufficientFunds, "x").message, "x: insufficient funds");
    assert.equal(ErrTxDecode.error().message, "tx parse error");
  });

  it("reports unregistered errors as codespace undefined, code 1", () => {
    const plain = wrap(new Error("boom"), "while doing it");
    assert.equal(plain.message, "while doing it: boom");
    assert.deepEqual(abciInfo(plain), { codespace: "undefined", code: 1, log: "while doing it: boom" });
  });

  it("maps to gRPC codes and HTTP statuses", () => {
    assert.equal(grpcCodeOf(ErrKeyNotFound.wrap("x")), GrpcCode.NotFound);
    assert.equal(ErrKeyNotFound.httpStatus, 404);
    assert.equal(grpcCodeOf(grpcError(GrpcCode.InvalidArgument, "bad")), GrpcCode.InvalidArgument);
    assert.equal(grpcCodeOf(new Error("x")), GrpcCode.Unknown);
    assert.equal(httpStatusForGrpcCode(GrpcCode.InvalidArgument), 400);
    assert.equal(httpStatusForGrpcCode(GrpcCode.Internal), 500);
    assert.equal(grpcCodeName(GrpcCode.NotFound), "NotFound");
    const overridden = new ChainError(ErrOutOfGas, "x", { grpcCode: GrpcCode.NotFound });
    assert.equal(overridden.httpStatus, 404);
  });

  it("refuses a second definition of a taken code and reserved codes, accepts an identical one", () => {
    const first = registerError("errtest", 2, "first thing", GrpcCode.NotFound);
    assert.equal(registerError("errtest", 2, "first thing", GrpcCode.NotFound), first);
    assert.throws(
      () => registerError("errtest", 2, "other thing"),
      /already registered in codespace "errtest": "first thing"/,
    );
    assert.throws(() => registerError("errtest", 1, "internal"), /1 is reserved/);
  });
});
