// `chaind upgrade rehearse` and `upgrade dry-run` on the home of a node that was not stopped (the docs ask to stop
// it; a user may not): the node keeps appending blocks to its store while the work copies are made and opened, yet
// both runs of the rehearsal start from the same state, so it passes, determinism included (level-copy.ts).
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, test } from "node:test";
import {
  bannerEndpoints,
  fastDevHome,
  killAllChaind,
  LOOPBACK_PORT_FLAGS,
  runChaind,
  spawnChaind,
  type tempDir,
  waitForHeight,
} from "../support/node/chaind.ts";

let dir: Awaited<ReturnType<typeof tempDir>> | undefined;

after(async () => {
  await killAllChaind();
  await dir?.remove();
});

test("a rehearsal of a running node's home passes, both runs on the state of one moment", async () => {
  // Blocks 100 ms apart: several land between the work copy and the determinism run's open of its copy.
  const made = await fastDevHome("chaind-rehearse-running-", "100ms");
  dir = made.dir;
  const home = made.dev.home;
  const userHome = join(dir.path, "user");
  const node = spawnChaind(["dev", "--home", home, ...LOOPBACK_PORT_FLAGS], { userHome });
  const { rpc } = await bannerEndpoints(node);
  await waitForHeight(rpc, 3n);

  const rehearsal = await runChaind(["--home", home, "upgrade", "rehearse", "v2", "-o", "json"], { userHome });
  assert.equal(rehearsal.code, 0, `${rehearsal.stdout}\n${rehearsal.stderr}`);
  const report = JSON.parse(rehearsal.stdout) as { passed: boolean; determinism: { equal: boolean; error?: string } };
  assert.equal(report.passed, true);
  assert.equal(report.determinism.equal, true, report.determinism.error);

  const dryRun = await runChaind(["--home", home, "upgrade", "dry-run", "v2"], { userHome });
  assert.equal(dryRun.code, 0, dryRun.stderr);
  assert.match(dryRun.stdout, /^dry run of upgrade "v2" with release v2/);
  assert.equal(node.child.exitCode, null, "the node runs on");
});
