// Whether this node is ready for a plan (local-readiness.ts), on real files: a release staged the way chainvisor and
// cosmovisor stage it, executable or not, with the plan Info's checksum matching or not.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { expectedDigest, goPlatform, localReadiness, stagedReleasePath } from "./local-readiness.ts";

let root: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), "local-readiness-"));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

const RELEASE = "#!/bin/sh\necho v2\n";
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const infoWith = (url: string) => JSON.stringify({ binaries: { "linux/amd64": url } });
const nothingCarried = () => false;

async function stage(home: string, plan: string, mode = 0o755): Promise<string> {
  const path = stagedReleasePath(plan, { DAEMON_HOME: home, DAEMON_NAME: "chaind" }) as string;
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, RELEASE);
  await chmod(path, mode);
  return path;
}

describe("local readiness", () => {
  it("is ready by its own binary when it carries the plan's upgrade, and for nothing without a plan", async () => {
    const carries = (name: string) => name === "v2";
    assert.deepEqual(await localReadiness({ plan: { name: "v2", info: "" }, carries, env: {} }), {
      plan: "v2",
      binary: true,
      staged: false,
    });
    assert.deepEqual(await localReadiness({ plan: { name: "v3", info: "" }, carries, env: {} }), {
      plan: "",
      binary: false,
      staged: false,
    });
    assert.equal((await localReadiness({ plan: undefined, carries, env: {} })).plan, "");
  });

  it("is ready by a staged release only under a supervisor, when it is executable and its checksum fits", async () => {
    const home = join(root, "visor");
    const env = { DAEMON_HOME: home, DAEMON_NAME: "chaind" };
    const plan = (info: string) => ({ name: "V2", info });
    const ready = async (info: string, environment: Record<string, string> = env) =>
      (await localReadiness({ plan: plan(info), carries: nothingCarried, env: environment, platform: "linux/amd64" }))
        .staged;

    assert.equal(await ready(""), false, "nothing staged yet");
    const path = await stage(home, "V2", 0o644);
    assert.equal(path, join(home, "cosmovisor", "upgrades", "v2", "bin", "chaind"), "the directory is lower-cased");
    assert.equal(await ready(""), false, "not executable");
    await chmod(path, 0o755);
    assert.equal(await ready(""), true);
    assert.equal(await ready("", { DAEMON_HOME: home }), false, "DAEMON_NAME missing: no supervisor");
    assert.equal(await ready("", { DAEMON_NAME: "chaind" }), false, "DAEMON_HOME missing: no supervisor");

    const good = infoWith(`https://example.com/chaind?checksum=sha256:${sha256(RELEASE)}`);
    const bad = infoWith(`https://example.com/chaind?checksum=sha256:${sha256("another release")}`);
    assert.equal(await ready(good), true, "checksum matches");
    assert.equal(await ready(bad), false, "checksum differs");
    // The same file again after a change: the cached verdict must not survive the change.
    await writeFile(path, "#!/bin/sh\necho another release, same length!!\n");
    assert.equal(await ready(good), false, "the staged file changed");
    await writeFile(path, RELEASE);
    assert.equal(await ready(good), true);
    const archive = infoWith(`https://example.com/chaind.tar.gz?checksum=sha256:${sha256("the archive")}`);
    assert.equal(await ready(archive), true, "an archive's digest says nothing of the binary in it");
    // chainvisor's layout counts as well.
    const other = join(root, "chainvisor-home");
    const chainvisorPath = stagedReleasePath(
      "V2",
      { DAEMON_HOME: other, DAEMON_NAME: "chaind" },
      "chainvisor",
    ) as string;
    assert.equal(chainvisorPath, join(other, "chainvisor", "upgrades", "v2", "bin", "chaind"));
    await mkdir(dirname(chainvisorPath), { recursive: true });
    await writeFile(chainvisorPath, RELEASE);
    await chmod(chainvisorPath, 0o755);
    assert.equal(await ready(good, { DAEMON_HOME: other, DAEMON_NAME: "chaind" }), true);
    assert.deepEqual(await localReadiness({ plan: plan(good), carries: () => true, env, platform: "linux/amd64" }), {
      plan: "V2",
      binary: true,
      staged: true,
    });
  });

  it("reads the expected digest for this platform, else `any`, in each checksum spelling", () => {
    const digest = sha256(RELEASE);
    const long = "ab".repeat(64);
    assert.deepEqual(expectedDigest(infoWith(`https://x/c?checksum=sha256:${digest}`), "linux/amd64"), {
      algorithm: "sha256",
      hex: digest,
    });
    assert.deepEqual(expectedDigest(infoWith(`https://x/c?checksum=${long.toUpperCase()}`), "linux/amd64"), {
      algorithm: "sha512",
      hex: long,
    });
    assert.equal(expectedDigest(infoWith(`https://x/c?checksum=sha256:${digest}`), "darwin/arm64"), undefined);
    const any = JSON.stringify({ binaries: { any: `file:///opt/c?checksum=sha256:${digest}` } });
    assert.equal(expectedDigest(any, "darwin/arm64")?.hex, digest);
    for (const info of ["", "not json", "{}", '{"binaries":[]}', infoWith("https://x/c"), infoWith("not a url")]) {
      assert.equal(expectedDigest(info, "linux/amd64"), undefined, info);
    }
    assert.equal(goPlatform("linux", "x64"), "linux/amd64");
    assert.equal(goPlatform("darwin", "arm64"), "darwin/arm64");
  });
});
