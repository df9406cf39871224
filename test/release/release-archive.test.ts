// The real release, built from this tree: the single executable and the archive holding it as bin/chaind and
// bin/chainvisor. The executable is copied alone into an empty directory and run with a PATH whose `node` is a trap
// and a fresh cache: `version`, chainvisor by its name, and a dev chain on the bundled LevelDB addon.
import assert from "node:assert/strict";
import { type ChildProcess, type SpawnSyncReturns, spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { extract, list } from "tar";
import { type BuiltRelease, buildRelease, executableName, sha256File } from "../../scripts/release.ts";
import { projectToPackage } from "../e2e/support/project-build.ts";

const RELEASE = "v2";

let work: string;
let unpacked: string;
let alone: string;
let built: BuiltRelease;
let trapPath: string;
let cache: string;
let project: string;

function run(executable: string, args: string[], extraEnv: Record<string, string> = {}): SpawnSyncReturns<string> {
  return spawnSync(executable, args, {
    encoding: "utf8",
    cwd: work,
    env: {
      PATH: `${trapPath}:/usr/bin:/bin`,
      HOME: work,
      CHAIND_CACHE_DIR: cache,
      CHAIND_RELEASE: "v9-from-the-environment",
      ...extraEnv,
    },
    timeout: 120_000,
  });
}

function ok(result: SpawnSyncReturns<string>, what: string): string {
  assert.equal(result.status, 0, `${what} exited ${result.status}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), "chaind-release-archive-"));
  trapPath = join(work, "trap-bin");
  cache = join(work, "cache");
  mkdirSync(trapPath);
  writeFileSync(join(trapPath, "node"), "#!/bin/sh\necho 'the node on PATH was used' >&2\nexit 97\n");
  chmodSync(join(trapPath, "node"), 0o755);
  project = await projectToPackage(work);
  built = await buildRelease({ release: RELEASE, outDir: join(work, "out"), skipBuild: true, projectRoot: project });
  unpacked = join(work, "unpacked");
  mkdirSync(unpacked);
  await extract({ file: built.archive, cwd: unpacked });
  alone = join(work, "alone");
  mkdirSync(alone);
  copyFileSync(built.executable, join(alone, basename(built.executable)));
  chmodSync(join(alone, basename(built.executable)), 0o755);
});

after(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

test("a release the chain does not define is refused before anything is written", async () => {
  const out = join(work, "out-unknown");
  await assert.rejects(
    buildRelease({ release: "v9", outDir: out, skipBuild: true, projectRoot: project }),
    (err: Error) =>
      err.name === "ReleaseError" &&
      err.message ===
        'the chain cannot run as release "v9": unknown release "v9" (CHAIND_RELEASE): expected one of v1, v2',
  );
  assert.equal(existsSync(out), false);
});

test("the archive and the executable each come with a .sha256 in sha256sum's format", async () => {
  assert.equal(basename(built.executable), executableName(RELEASE));
  assert.equal(basename(built.executable), "chaind-v2-linux-amd64");
  assert.equal(built.sha256, await sha256File(built.archive));
  assert.equal(readFileSync(`${built.archive}.sha256`, "utf8"), `${built.sha256}  chaind-v2-linux-amd64.tar.gz\n`);
  assert.equal(built.executableSha256, await sha256File(built.executable));
  assert.equal(
    readFileSync(`${built.executable}.sha256`, "utf8"),
    `${built.executableSha256}  chaind-v2-linux-amd64\n`,
  );
  assert.equal(statSync(built.executable).mode & 0o777, 0o755);
});

test("the archive holds bin/chaind (the executable), bin/chainvisor (a hard link to it) and RELEASE", () => {
  const entries: Array<{ path: string; type: string; mode: number; linkpath?: string; mtime: number }> = [];
  list({
    file: built.archive,
    sync: true,
    onReadEntry: (entry) => {
      entries.push({
        path: entry.path,
        type: entry.type,
        mode: (entry.mode ?? 0) & 0o7777,
        linkpath: entry.linkpath,
        mtime: entry.mtime?.getTime() ?? -1,
      });
    },
  });
  assert.deepEqual(
    entries.map((entry) => [entry.path, entry.type]),
    [
      ["bin/", "Directory"],
      ["bin/chaind", "File"],
      ["bin/chainvisor", "Link"],
      ["RELEASE", "File"],
    ],
  );
  assert.equal(entries[1].mode, 0o755);
  assert.equal(entries[2].linkpath, "bin/chaind");
  assert.equal(entries[3].mode, 0o644);
  assert.equal(entries[1].mtime, entries[3].mtime, "every file has the same, fixed time");
  assert.equal(sha256Of(join(unpacked, "bin", "chaind")), built.executableSha256);
  assert.equal(statSync(join(unpacked, "bin", "chainvisor")).ino, statSync(join(unpacked, "bin", "chaind")).ino);
  const info = JSON.parse(readFileSync(join(unpacked, "RELEASE"), "utf8")) as Record<string, unknown>;
  assert.equal(info.release, RELEASE);
  assert.equal(info.platform, "linux/amd64");
  assert.match(String(info.node), /^v?24\./);
});

test("copied alone into an empty directory it runs `version` with its own release, never a node from PATH", () => {
  const executable = join(alone, "chaind-v2-linux-amd64");
  const long = ok(run(executable, ["version", "--long"]), "version --long");
  assert.match(long, /^release: v2$/m, "the release is baked in, whatever CHAIND_RELEASE says");
  assert.match(long, /^node: v24\./m);
  // Unpacked once, into one directory named after the release and the payload's hash; nothing left half-written.
  const unpackedDirs = readdirSync(cache);
  assert.equal(unpackedDirs.length, 1, unpackedDirs.join(", "));
  assert.match(unpackedDirs[0], /^v2-[0-9a-f]{16}$/);
  ok(run(executable, ["version"]), "version, from the cache");
  assert.deepEqual(readdirSync(cache), unpackedDirs);
  // Worker threads (signature checks, the store's leaf hashes) load their scripts from beside the bundled
  // chaind.js: without them the node still works, but on one thread.
  const files = readdirSync(join(cache, unpackedDirs[0]), { recursive: true }).map(String);
  const chaindScript = files.find((file) => basename(file) === "chaind.js");
  assert.ok(chaindScript !== undefined, files.join(", "));
  for (const worker of ["verify-worker.js", "leaf-hash-worker.js"]) {
    assert.ok(files.includes(join(dirname(chaindScript), worker)), `${worker} beside ${chaindScript}`);
  }
});

test("one file is both programs: named chainvisor (a hard link, as in the archive) it is chainvisor", () => {
  // `chainvisor version` prints its own version, then (like cosmovisor) asks the configured node's, which fails
  // here for want of DAEMON_HOME: only the first line matters.
  const chainvisor = join(unpacked, "bin", "chainvisor");
  assert.match(run(chainvisor, ["version"]).stdout, /^chainvisor version: /m);
  // Through a symlink (cosmovisor's and chainvisor's `current`) the name of the link decides, as with busybox.
  const links = join(work, "links");
  mkdirSync(links);
  symlinkSync(join(unpacked, "bin", "chaind"), join(links, "chaind"));
  linkSync(join(unpacked, "bin", "chaind"), join(links, "chainvisor-copy"));
  assert.match(ok(run(join(links, "chaind"), ["version", "--long"]), "via symlink"), /^release: v2$/m);
  assert.match(run(join(links, "chainvisor-copy"), ["version"]).stdout, /^chainvisor version: /m);
});

test("the single file runs a dev chain on its bundled LevelDB addon, and `status` reads it live and stopped", async () => {
  const executable = join(alone, "chaind-v2-linux-amd64");
  const home = join(work, "dev-home");
  const env = { PATH: `${trapPath}:/usr/bin:/bin`, HOME: work, CHAIND_CACHE_DIR: cache };
  const flags = [
    "--rpc.laddr",
    "tcp://127.0.0.1:0",
    "--api.address",
    "tcp://127.0.0.1:0",
    "--grpc.address",
    "127.0.0.1:0",
  ];
  const child: ChildProcess = spawn(executable, ["dev", "--home", home, ...flags], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((done) => child.on("close", (code) => done(code)));
  try {
    const rpc = await new Promise<string>((resolveRpc, reject) => {
      const check = () => {
        const match = /^ {2}consensus RPC +(\S+)$/m.exec(stdout);
        if (match) resolveRpc(match[1]);
      };
      child.stdout?.on("data", check);
      void exited.then((code) => reject(new Error(`dev exited ${code} before its banner:\n${stdout}\n${stderr}`)));
    });
    // Wait for a committed block through `status` itself (the executable again, from the cache).
    let height = 0n;
    for (let attempt = 0; attempt < 600 && height < 2n; attempt++) {
      const live = run(executable, ["status", "--node", rpc]);
      if (live.status === 0) height = BigInt(JSON.parse(live.stdout).sync_info.latest_block_height);
      if (height < 2n) await new Promise((wait) => setTimeout(wait, 100));
    }
    assert.ok(height >= 2n, `no block 2 seen:\n${stderr}`);
    assert.match(stdout, /Try:\n {2}\S*chaind-v2-linux-amd64 query bank balances/, "the hints name the executable");
  } finally {
    child.kill("SIGTERM");
  }
  assert.equal(await exited, 0, stderr);
  const stopped = ok(run(executable, ["status", "--node", "tcp://127.0.0.1:1", "--home", home]), "status --home");
  assert.ok(BigInt(JSON.parse(stopped).sync_info.latest_block_height) >= 2n);
});

function sha256Of(path: string): string {
  const result = spawnSync("sha256sum", [path], { encoding: "utf8" });
  return result.stdout.split(" ")[0];
}
