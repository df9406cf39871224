import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createNodeLogger } from "../src/node/logger.ts";
import { checkReleaseLine, describeLine } from "../src/replay/release-line.ts";
import { releaseNamed } from "./releases.ts";
import { chainReleaseLine, releasesUpTo } from "./replay-line.ts";

describe("the reference chain's release line", () => {
  const options = { home: "/nonexistent", chainId: "line-test", logger: createNodeLogger({ level: "silent" }) };

  test("v2 carries v1, entered by upgrade v2; v1 carries only itself", () => {
    assert.deepEqual(
      releasesUpTo(releaseNamed("v2")).map((r) => r.name),
      ["v1", "v2"],
    );
    assert.deepEqual(
      releasesUpTo(releaseNamed("v1")).map((r) => r.name),
      ["v1"],
    );
    const line = chainReleaseLine({ ...options, release: releaseNamed("v2") });
    checkReleaseLine(line);
    assert.equal(describeLine(line), "v1 → (v2) → v2");
    assert.equal(line.upgradeStoreKey, "upgrade");
  });

  test("each release declares its own store set: v2's after the store upgrades of v2", async () => {
    const line = chainReleaseLine({ ...options, release: releaseNamed("v2") });
    const [v1, v2] = await Promise.all(line.releases.map((r) => r.storeNames()));
    assert.ok(v1?.includes("notes_v1") && v1.includes("legacy") && !v1.includes("beacon"), v1?.join(","));
    assert.ok(v2?.includes("notes") && v2.includes("beacon") && !v2.includes("legacy"), v2?.join(","));
  });

  test("skip heights come from the options", () => {
    const line = chainReleaseLine({ ...options, release: releaseNamed("v2"), skipUpgradeHeights: [120n] });
    assert.equal(line.isSkipHeight(120n), true);
    assert.equal(line.isSkipHeight(121n), false);
  });
});
