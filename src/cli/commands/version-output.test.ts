// `chaind version --long -o json` lists the binary's release line (issue 32): the releases it carries, oldest first.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ChainManifest } from "../../runtime/release.ts";
import { releaseLineOf, versionText } from "./version-output.ts";

const env = (release: string) => ({ CHAIND_RELEASE: release });

/** A chain shaped as the reference chain's manifest (src/ never imports chain/): v1, then v2 from v1. */
const referenceManifest: ChainManifest = {
  name: "chaind",
  releases: [
    { name: "v1", version: "1.0.0" },
    { name: "v2", version: "2.0.0", upgradesFrom: ["v1"] },
  ],
  defaultRelease: "v1",
  releaseEnv: "CHAIND_RELEASE",
};

test("the long JSON form names the release, its version and the release line it carries", () => {
  const v2 = JSON.parse(versionText(referenceManifest, { long: true, output: "json" }, env("v2")));
  assert.deepEqual(v2, {
    name: "chaind",
    release: "v2",
    version: "2.0.0",
    node: process.version,
    release_line: [
      { release: "v1", version: "1.0.0" },
      { release: "v2", version: "2.0.0" },
    ],
  });
  const v1 = JSON.parse(versionText(referenceManifest, { long: true, output: "json" }, env("v1")));
  assert.deepEqual(v1.release_line, [{ release: "v1", version: "1.0.0" }]);
});

test("the text forms and the short JSON form are unchanged", () => {
  assert.equal(versionText(referenceManifest, { output: "text" }, env("v2")), "2.0.0\n");
  assert.equal(versionText(referenceManifest, { output: "json" }, env("v2")), '{"version":"2.0.0"}\n');
  assert.equal(
    versionText(referenceManifest, { long: true, output: "text" }, env("v2")),
    `name: chaind\nrelease: v2\nversion: 2.0.0\nnode: ${process.version}\n`,
  );
});

test("the line follows the last predecessor named and stops at an unknown one or a loop", () => {
  const chain: ChainManifest = {
    name: "x",
    releases: [
      { name: "a", version: "1" },
      { name: "b", version: "2", upgradesFrom: ["a"] },
      { name: "c", version: "3", upgradesFrom: ["a", "b"] },
      { name: "d", version: "4", upgradesFrom: ["gone"] },
      { name: "e", version: "5", upgradesFrom: ["f"] },
      { name: "f", version: "6", upgradesFrom: ["e"] },
    ],
  };
  const names = (name: string) =>
    releaseLineOf(chain, chain.releases.find((r) => r.name === name) as ChainManifest["releases"][number]).map(
      (entry) => entry.release,
    );
  assert.deepEqual(names("c"), ["a", "b", "c"]);
  assert.deepEqual(names("d"), ["d"]);
  assert.deepEqual(names("e"), ["f", "e"]);
});
