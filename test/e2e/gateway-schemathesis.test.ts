// schemathesis, a real outside peer, reads the Swagger document the live gateway serves and fuzzes
// every route with generated requests: not one answer may be a server error (5xx). It runs against
// `chaind dev` on loopback ports picked at run time. CI installs schemathesis (.ci/install-tools);
// where it is missing the test says so and skips.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  bannerEndpoints,
  type ChaindProcess,
  killAllChaind,
  LOOPBACK_PORT_FLAGS,
  spawnChaind,
  tempDir,
  waitForHeight,
} from "../support/node/chaind.ts";

const found = spawnSync("schemathesis", ["--version"], { encoding: "utf8" });
const skip =
  found.status === 0 ? false : "schemathesis not found: install it with `python3 -m pip install schemathesis`";

let dir: Awaited<ReturnType<typeof tempDir>>;
let node: ChaindProcess | undefined;

before(async () => {
  dir = await tempDir("chaind-schemathesis-");
});

after(async () => {
  await killAllChaind();
  await dir?.remove();
});

test("schemathesis finds no server error on any route of the live gateway", { skip, timeout: 600_000 }, async () => {
  const home = join(dir.path, "home");
  node = spawnChaind(["dev", "--home", home, ...LOOPBACK_PORT_FLAGS], { userHome: join(dir.path, "user") });
  const endpoints = await bannerEndpoints(node);
  await waitForHeight(endpoints.rpc, 2n);
  const spec = `${endpoints.rest}/swagger/swagger.json`;
  const run = spawnSync(
    "schemathesis",
    [
      "run",
      spec,
      "--checks",
      "not_a_server_error",
      "--max-examples",
      "8",
      "--seed",
      "1",
      "--request-timeout",
      "20",
      "--suppress-health-check",
      "all",
    ],
    {
      encoding: "utf8",
      timeout: 540_000,
      cwd: dir.path,
      env: { ...process.env, SCHEMATHESIS_TELEMETRY: "false", NO_COLOR: "1" },
    },
  );
  const output = `${run.stdout}\n${run.stderr}`;
  // The summary must show that operations were actually exercised.
  assert.match(output, /\d+ passed|passed/i, output.slice(-3000));
  assert.doesNotMatch(
    output,
    /Server error|not_a_server_error\s+\d+ \/ \d+ passed.*failed|5\d\d (Internal|Not Implemented)/i,
    output.slice(-4000),
  );
  assert.equal(run.status, 0, output.slice(-4000));
});
