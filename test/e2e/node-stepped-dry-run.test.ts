// The dry run and the rehearsal of an upgrade with a stepped migration (the reference chain's v3), as real processes
// on a dev chain run as release v2: both run the migration to its end on their copy, one step a block after the
// upgrade's, and report how many blocks it takes at its budget; the node's own data is never touched.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { homePaths } from "../../src/config/index.ts";
import { killAllChaind, LOOPBACK_PORT_FLAGS, runChaind, tempDir } from "../support/node/chaind.ts";
import { hashTree } from "./support/tree-hash.ts";

let dir: Awaited<ReturnType<typeof tempDir>>;
let home: string;
let userHome: string;
const V2 = { CHAIND_RELEASE: "v2" };

interface SteppedJson {
  stepped_migrations: {
    upgrade: string;
    module: string;
    name: string;
    budget: number;
    steps: string;
    blocks: string;
    finished_height: string;
  }[];
  applied_at: string;
}

before(async () => {
  dir = await tempDir("chaind-stepped-dry-run-");
  home = join(dir.path, "home");
  userHome = join(dir.path, "user");
  // A v2 chain from genesis that stops by itself after block 3.
  const dev = await runChaind(["dev", "--home", home, "--halt-height", "3", ...LOOPBACK_PORT_FLAGS], {
    userHome,
    env: V2,
  });
  assert.equal(dev.code, 0, dev.stderr.slice(-2000));
});

after(async () => {
  await killAllChaind();
  await dir?.remove();
});

function assertDrained(report: SteppedJson): void {
  // The dev chain has a few balance records, fewer than the 2,000 of one step: the first step finishes it.
  assert.deepEqual(report.stepped_migrations, [
    {
      upgrade: "v3",
      module: "bank",
      name: "holders-index",
      budget: 2000,
      steps: "1",
      blocks: "1",
      finished_height: (BigInt(report.applied_at) + 1n).toString(),
    },
  ]);
}

test("upgrade dry-run v3 runs the stepped migration to its end and reports its blocks", async () => {
  const before = await hashTree(homePaths(home).dataDir);
  const run = await runChaind(["--home", home, "upgrade", "dry-run", "v3", "-o", "json"], { userHome, env: V2 });
  assert.equal(run.code, 0, run.stderr.slice(-3000));
  assertDrained(JSON.parse(run.stdout) as SteppedJson);
  const text = await runChaind(["--home", home, "upgrade", "dry-run", "v3"], { userHome, env: V2 });
  assert.equal(text.code, 0, text.stderr.slice(-3000));
  assert.match(text.stdout, /^ {2}bank\/holders-index: 1 blocks at 2000 records a block, done at height 5$/m);
  assert.deepEqual(await hashTree(homePaths(home).dataDir), before);
});

test("upgrade rehearse v3 reports the same and passes", async () => {
  const before = await hashTree(homePaths(home).dataDir);
  const run = await runChaind(["--home", home, "upgrade", "rehearse", "v3", "-o", "json"], { userHome, env: V2 });
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr.slice(-3000)}`);
  const report = JSON.parse(run.stdout) as SteppedJson & { passed: boolean };
  assert.equal(report.passed, true);
  assertDrained(report);
  assert.deepEqual(await hashTree(homePaths(home).dataDir), before);
});
