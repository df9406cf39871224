// The readiness record's encoding (readiness-record.ts): its exact bytes, the round trip for every record, and
// VerifyVoteExtension's rule for every byte string (accept empty, readable or later-version records within the size
// bound; refuse anything else with a ReadinessRecordError, never another exception).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  decodeReadinessRecord,
  encodeReadinessRecord,
  isAcceptableReadinessExtension,
  NOT_READY,
  READINESS_MAX_PLAN_NAME_BYTES,
  READINESS_RECORD_MAX_BYTES,
  ReadinessRecordError,
} from "./readiness-record.ts";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const bytes = (h: string) => new Uint8Array(Buffer.from(h, "hex"));

const record = fc.oneof(
  fc.constant(NOT_READY),
  fc
    .record({
      plan: fc.string({ minLength: 1, maxLength: 80, unit: "grapheme" }),
      binary: fc.boolean(),
      staged: fc.boolean(),
    })
    .filter((r) => (r.binary || r.staged) && new TextEncoder().encode(r.plan).length <= READINESS_MAX_PLAN_NAME_BYTES),
);

describe("readiness record", () => {
  it("has the documented bytes: version, reasons, name length, name", () => {
    assert.equal(hex(encodeReadinessRecord({ plan: "v2", binary: false, staged: true })), "0102027632");
    assert.equal(hex(encodeReadinessRecord({ plan: "v2", binary: true, staged: false })), "0101027632");
    assert.equal(hex(encodeReadinessRecord({ plan: "v2", binary: true, staged: true })), "0103027632");
    assert.equal(hex(encodeReadinessRecord(NOT_READY)), "010000");
  });

  it("reads back every record it writes (property)", () => {
    fc.assert(
      fc.property(record, (r) => {
        assert.deepEqual(decodeReadinessRecord(encodeReadinessRecord(r)), { ...r });
      }),
    );
  });

  it("reads an empty extension, and one of a later version, as no signal", () => {
    assert.deepEqual(decodeReadinessRecord(new Uint8Array(0)), NOT_READY);
    assert.deepEqual(decodeReadinessRecord(bytes("02ffff")), NOT_READY);
    assert.equal(isAcceptableReadinessExtension(new Uint8Array(0)), true);
    assert.equal(isAcceptableReadinessExtension(bytes("07")), true);
  });

  it("refuses malformed records with a message saying what was wrong", () => {
    const cases: [string, RegExp][] = [
      ["00", /version 0: expected version 1 or later/],
      ["01", /of 1 bytes: expected at least 3/],
      ["0102", /of 2 bytes: expected at least 3/],
      ["01020376", /names a plan of 3 bytes but carries 1/],
      ["010202763200", /names a plan of 2 bytes but carries 3/],
      ["0104027632", /unknown reason bits 4/],
      ["0100027632", /without a reason, or a reason without a plan/],
      ["010100", /without a reason, or a reason without a plan/],
      ["010102c328", /not UTF-8/],
    ];
    for (const [input, message] of cases) {
      assert.throws(() => decodeReadinessRecord(bytes(input)), { name: "ReadinessRecordError", message }, input);
      assert.equal(isAcceptableReadinessExtension(bytes(input)), false, input);
    }
  });

  it("refuses anything above the size bound, whatever its version", () => {
    const longest = encodeReadinessRecord({
      plan: "x".repeat(READINESS_MAX_PLAN_NAME_BYTES),
      binary: true,
      staged: false,
    });
    assert.equal(longest.length, READINESS_RECORD_MAX_BYTES);
    assert.equal(isAcceptableReadinessExtension(longest), true);
    for (const version of [1, 2, 200]) {
      const oversized = new Uint8Array(READINESS_RECORD_MAX_BYTES + 1);
      oversized[0] = version;
      assert.throws(() => decodeReadinessRecord(oversized), /of 259 bytes: expected at most 258/);
    }
    assert.throws(
      () => encodeReadinessRecord({ plan: "x".repeat(READINESS_MAX_PLAN_NAME_BYTES + 1), binary: true, staged: false }),
      RangeError,
    );
    assert.throws(() => encodeReadinessRecord({ plan: "v2", binary: false, staged: false }), RangeError);
    assert.throws(() => encodeReadinessRecord({ plan: "", binary: true, staged: false }), RangeError);
  });

  it("answers every byte string with a record or a ReadinessRecordError, and accepts exactly those (property)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: READINESS_RECORD_MAX_BYTES + 8 }), (input) => {
        let accepted: boolean;
        try {
          decodeReadinessRecord(input);
          accepted = true;
        } catch (error) {
          assert.ok(error instanceof ReadinessRecordError, String(error));
          accepted = false;
        }
        assert.equal(isAcceptableReadinessExtension(input), accepted);
        if (input.length > READINESS_RECORD_MAX_BYTES) assert.equal(accepted, false);
      }),
    );
  });
});
