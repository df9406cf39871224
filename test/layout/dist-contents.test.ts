// What `npm run build` compiles into dist/ (tsconfig.build.json): the framework, the reference chain and the public
// testing kit (`src/testing/`, exported as `chaind/testing` for a chain's own tests), and no private helper. The
// list is tsc's own, so a helper filed where the build picks it up fails here, not in a chain developer's install.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join, relative, resolve } from "node:path";
import { test } from "node:test";
import { isPrivateHelperInSrc } from "./import-boundaries.ts";

const ROOT = resolve(import.meta.dirname, "..", "..");

/** The repository files tsc compiles for the build, repo-relative. */
function builtFiles(): string[] {
  const listed = execFileSync(
    join(ROOT, "node_modules", ".bin", "tsc"),
    ["-p", "tsconfig.build.json", "--listFilesOnly"],
    { cwd: ROOT, encoding: "utf8" },
  );
  return listed
    .split("\n")
    .filter((line) => line !== "" && !line.includes("/node_modules/"))
    .map((line) => relative(ROOT, line));
}

test("dist/ holds src/, chain/ and the public testing kit, and no test or private helper", () => {
  const files = builtFiles();
  assert.ok(files.includes("src/testing/index.ts"), "the public testing kit is built");
  assert.ok(files.includes("chain/cmd/chaind.ts"), "the reference chain's binary is built");
  const outside = files.filter((file) => !file.startsWith("src/") && !file.startsWith("chain/"));
  assert.deepEqual(outside, [], "only src/ and chain/ are built");
  const privateOnes = files.filter((file) => file.endsWith(".test.ts") || isPrivateHelperInSrc(file));
  assert.deepEqual(privateOnes, [], "no test or private helper is built");
});

test("the private-helper rule names what it should", () => {
  assert.equal(isPrivateHelperInSrc("src/cli/client/testing/run-cli.ts"), true);
  assert.equal(isPrivateHelperInSrc("src/x/bank/testing.ts"), true);
  assert.equal(isPrivateHelperInSrc("src/engine/test-support/kv-app.ts"), true);
  assert.equal(isPrivateHelperInSrc("src/testing/test-node.ts"), false);
  assert.equal(isPrivateHelperInSrc("src/app/base-app.ts"), false);
});
