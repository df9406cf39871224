// The early `version` path takes only argv the full parser reads as plain `version` flags, and prints what it prints.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ChainManifest } from "../../runtime/release.ts";
import { plainVersionFlags, tryPlainVersion } from "./version-early.ts";

const chain: ChainManifest = { name: "chaind", releases: [{ name: "v1", version: "1.0.0" }] };

test("plain forms are recognised with their flags", () => {
  assert.deepEqual(plainVersionFlags(["version"]), { output: "text" });
  assert.deepEqual(plainVersionFlags(["version", "--long"]), { output: "text", long: true });
  assert.deepEqual(plainVersionFlags(["-o", "json", "version"]), { output: "json" });
  assert.deepEqual(plainVersionFlags(["version", "--output=json", "--long"]), { output: "json", long: true });
});

test("anything else is left to the full parser", () => {
  for (const args of [
    [],
    ["--long", "version"],
    ["version", "--help"],
    ["version", "-o", "yaml"],
    ["version", "-o"],
    ["--home", "/h", "version"],
    ["version", "extra"],
    ["version", "version"],
    ["version", "--", "x"],
  ]) {
    assert.equal(plainVersionFlags(args), undefined, args.join(" "));
  }
});

test("prints the version; an unknown release falls through to the full parser with nothing printed", () => {
  let out = "";
  assert.equal(tryPlainVersion(["version"], chain, { write: (t: string) => (out += t) }), true);
  assert.equal(out, "1.0.0\n");
  const saved = process.env.CHAIND_RELEASE;
  process.env.CHAIND_RELEASE = "v9";
  try {
    out = "";
    assert.equal(tryPlainVersion(["version"], chain, { write: (t: string) => (out += t) }), false);
    assert.equal(out, "");
  } finally {
    if (saved === undefined) delete process.env.CHAIND_RELEASE;
    else process.env.CHAIND_RELEASE = saved;
  }
});
