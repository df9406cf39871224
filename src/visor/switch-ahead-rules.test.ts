// DAEMON_SWITCH_AHEAD's decisions without I/O: what the binaries say, when to restart, when it is too late, and the
// node's arguments in the in-place mode.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  carriesRelease,
  inPlaceArgs,
  parseVersionReport,
  seededRandom,
  switchDelayMs,
  tooCloseToHeight,
  type VersionReport,
} from "./switch-ahead-rules.ts";

const v1: VersionReport = { release: "v1", version: "1.0.0", releaseLine: [{ release: "v1", version: "1.0.0" }] };
const v2: VersionReport = {
  release: "v2",
  version: "2.0.0",
  releaseLine: [
    { release: "v1", version: "1.0.0" },
    { release: "v2", version: "2.0.0" },
  ],
};

describe("switch ahead rules", () => {
  it("parses a binary's long JSON version, ignoring entries of the wrong shape", () => {
    const text = JSON.stringify({
      name: "chaind",
      release: "v2",
      version: "2.0.0",
      node: "v24.9.0",
      release_line: [{ release: "v1", version: "1.0.0" }, { release: 3 }, { release: "v2", version: "2.0.0" }],
    });
    assert.deepEqual(parseVersionReport(text, "/b"), v2);
    assert.deepEqual(parseVersionReport('{"release":"v1","version":"1.0.0"}', "/b").releaseLine, [], "older binary");
  });

  it("refuses output that is not a version record, naming the binary", () => {
    for (const text of ["1.0.0\n", "{}", '{"version":"1.0.0"}', "[]"]) {
      assert.throws(
        () => parseVersionReport(text, "/h/upgrades/v2/bin/chaind"),
        /^VisorError: \/h\/upgrades\/v2\/bin\/chaind version --long --output json did not print \{"release":\.\.\.,"version":\.\.\.,"release_line":\[\.\.\.\]\}: got /,
      );
    }
  });

  it("a release carries the running one only when its line holds the same release and version", () => {
    assert.equal(carriesRelease(v2, v1), true);
    assert.equal(carriesRelease(v1, v2), false, "an older release");
    assert.equal(carriesRelease(v2, v2), false, "the same release: nothing to switch");
    assert.equal(carriesRelease(v2, { ...v1, version: "1.0.1" }), false, "another build of v1");
    assert.equal(carriesRelease({ ...v2, releaseLine: [] }, v1), false, "a binary that lists no line");
  });

  it("draws the restart moment within the window, spread by the random source", () => {
    const window = 600_000;
    assert.equal(
      switchDelayMs(window, () => 0),
      0,
    );
    assert.equal(
      switchDelayMs(window, () => 0.5),
      300_000,
    );
    assert.equal(
      switchDelayMs(window, () => 0.999999999),
      window - 1,
      "never the window's end",
    );
    assert.equal(
      switchDelayMs(window, () => 1),
      window - 1,
      "a source out of range is clamped",
    );
    assert.equal(
      switchDelayMs(window, () => Number.NaN),
      0,
    );
    const random = seededRandom(7);
    const draws = Array.from({ length: 200 }, () => switchDelayMs(window, random));
    assert.ok(draws.every((d) => Number.isInteger(d) && d >= 0 && d < window));
    assert.ok(new Set(draws).size > 190, "validators seeded differently restart at different moments");
    assert.ok(Math.min(...draws) < window / 4 && Math.max(...draws) > (3 * window) / 4, "spread over the window");
    const again = seededRandom(7);
    assert.deepEqual(
      Array.from({ length: 200 }, () => switchDelayMs(window, again)),
      draws,
      "a seed gives the same draws",
    );
  });

  it("is too close to the height within the guard, inclusive", () => {
    assert.equal(tooCloseToHeight(100n, 79n, 20n), false);
    assert.equal(tooCloseToHeight(100n, 80n, 20n), true);
    assert.equal(tooCloseToHeight(100n, 100n, 20n), true);
    assert.equal(tooCloseToHeight(100n, 120n, 20n), true, "past the height");
    assert.equal(tooCloseToHeight(100n, 99n, 0n), false, "guard 0: up to the block before");
  });

  it("puts the in-place flag after start, before any --, once", () => {
    assert.deepEqual(inPlaceArgs(["start", "--home", "/h"]), ["start", "--in-place-upgrades", "--home", "/h"]);
    assert.deepEqual(inPlaceArgs(["--home", "/h", "start", "--", "--x"]), [
      "--home",
      "/h",
      "start",
      "--in-place-upgrades",
      "--",
      "--x",
    ]);
    assert.deepEqual(inPlaceArgs(["start", "--replay-releases"]), ["start", "--replay-releases"]);
    assert.deepEqual(inPlaceArgs(["start", "--in-place-upgrades"]), ["start", "--in-place-upgrades"]);
    assert.equal(inPlaceArgs(["version"]), undefined);
    assert.equal(inPlaceArgs(["--", "start"]), undefined);
  });
});
