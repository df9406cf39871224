// The readiness gate's params in genesis (`app_state.upgrade.params`): defaults, every field, and each bad input
// refused with a message naming the field.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { defaultUpgradeParams, upgradeParamsFromGenesis, upgradeParamsToGenesis } from "./params.ts";

describe("upgrade params in genesis", () => {
  it("reads {} as the defaults and writes the defaults as {}", () => {
    assert.deepEqual(upgradeParamsFromGenesis({}), defaultUpgradeParams());
    assert.deepEqual(upgradeParamsToGenesis(defaultUpgradeParams()), {});
  });

  it("round-trips set params", () => {
    const genesis = {
      params: {
        readiness_threshold: "0.670000000000000000",
        readiness_postpone_blocks: "50",
        readiness_max_postponements: 3,
      },
    };
    const params = upgradeParamsFromGenesis(genesis);
    assert.deepEqual(params, {
      readinessThreshold: 670000000000000000n,
      readinessPostponeBlocks: 50n,
      readinessMaxPostponements: 3,
    });
    assert.deepEqual(upgradeParamsToGenesis(params), genesis);
    assert.equal(
      upgradeParamsFromGenesis({ params: { readiness_threshold: "0.5" } }).readinessThreshold,
      5n * 10n ** 17n,
    );
  });

  it("takes the largest uint64 of postpone blocks", () => {
    const params = upgradeParamsFromGenesis({ params: { readiness_postpone_blocks: "18446744073709551615" } });
    assert.equal(params.readinessPostponeBlocks, (1n << 64n) - 1n);
  });

  it("refuses bad input naming the field", () => {
    const cases: [unknown, RegExp][] = [
      [[], /must be an object/],
      [{ plan: {} }, /unknown field plan/],
      [{ params: { readiness_threshold: "1.5" } }, /readiness_threshold must be between 0 and 1/],
      [{ params: { readiness_threshold: "abc" } }, /readiness_threshold/],
      [{ params: { readiness_threshold: 0.5 } }, /readiness_threshold: expected LegacyDec text/],
      [{ params: { readiness_postpone_blocks: "0" } }, /readiness_postpone_blocks must be at least 1/],
      [{ params: { readiness_postpone_blocks: "-1" } }, /readiness_postpone_blocks: expected an unsigned integer/],
      [
        { params: { readiness_postpone_blocks: "18446744073709551616" } },
        /readiness_postpone_blocks: expected a 64-bit unsigned integer/,
      ],
      [{ params: { readiness_max_postponements: 5e9 } }, /32-bit/],
      [{ params: { other: 1 } }, /unknown field upgrade\.params\.other/],
    ];
    for (const [genesis, message] of cases) {
      assert.throws(() => upgradeParamsFromGenesis(genesis as never), message, JSON.stringify(genesis));
    }
  });
});
