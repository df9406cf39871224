// The hand-written ExecTxResult encoder gives exactly the general protobuf encoder's bytes.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { ExecTxResultSchema } from "../gen/tendermint/abci/types_pb.js";
import { encodeExecTxResult } from "./exec-tx-result-encoding.ts";

const texts = ["", "a", "transfer", "ünïcødé ✓", "x".repeat(127), "y".repeat(128), "z".repeat(20_000)];
const pick = <T>(items: readonly T[], i: number): T => items[i % items.length];
const int64s = [0n, 1n, 127n, 128n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 63n - 1n, -1n, -(2n ** 63n), 200_000n];

test("encodeExecTxResult writes protobuf's bytes for every shape of result", () => {
  const cases = [create(ExecTxResultSchema)];
  for (let i = 0; i < 300; i++) {
    cases.push(
      create(ExecTxResultSchema, {
        code: pick([0, 1, 5, 127, 128, 2 ** 32 - 1], i),
        data: randomBytes(pick([0, 1, 40, 300], i * 3)),
        log: pick(texts, i),
        info: pick(texts, i * 5 + 1),
        gasWanted: pick(int64s, i),
        gasUsed: pick(int64s, i * 7 + 3),
        codespace: pick(["", "sdk", "bank"], i),
        events: Array.from({ length: i % 5 }, (_, e) => ({
          type: pick(texts, i + e),
          attributes: Array.from({ length: (i + e) % 4 }, (_, a) => ({
            key: pick(texts, i * 3 + a),
            value: pick(texts, i + e * 2 + a),
            index: (i + a) % 3 !== 0,
          })),
        })),
      }),
    );
  }
  for (const result of cases) {
    assert.deepEqual(Buffer.from(encodeExecTxResult(result)), Buffer.from(toBinary(ExecTxResultSchema, result)));
  }
});
