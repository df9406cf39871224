// The scaffolder as a chain developer uses it (issue 36; packages/create-chaind, docs/BUILD-A-CHAIN.md "Start from
// the scaffolder"), from the packed tarballs into a folder outside this repository (support/create-chaind/
// packed-project.ts): `npm exec` runs create-chaind's tarball for a chain `tally` (prefix tally, denom utally) whose
// chaind dependency is chaind's tarball, and a real `npm install` fetches the rest from the registry. Then, in the
// project, with its own pinned Node 24 and nothing of this checkout: its own `npm test` passes, it type-checks and
// `npm run generate` remakes its generated code;
// `npm start` gives a chain with tally1 keys and utally balances where a signed Msg of its module commits and its
// Query answers over REST, gRPC (a gRPC client, and grpcurl through reflection when installed) and the CLI; its
// `npm run release` builds the v1 and v2 release files; and chainvisor with DAEMON_NAME=tallyd runs v1 on the same
// home, a governance plan halts it at H, chainvisor switches to v2, the chain goes on past H and v2's upgrade shows
// (module version, applied plan, the store renamed and its entry migrated, the added store filled by the migration
// and counting a v2 Msg, the v1 signature still answered).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { access, mkdtemp, readFile, readlink, rm } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import {
  QuerySignatureRequestSchema,
  QuerySignatureResponseSchema,
} from "../../examples/guestbook/gen/guestbook/v1/query_pb.js";
import { freeLoopbackPorts } from "../../scripts/free-ports.ts";
import {
  heightAfter,
  restAppliedHeight,
  restModuleVersions,
  stillRunning,
  storeValue,
} from "./support/chain-checks.ts";
import { type ChaindBinary, type ChainHome, chaind, chaindJson } from "./support/chain-home.ts";
import { npm, outsideEnv, type PackedProject, packAndScaffold } from "./support/create-chaind/packed-project.ts";
import { grpcUnary, restGet, waitFor, waitForHeight } from "./support/node-api.ts";
import { type ManagedProcess, startProcess, stopAll, tail } from "./support/processes.ts";
import { PROJECT } from "./support/project-build.ts";
import { submitSoftwareUpgrade, voteYes, waitForProposalStatus } from "./support/upgrade-flow.ts";
import { chainvisor, currentChaind, startChainvisor } from "./support/visor.ts";

const run = promisify(execFile);
const SCAFFOLDER = join(PROJECT, "packages", "create-chaind", "bin", "create-chaind.mjs");
/** The dev chain's voting period (src/node/dev-chain.ts): what a plan's height must leave time for. */
const DEV_VOTING_SECONDS = 20;
/** The store the template's upgrade v2 adds (packages/create-chaind/template/modules/guestbook.ts). */
const STATS_STORE = "guestbook_stats";
/** The steps that wait for npm, a release build or the upgrade get minutes on a busy machine. */
const LONG = { timeout: 900_000 };

let dir: string;
let packed: PackedProject;
/** The scaffolded, installed project. */
let app: string;
/** The node home `npm start` creates and chainvisor later runs. */
let home: string;
/** The chain as the upgrade helpers address it (filled by the dev test). */
let chain: ChainHome;
/** The height the dev node stopped at. */
let stoppedAt: bigint;
/** The v1 and v2 release files `npm run release` wrote. */
type BuiltReleases = Record<"v1" | "v2", { archive: string; executable: string }>;
/** The release files, built in the background while the first tests run. */
let releases: Promise<BuiltReleases>;

/** The project's own binary on its own Node: `node_modules/.bin/node cmd/tallyd.ts`. */
const projectTallyd = (): ChaindBinary => ({
  command: join(app, "node_modules", ".bin", "node"),
  prefix: [join(app, "cmd", "tallyd.ts")],
});

/** `npm run release -- --release <name> --out <dir>/releases`, one after the other; the files each printed. */
async function buildReleases(): Promise<BuiltReleases> {
  const out: Partial<BuiltReleases> = {};
  for (const name of ["v1", "v2"] as const) {
    const { stdout } = await npm(["run", "release", "--", "--release", name, "--out", join(dir, "releases")], app);
    const archive = join(dir, "releases", `tallyd-${name}-linux-amd64.tar.gz`);
    const executable = join(dir, "releases", `tallyd-${name}-linux-amd64`);
    assert.ok(stdout.includes(`${archive}\nsha256 `) && stdout.includes(`${executable}\nsha256 `), stdout);
    out[name] = { archive, executable };
  }
  return out as BuiltReleases;
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "create-chaind-"));
  packed = await packAndScaffold(dir, { name: "tally", prefix: "tally", denom: "utally" });
  app = packed.app;
  home = join(dir, "home");
  releases = buildReleases();
  // Awaited by the upgrade test; a failure is reported there, not as an unhandled rejection now.
  releases.catch(() => {});
}, LONG);

after(async () => {
  await stopAll();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

test("the packed scaffolder writes the chain's identity and chaind's tarball; npm installs it with Node 24", async () => {
  assert.match(packed.scaffolded, /^Wrote \d+ files of chain tallyd into /m, packed.scaffolded);
  const manifest = JSON.parse(await readFile(join(app, "package.json"), "utf8"));
  assert.equal(manifest.name, "tally");
  assert.equal(manifest.dependencies.chaind, packed.chaindTarball, "the --chaind value is the dependency spec");
  assert.equal(manifest.scripts.start, "node cmd/tallyd.ts dev");
  const lock = JSON.parse(await readFile(join(app, "package-lock.json"), "utf8"));
  assert.match(lock.packages["node_modules/chaind"].resolved, /^file:.*chaind-[\d.]+\.tgz$/);
  const installed = JSON.parse(await readFile(join(app, "node_modules", "chaind", "package.json"), "utf8"));
  assert.equal(installed.name, "chaind");
  for (const file of ["chain/msg/v1/msg.proto", "google/api/annotations.proto", "chain/bank/v1beta1/tx.proto"]) {
    const shipped = join(app, "node_modules", "chaind", "proto", file);
    assert.equal(await readFile(shipped, "utf8"), await readFile(join(PROJECT, "proto", file), "utf8"), file);
  }
  const runtime = await run(join(app, "node_modules", ".bin", "node"), ["--version"]);
  assert.match(runtime.stdout, /^v24\./, "npm install brings the pinned Node 24");
  const appTs = await readFile(join(app, "app.ts"), "utf8");
  assert.match(appTs, /identity: \{ bech32Prefix: "tally", denom: "utally", devChainId: "tally-dev" \}/);
  assert.match(appTs, /releaseEnv: "TALLYD_RELEASE"/);
  assert.match(await readFile(join(app, "README.md"), "utf8"), /npm start/);
});

test("the scaffolder refuses a bad option or a used folder in one line, writing nothing", async () => {
  const bad = await run(process.execPath, [SCAFFOLDER, join(dir, "bad"), "--name", "tally", "--prefix", "Tally"])
    .then(() => assert.fail("a bad prefix is refused"))
    .catch((err: { code: number; stderr: string }) => err);
  assert.equal(bad.code, 1);
  assert.equal(
    bad.stderr,
    'create-chaind: invalid --prefix "Tally": expected lower-case letters and digits starting with a letter (e.g. "tally")\n',
  );
  await assert.rejects(access(join(dir, "bad")), { code: "ENOENT" }, "nothing written for a bad option");
  const used = await run(process.execPath, [SCAFFOLDER, app, "--name", "tally"])
    .then(() => assert.fail("a folder with files is refused"))
    .catch((err: { code: number; stderr: string }) => err);
  assert.match(used.stderr, /is not empty: expected a missing or empty folder\n$/);
});

test("the project's own npm test passes, npm run typecheck is clean, npm run generate remakes gen/", LONG, async () => {
  const tested = await npm(["test"], app);
  assert.match(tested.stdout, /^(#|ℹ) pass 1$/m, tested.stdout);
  assert.match(tested.stdout, /^(#|ℹ) fail 0$/m, tested.stdout);
  const checked = await npm(["run", "typecheck"], app);
  assert.doesNotMatch(checked.stdout, /error TS/, checked.stdout);
  // buf and protoc-gen-es from the project's dev dependencies, chaind's protos from the package (node_modules/chaind/proto).
  const generated = join(dir, "generated");
  await npm(["run", "generate", "--", "--output", generated], app);
  for (const file of ["query_pb.js", "query_pb.d.ts", "tx_pb.js", "tx_pb.d.ts"]) {
    const path = join("gen", "guestbook", "v1", file);
    assert.equal(await readFile(join(generated, path), "utf8"), await readFile(join(app, path), "utf8"), path);
  }
});

test(
  "npm start: tally1 keys, utally balances; a guestbook Msg commits, its Query answers over REST, gRPC and the CLI",
  LONG,
  async () => {
    const [rpc, api, grpc] = await freeLoopbackPorts(3);
    chain = {
      home,
      chainId: "tally-dev",
      validator: { name: "validator", address: "" },
      alice: { name: "alice", address: "" },
      rpcUrl: `http://127.0.0.1:${rpc}`,
      nodeFlag: `tcp://127.0.0.1:${rpc}`,
      apiUrl: `http://127.0.0.1:${api}`,
      grpcAddress: `127.0.0.1:${grpc}`,
      balances: { validator: "", alice: "" },
      denom: "utally",
    };
    // dev saves these in the new home: the CLI below and chainvisor later find the node from --home alone.
    const flags = ["--rpc.laddr", chain.nodeFlag, "--api.address", `tcp://127.0.0.1:${api}`];
    const node = startProcess(
      "npm start",
      "npm",
      ["start", "--", "--home", home, ...flags, "--grpc.address", chain.grpcAddress],
      {
        cwd: app,
        env: outsideEnv(),
      },
    );
    await node.waitForOutput(/^Stop with Ctrl-C/m, 180_000);
    await waitForHeight(chain.rpcUrl, 1, 120_000, { abortIf: stillRunning(node) });
    assert.match(node.output(), /Created the development chain "tally-dev"/);
    const keys = Object.fromEntries(
      [...node.output().matchAll(/^ {2}(validator|alice|bob) +(tally1[0-9a-z]{38})$/gm)].map((m) => [m[1], m[2]]),
    );
    assert.deepEqual(Object.keys(keys).sort(), ["alice", "bob", "validator"], node.output());
    chain.validator.address = keys.validator as string;
    chain.alice.address = keys.alice as string;

    const balances = await restGet(chain.apiUrl, `/chain/bank/v1beta1/balances/${keys.alice}`);
    assert.deepEqual(
      (balances.body as { balances: { denom: string }[] }).balances.map((coin) => coin.denom),
      ["utally"],
    );

    const tallyd = projectTallyd();
    const h = ["--home", home];
    const signTx = ["tx", "guestbook", "sign", "lin", "hello tally", "--from", "alice", "--keyring-backend", "test"];
    const sent = await chaindJson<{ code: number; txhash: string }>(tallyd, [...signTx, "-y", "--wait", ...h]);
    assert.equal(sent.code, 0, JSON.stringify(sent));

    const expected = { name: "lin", message: "hello tally" };
    assert.deepEqual(await chaindJson(tallyd, ["query", "guestbook", "signature", "lin", ...h]), expected);
    const rest = await waitFor(
      "the signature over REST",
      async () => {
        const answer = await restGet(chain.apiUrl, "/guestbook/v1/signatures/lin");
        return answer.status === 200 ? answer.body : undefined;
      },
      60_000,
    );
    assert.deepEqual(rest, expected);
    await assertSignatureOverGrpc(expected);

    await node.stop(30_000);
    const stopped = /node stopped height=(\d+)/.exec(node.output());
    assert.ok(stopped !== null, `the node stops cleanly:\n${tail(node.output())}`);
    stoppedAt = BigInt(stopped[1] as string);
  },
);

test(
  "npm run release builds v1 and v2; under chainvisor (DAEMON_NAME=tallyd) a governance upgrade switches to v2 at H",
  LONG,
  async () => {
    assert.ok(chain !== undefined, "the dev test made the chain's home");
    const built = await releases;
    const cache = join(dir, "release-cache");
    const visorEnv = {
      DAEMON_NAME: "tallyd",
      DAEMON_RESTART_AFTER_UPGRADE: "true",
      DAEMON_POLL_INTERVAL: "100ms",
      UNSAFE_SKIP_BACKUP: "true",
      // The single-file releases unpack their application here, not into the user's ~/.cache.
      CHAIND_CACHE_DIR: cache,
    };
    await chainvisor(home, ["init", built.v1.archive], visorEnv);
    await chainvisor(home, ["add-upgrade", "v2", built.v2.archive], visorEnv);
    const tallyd: ChaindBinary = { ...currentChaind(home, "tallyd"), env: { CHAIND_CACHE_DIR: cache } };
    assert.equal((await chaind(tallyd, ["version"])).stdout.trim(), "1.0.0");

    const visor: ManagedProcess = startChainvisor(home, visorEnv);
    // v1 from the release goes on from where the dev node stopped.
    const from = await waitForHeight(chain.rpcUrl, stoppedAt + 1n, 180_000, { abortIf: stillRunning(visor) });
    // Time for the proposal's and the vote's txs, the voting period and a margin, at the fastest block pace.
    const height = heightAfter(from, DEV_VOTING_SECONDS + 30);
    assert.notEqual((await storeValue(chain, STATS_STORE, "guests")).code, 0, "v1 has no store guestbook_stats");
    const proposal = await submitSoftwareUpgrade(tallyd, chain, { name: "v2", height, info: "" });
    await voteYes(tallyd, chain, proposal.id);
    await waitForProposalStatus(chain, proposal.id, "PROPOSAL_STATUS_PASSED", 180_000);

    await visor.waitForOutput(new RegExp(`UPGRADE "v2" NEEDED at height: ${height}`), 600_000);
    await waitForHeight(chain.rpcUrl, height + 2n, 300_000, { abortIf: stillRunning(visor) });
    assert.equal(await readlink(join(home, "chainvisor", "current")), join("upgrades", "v2"));
    // The same path (current/bin/tallyd) is v2's binary now.
    assert.equal((await chaind(tallyd, ["version"])).stdout.trim(), "2.0.0");

    // v2's upgrade, seen from outside: applied at H, the guestbook at consensus version 2, its store renamed and
    // its v1 entry migrated to JSON, the added store counting the one guest of v1, and the v1 signature still
    // answered by v2's Query; a new guest's Msg under v2 is counted.
    assert.equal(await restAppliedHeight(chain, "v2"), String(height));
    assert.equal((await restModuleVersions(chain)).guestbook, "2");
    const migrated = await storeValue(chain, "guestbook", "lin");
    assert.deepEqual(JSON.parse(new TextDecoder().decode(migrated.value)), { message: "hello tally", signedIn: "v1" });
    assert.notEqual((await storeValue(chain, "entries_v1", "lin")).code, 0, "the old store name is gone");
    const rest = await restGet(chain.apiUrl, "/guestbook/v1/signatures/lin");
    assert.deepEqual(rest.body, { name: "lin", message: "hello tally" });
    await assertSignatureOverGrpc({ name: "lin", message: "hello tally" });
    const guests = async () => new TextDecoder().decode((await storeValue(chain, STATS_STORE, "guests")).value);
    assert.equal(await guests(), "1");
    const signTx = ["tx", "guestbook", "sign", "ada", "hello v2", "--from", "bob", "--keyring-backend", "test"];
    const sent = await chaindJson<{ code: number }>(tallyd, [...signTx, "-y", "--wait", "--home", home]);
    assert.equal(sent.code, 0, JSON.stringify(sent));
    assert.equal(await guests(), "2");
    assert.equal(visor.hasExited(), false, "chainvisor keeps running v2");
  },
);

/** The guestbook's Query/Signature over gRPC: a gRPC client always, grpcurl (through reflection) when installed. */
async function assertSignatureOverGrpc(expected: { name: string; message: string }): Promise<void> {
  const answer = await grpcUnary(
    chain.grpcAddress,
    "/guestbook.v1.Query/Signature",
    QuerySignatureRequestSchema,
    QuerySignatureResponseSchema,
    { $typeName: "guestbook.v1.QuerySignatureRequest", name: expected.name },
  );
  assert.deepEqual({ name: answer.message.name, message: answer.message.message }, expected);
  if (GRPCURL === undefined) return;
  const body = JSON.stringify({ name: expected.name });
  const called = await run(GRPCURL, ["-plaintext", "-d", body, chain.grpcAddress, "guestbook.v1.Query/Signature"]);
  assert.deepEqual(JSON.parse(called.stdout), expected);
}

/** grpcurl where .ci/install-tools puts it (go install) or a system install; undefined when absent. */
const GRPCURL = [join(homedir(), "go", "bin", "grpcurl"), "/usr/local/bin/grpcurl", "/usr/bin/grpcurl"].find((path) =>
  existsSync(path),
);
