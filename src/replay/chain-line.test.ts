import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createNodeLogger } from "../node/logger.ts";
import { defineChain, type Release } from "../runtime/release.ts";
import { ReleaseLineError, upgradeHistory } from "../runtime/release-history.ts";
import { chainLineSteps, chainReleaseLine } from "./chain-line.ts";
import { checkReleaseLine, describeLine } from "./release-line.ts";

// Chains written the way a chain developer writes theirs: releases naming their predecessors and only the upgrade
// each adds. Nothing here opens an App.
const v1: Release = { name: "v1", version: "1.0.0" };
const v2: Release = { name: "v2", version: "2.0.0", upgradesFrom: ["v1"], upgrade: { name: "v2" } };
const v3: Release = {
  name: "v3",
  version: "3.0.0",
  upgradesFrom: ["v2"],
  upgrade: { name: "to-v3", storeUpgrades: { added: ["x"], renamed: [], deleted: [] } },
};
const chain = defineChain({ name: "linechaind", releases: [v1, v2, v3] });
const names = (steps: ReturnType<typeof chainLineSteps>) => steps.map((s) => [s.release.name, s.enteredBy]);

describe("a chain's release line comes from its releases and their upgradesFrom", () => {
  test("the top release, then its predecessors back to the one that runs from genesis", () => {
    assert.deepEqual(names(chainLineSteps(chain, v3)), [
      ["v1", undefined],
      ["v2", "v2"],
      ["v3", "to-v3"],
    ]);
    assert.deepEqual(names(chainLineSteps(chain, v2)), [
      ["v1", undefined],
      ["v2", "v2"],
    ]);
    assert.deepEqual(names(chainLineSteps(chain, v1)), [["v1", undefined]]);
  });

  test("a release naming several predecessors follows the last (newest) one", () => {
    const v3b: Release = { ...v3, upgradesFrom: ["v1", "v2"] };
    assert.deepEqual(names(chainLineSteps(defineChain({ ...chain, releases: [v1, v2, v3b] }), v3b)), [
      ["v1", undefined],
      ["v2", "v2"],
      ["v3", "to-v3"],
    ]);
  });

  test("the handlers a release keeps are the upgrades of its line, derived from the same steps", () => {
    assert.deepEqual(
      upgradeHistory(chain, v3).map((u) => u.name),
      ["v2", "to-v3"],
    );
    assert.deepEqual(
      upgradeHistory(chain, v2).map((u) => u.name),
      ["v2"],
    );
    assert.deepEqual(upgradeHistory(chain, v1), []);
    // A release without predecessor in the chain (a test node's) keeps only the upgrade that entered it.
    const alone: Release = { name: "solo", version: "1", upgrade: { name: "solo" } };
    assert.deepEqual(
      upgradeHistory(defineChain({ name: "c", releases: [alone] }), alone).map((u) => u.name),
      ["solo"],
    );
    assert.deepEqual(names(chainLineSteps(defineChain({ name: "c", releases: [alone] }), alone)), [
      ["solo", undefined],
    ]);
  });

  test("a release that upgrades from another but names no upgrade cannot be entered", () => {
    const same: Release = { name: "v2", version: "2", upgradesFrom: ["v1"] };
    assert.throws(() => chainLineSteps({ name: "c", releases: [v1, same] }, same), {
      name: "ReleaseLineError",
      message:
        'chain "c": release "v2" upgrades from "v1" but names no `upgrade`: expected the upgrade that enters "v2"',
    });
    assert.throws(
      () => defineChain({ name: "c", releases: [v1, same] }),
      /release "v2" upgrades from "v1" but names no `upgrade`/,
    );
  });

  test("predecessors that loop, or name no release of the chain, are errors naming them", () => {
    const a: Release = { name: "a", version: "1", upgradesFrom: ["b"], upgrade: { name: "to-a" } };
    const b: Release = { name: "b", version: "1", upgradesFrom: ["a"], upgrade: { name: "to-b" } };
    assert.throws(() => chainLineSteps({ name: "loop", releases: [a, b] }, a), {
      name: "ReleaseLineError",
      message: 'chain "loop": the predecessors (upgradesFrom) of release "a" loop back to "a"',
    });
    const orphan: Release = { name: "v9", version: "9", upgradesFrom: ["v8"], upgrade: { name: "v9" } };
    assert.throws(() => chainLineSteps({ name: "c", releases: [orphan] }, orphan), ReleaseLineError);
  });

  test("the ReleaseLine built for a chain: checked, described, with the skip heights of the options", () => {
    const line = chainReleaseLine({
      chain,
      release: v3,
      home: "/nonexistent",
      chainId: "line-test",
      logger: createNodeLogger({ level: "silent" }),
      skipUpgradeHeights: [120n],
    });
    checkReleaseLine(line);
    assert.equal(describeLine(line), "v1 → (v2) → v2 → (to-v3) → v3");
    assert.equal(line.upgradeStoreKey, "upgrade");
    assert.equal(line.isSkipHeight(120n), true);
    assert.equal(line.isSkipHeight(121n), false);
  });
});
