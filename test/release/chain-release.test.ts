// Releases of a chain other than chaind, from the package's builder through the chain's own binary: `tallyd release`
// (test/e2e/support/tally/tallyd.ts) writes `tallyd-v2-linux-amd64` and its archive with bin/tallyd, bin/chainvisor
// and a RELEASE naming tallyd, its release's version, the project's version and commit; the executable runs as
// release v2 whatever TALLYD_RELEASE says; chainvisor with DAEMON_NAME=tallyd installs the archive and runs it.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { extract, list } from "tar";
import { chainvisorScript, sha256File } from "../../scripts/release.ts";
import { cosmovisorBinary } from "../e2e/support/cosmovisor.ts";
import { projectToPackage } from "../e2e/support/project-build.ts";
import { CHAINVISOR } from "../e2e/support/visor.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const NODE = join(ROOT, "node_modules", ".bin", "node");
const TALLYD = join(ROOT, "test", "e2e", "support", "tally", "tallyd.ts");

let work: string;
let project: string;
let out: string;
let printed: string;

/** The environment of every child: its own HOME and release cache, and a release variable the build must override. */
const env = () => ({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: work,
  CHAIND_CACHE_DIR: join(work, "cache"),
  TALLYD_RELEASE: "v1",
});

function run(command: string, args: string[], extra: Record<string, string> = {}) {
  const result = spawnSync(command, args, {
    encoding: "utf8",
    cwd: work,
    env: { ...env(), ...extra },
    timeout: 600_000,
  });
  assert.equal(
    result.status,
    0,
    `${command} ${args.join(" ")} exited ${result.status}:\n${result.stdout}\n${result.stderr}`,
  );
  return result.stdout;
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), "chaind-chain-release-"));
  project = await projectToPackage(work);
  out = join(work, "out");
  printed = run(NODE, [TALLYD, "release", "--release", "v2", "--out", out, "--project", project]);
});

after(() => rm());
const rm = () => work !== undefined && rmSync(work, { recursive: true, force: true });

test("`tallyd release` names the files after the chain and prints them with their sha256", async () => {
  const executable = join(out, "tallyd-v2-linux-amd64");
  const archive = `${executable}.tar.gz`;
  assert.ok(existsSync(executable) && existsSync(archive), printed);
  assert.equal(
    printed,
    `${archive}\nsha256 ${await sha256File(archive)}\n${executable}\nsha256 ${await sha256File(executable)}\n`,
  );
  assert.equal(
    readFileSync(`${archive}.sha256`, "utf8"),
    `${await sha256File(archive)}  tallyd-v2-linux-amd64.tar.gz\n`,
  );
});

test("the archive holds bin/tallyd, a bin/chainvisor running it, and a RELEASE of the chain's own", () => {
  const archive = join(out, "tallyd-v2-linux-amd64.tar.gz");
  const paths: string[] = [];
  list({ file: archive, sync: true, onReadEntry: (entry) => void paths.push(entry.path) });
  assert.deepEqual(paths, ["bin/", "bin/chainvisor", "bin/tallyd", "RELEASE"]);
  const unpacked = join(work, "unpacked");
  mkdirSync(unpacked);
  extract({ file: archive, cwd: unpacked, sync: true });
  assert.equal(readFileSync(join(unpacked, "bin", "chainvisor"), "utf8"), chainvisorScript("tallyd"));
  const info = JSON.parse(readFileSync(join(unpacked, "RELEASE"), "utf8")) as Record<string, unknown>;
  assert.equal(info.name, "tallyd");
  assert.equal(info.release, "v2");
  assert.equal(info.version, "2.0.0");
  assert.equal(info.package_version, JSON.parse(readFileSync(join(project, "package.json"), "utf8")).version);
  const head = spawnSync("git", ["rev-parse", "HEAD"], { cwd: project, encoding: "utf8" });
  assert.equal(info.commit, head.status === 0 ? head.stdout.trim() : null);
  // The executable runs as the release it was built for, under the chain's own name, whatever TALLYD_RELEASE says.
  const version = JSON.parse(run(join(unpacked, "bin", "tallyd"), ["version", "--long", "-o", "json"]));
  assert.deepEqual([version.name, version.release, version.version], ["tallyd", "v2", "2.0.0"]);
});

test("chainvisor with DAEMON_NAME=tallyd installs the archive and runs its bin/tallyd", async () => {
  const home = join(work, "node-home");
  const visorEnv = { DAEMON_NAME: "tallyd", DAEMON_HOME: home };
  run(NODE, [CHAINVISOR, "init", join(out, "tallyd-v2-linux-amd64.tar.gz")], visorEnv);
  const installed = join(home, "chainvisor", "genesis", "bin", "tallyd");
  assert.equal(await sha256File(installed), await sha256File(join(out, "tallyd-v2-linux-amd64")));
  const current = join(home, "chainvisor", "current", "bin", "tallyd");
  assert.equal(run(current, ["version"]).trim(), "2.0.0");
  // add-upgrade takes the archive as well, for the upgrade named after the release.
  run(NODE, [CHAINVISOR, "add-upgrade", "v2", join(out, "tallyd-v2-linux-amd64.tar.gz")], visorEnv);
  assert.ok(existsSync(join(home, "chainvisor", "upgrades", "v2", "bin", "tallyd")));
  // Another DAEMON_NAME refuses it, naming what it looked for.
  const other = spawnSync(NODE, [CHAINVISOR, "init", join(out, "tallyd-v2-linux-amd64.tar.gz")], {
    encoding: "utf8",
    env: { ...env(), DAEMON_NAME: "otherd", DAEMON_HOME: join(work, "other-home") },
  });
  assert.notEqual(other.status, 0);
  assert.match(`${other.stdout}${other.stderr}`, /bin\/otherd/);
});

const COSMOVISOR = cosmovisorBinary();

test("the real cosmovisor with DAEMON_NAME=tallyd installs tallyd's executable and runs it", {
  skip: COSMOVISOR === undefined ? "cosmovisor is not installed (.ci/install-tools)" : false,
}, () => {
  const home = join(work, "cosmovisor-home");
  mkdirSync(home);
  const cosmovisorEnv = { DAEMON_NAME: "tallyd", DAEMON_HOME: home, UNSAFE_SKIP_BACKUP: "true" };
  const executable = join(out, "tallyd-v2-linux-amd64");
  run(COSMOVISOR as string, ["init", executable], cosmovisorEnv);
  assert.ok(existsSync(join(home, "cosmovisor", "genesis", "bin", "tallyd")));
  run(COSMOVISOR as string, ["add-upgrade", "v2", executable], cosmovisorEnv);
  assert.ok(existsSync(join(home, "cosmovisor", "upgrades", "v2", "bin", "tallyd")));
  // `cosmovisor run <args>` runs current/bin/tallyd <args> (in a home with a data/): the release it was built as answers.
  mkdirSync(join(home, "data"));
  assert.match(run(COSMOVISOR as string, ["run", "version"], cosmovisorEnv), /^2\.0\.0$/m);
});

test("`release` refuses a release the chain does not define, in one line, before writing anything", () => {
  const result = spawnSync(
    NODE,
    [TALLYD, "release", "--release", "v7", "--out", join(work, "none"), "--project", project],
    {
      encoding: "utf8",
      env: env(),
    },
  );
  assert.equal(result.status, 1, result.stderr);
  assert.match(
    result.stderr,
    /^Error: the chain cannot run as release "v7": unknown release "v7" \(TALLYD_RELEASE\): expected one of v1, v2\n$/,
  );
  assert.equal(existsSync(join(work, "none")), false);
});
