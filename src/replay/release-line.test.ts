import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ReleaseLineError } from "../runtime/release-history.ts";
import {
  activeReleaseIndex,
  checkReleaseLine,
  describeLine,
  type LineRelease,
  type ReleaseLine,
  type SwitchableApp,
} from "./release-line.ts";

// Lines are checked before any App is built, so these releases never open one.
function release(name: string, enteredBy?: string): LineRelease<SwitchableApp> {
  return {
    name,
    enteredBy,
    open: () => Promise.reject(new Error("not opened in this test")),
  };
}

function line(...releases: LineRelease<SwitchableApp>[]): ReleaseLine<SwitchableApp> {
  return { releases, upgradeStoreKey: "upgrade", isSkipHeight: () => false };
}

describe("release lines", () => {
  const v1v2v3 = line(release("v1"), release("v2", "v2"), release("v3", "to-v3"));

  test("a well-formed line passes and describes itself", () => {
    checkReleaseLine(v1v2v3);
    assert.equal(describeLine(v1v2v3), "v1 → (v2) → v2 → (to-v3) → v3");
  });

  test("malformed lines are refused with what is wrong", () => {
    assert.throws(() => checkReleaseLine(line()), /the release line is empty/);
    assert.throws(
      () => checkReleaseLine(line(release("v1", "v1"))),
      /the first release of the line \("v1"\) must run from genesis/,
    );
    assert.throws(
      () => checkReleaseLine(line(release("v1"), release("v2"))),
      /release "v2" of the line does not name the upgrade that enters it/,
    );
    assert.throws(
      () => checkReleaseLine(line(release("v1"), release("v2", "up"), release("v3", "up"))),
      /two releases of the line are entered by the same upgrade "up"/,
    );
  });

  test("the active release is the one the last completed upgrade entered", () => {
    assert.equal(activeReleaseIndex(v1v2v3, undefined), 0);
    assert.equal(activeReleaseIndex(v1v2v3, { name: "v2", protocolVersion: 1n }), 1);
    assert.equal(activeReleaseIndex(v1v2v3, { name: "to-v3", protocolVersion: 2n }), 2);
  });

  test("a chain beyond the line is refused with the wrong-binary status", () => {
    const v1v2 = line(release("v1"), release("v2", "v2"));
    assert.throws(
      () => activeReleaseIndex(v1v2, { name: "v3", protocolVersion: 2n }),
      (err: unknown) =>
        err instanceof ReleaseLineError &&
        err.exitCode === 21 &&
        err.message ===
          `the chain's last completed upgrade is "v3" (protocol version 2), which this binary's release line (v1 → (v2) → v2) does not know: run a release that carries it`,
    );
  });
});
