import assert from "node:assert/strict";
import { test } from "node:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { Plan as CosmosPlan } from "cosmjs-types/cosmos/upgrade/v1beta1/upgrade";
import { ErrInvalidRequest } from "../../app/errors.ts";
import { PlanSchema } from "../../gen/chain/upgrade/v1beta1/upgrade_pb.js";
import { isDue, isZeroTime, newPlan, planToJson, storedForm, validatePlan, ZERO_TIME_SECONDS } from "./plan.ts";

const ts = (seconds: bigint, nanos = 0) => ({ $typeName: "google.protobuf.Timestamp" as const, seconds, nanos });

test("validatePlan: each rule's exact error, sdk 18, first failure wins", () => {
  const cases: [Parameters<typeof create<typeof PlanSchema>>[1], string][] = [
    [
      { name: "v2", height: 5n, time: ts(1700000000n) },
      "time-based upgrades have been deprecated in the SDK: invalid request",
    ],
    [
      { name: "v2", height: 5n, upgradedClientState: { typeUrl: "/x", value: new Uint8Array() } },
      "upgrade logic for IBC has been moved to the IBC module: invalid request",
    ],
    [{ name: "", height: 5n }, "name cannot be empty: invalid request"],
    [{ name: "v2", height: 0n }, "height must be greater than 0: invalid request"],
    [{ name: "v2", height: -3n }, "height must be greater than 0: invalid request"],
    // Several failures at once: the time rule comes first, then client state, then name.
    [{ name: "", height: 0n, time: ts(5n) }, "time-based upgrades have been deprecated in the SDK: invalid request"],
    [
      { name: "", height: 0n, upgradedClientState: { typeUrl: "/x", value: new Uint8Array() } },
      "upgrade logic for IBC has been moved to the IBC module: invalid request",
    ],
    [{ name: "", height: 0n }, "name cannot be empty: invalid request"],
  ];
  for (const [init, message] of cases) {
    assert.throws(
      () => validatePlan(create(PlanSchema, init)),
      (err: unknown) => {
        assert.equal((err as Error).message, message);
        assert.ok(ErrInvalidRequest.is(err));
        assert.equal(ErrInvalidRequest.code, 18);
        assert.equal(ErrInvalidRequest.codespace, "sdk");
        return true;
      },
    );
  }
});

test("the zero time: absent, all-default, or 0001-01-01T00:00:00Z; anything else is not", () => {
  assert.equal(isZeroTime(undefined), true);
  assert.equal(isZeroTime(ts(0n)), true);
  assert.equal(isZeroTime(ts(ZERO_TIME_SECONDS)), true);
  assert.equal(isZeroTime(ts(ZERO_TIME_SECONDS, 1)), false);
  assert.equal(isZeroTime(ts(1n)), false);
  assert.equal(isZeroTime(ts(0n, 5)), false);
  for (const time of [undefined, ts(0n), ts(ZERO_TIME_SECONDS)]) {
    validatePlan(create(PlanSchema, { name: "v2", height: 1n, time }));
  }
});

test("the stored form carries 0001-01-01T00:00:00Z (seconds −62135596800): exact bytes", () => {
  const plan = storedForm(create(PlanSchema, { name: "v2", height: 130n, time: ts(0n) }));
  assert.equal(plan.time?.seconds, -62135596800n);
  // name "v2" | time {seconds: -62135596800 as a 10-byte varint} | height 130
  assert.equal(Buffer.from(toBinary(PlanSchema, plan)).toString("hex"), "0a027632120b088092b8c398feffffff01188201");
  // The same bytes as the Cosmos SDK's own encoding of that plan.
  const cosmos = CosmosPlan.encode(
    CosmosPlan.fromPartial({ name: "v2", height: 130n, time: { seconds: -62135596800n, nanos: 0 } }),
  ).finish();
  assert.deepEqual(toBinary(PlanSchema, plan), cosmos);
  const withInfo = newPlan({ name: "v2", height: 130n, info: "i" });
  assert.equal(
    Buffer.from(toBinary(PlanSchema, withInfo)).toString("hex"),
    "0a027632120b088092b8c398feffffff011882012201" + "69",
  );
});

test("planToJson: every field present, height as a string", () => {
  assert.equal(
    JSON.stringify(planToJson(newPlan({ name: "v2", height: 130n }))),
    '{"name":"v2","time":"0001-01-01T00:00:00Z","height":"130","info":"","upgraded_client_state":null}',
  );
});

test("isDue: due at its height and every later one", () => {
  const plan = newPlan({ name: "v2", height: 10n });
  assert.equal(isDue(plan, 9n), false);
  assert.equal(isDue(plan, 10n), true);
  assert.equal(isDue(plan, 11n), true);
  assert.equal(isDue(newPlan({ name: "v2", height: 0n }), 5n), false);
});
