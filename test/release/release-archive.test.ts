// The real release, built from this tree: the single executable and the archive holding it as bin/chaind, with the
// bin/chainvisor script and RELEASE. The executable is copied alone into an empty directory and run with a PATH whose
// `node` is a trap and a fresh cache: `version`, chainvisor by its name, the cache's checks and repairs, and a dev
// chain on the bundled LevelDB addon.
import assert from "node:assert/strict";
import { type ChildProcess, type SpawnSyncReturns, spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
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
import {
  type BuiltRelease,
  buildRelease,
  CHAINVISOR_SCRIPT,
  executableName,
  sha256File,
} from "../../scripts/release.ts";
import { MALLOC_TRIM_ADDON } from "../../src/node/malloc-trim.ts";
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
        'the chain cannot run as release "v9": unknown release "v9" (CHAIND_RELEASE): expected one of v1, v2, v3',
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

test("the archive holds bin/chaind (the executable), bin/chainvisor (a script running it) and RELEASE", () => {
  const entries: Array<{ path: string; type: string; mode: number; mtime: number }> = [];
  list({
    file: built.archive,
    sync: true,
    onReadEntry: (entry) => {
      entries.push({
        path: entry.path,
        type: entry.type,
        mode: (entry.mode ?? 0) & 0o7777,
        mtime: entry.mtime?.getTime() ?? -1,
      });
    },
  });
  // Only directories and regular files: cosmovisor's unpacker (go-getter) writes links as empty files.
  assert.deepEqual(
    entries.map((entry) => [entry.path, entry.type]),
    [
      ["bin/", "Directory"],
      ["bin/chaind", "File"],
      ["bin/chainvisor", "File"],
      ["RELEASE", "File"],
    ],
  );
  assert.equal(entries[1].mode, 0o755);
  assert.equal(entries[2].mode, 0o755);
  assert.equal(entries[3].mode, 0o644);
  assert.equal(entries[1].mtime, entries[3].mtime, "every file has the same, fixed time");
  assert.equal(sha256Of(join(unpacked, "bin", "chaind")), built.executableSha256);
  assert.equal(readFileSync(join(unpacked, "bin", "chainvisor"), "utf8"), CHAINVISOR_SCRIPT);
  const info = JSON.parse(readFileSync(join(unpacked, "RELEASE"), "utf8")) as Record<string, unknown>;
  assert.equal(info.release, RELEASE);
  assert.equal(info.platform, "linux/amd64");
  assert.match(String(info.node), /^v?24\./);
});

test("RELEASE's version is the one the release's `chaind version` prints; the package's is beside it", () => {
  const info = JSON.parse(readFileSync(join(unpacked, "RELEASE"), "utf8")) as Record<string, unknown>;
  const printed = ok(run(join(unpacked, "bin", "chaind"), ["version"]), "version").trim();
  assert.equal(printed, "2.0.0");
  assert.equal(info.version, printed);
  const pkg = JSON.parse(readFileSync(join(project, "package.json"), "utf8")) as { version: string };
  assert.equal(info.package_version, pkg.version);
  const visor = ok(run(join(unpacked, "bin", "chainvisor"), ["version", "--no-app-version"]), "chainvisor version");
  assert.equal(visor, `chainvisor version: ${info.package_version}\n`);
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

test("one file is both programs: the archive's bin/chainvisor, or the file under a name starting with chainvisor", () => {
  // `chainvisor version` prints its own version, then (like cosmovisor) asks the configured node's: here a chainvisor
  // home whose genesis is the same executable. It must answer as chaind: the script's CHAIND_PROGRAM is not passed on.
  const daemonHome = join(work, "visor-home");
  mkdirSync(join(daemonHome, "chainvisor", "genesis", "bin"), { recursive: true });
  copyFileSync(built.executable, join(daemonHome, "chainvisor", "genesis", "bin", "chaind"));
  chmodSync(join(daemonHome, "chainvisor", "genesis", "bin", "chaind"), 0o755);
  const visorEnv = { DAEMON_HOME: daemonHome, DAEMON_NAME: "chaind" };
  const chainvisor = join(unpacked, "bin", "chainvisor");
  assert.match(
    ok(run(chainvisor, ["version"], visorEnv), "bin/chainvisor version"),
    /^chainvisor version: \S+\n2\.0\.0\n$/,
  );
  // Through a symlink from elsewhere (/usr/local/bin/chainvisor -> the release's bin/chainvisor).
  const links = join(work, "links");
  mkdirSync(links);
  symlinkSync(chainvisor, join(links, "visor"));
  assert.match(
    ok(run(join(links, "visor"), ["version"], visorEnv), "via a symlink to the script"),
    /^chainvisor version: /,
  );
  // Through a symlink (cosmovisor's and chainvisor's `current`) the name of the link decides, as with busybox.
  symlinkSync(join(unpacked, "bin", "chaind"), join(links, "chaind"));
  linkSync(join(unpacked, "bin", "chaind"), join(links, "chainvisor-copy"));
  assert.match(ok(run(join(links, "chaind"), ["version", "--long"]), "via symlink"), /^release: v2$/m);
  assert.match(run(join(links, "chainvisor-copy"), ["version"]).stdout, /^chainvisor version: /m);
});

test("a damaged cache is repaired before it runs: a changed chaind.js, a deleted LevelDB addon", () => {
  const executable = join(alone, "chaind-v2-linux-amd64");
  ok(run(executable, ["version"]), "version");
  const [name] = readdirSync(cache);
  const dir = join(cache, name);
  // The probe's tampering: a line after the shebang of the unpacked chaind.js.
  const script = join(dir, "chaind.js");
  const original = readFileSync(script, "utf8");
  const lines = original.split("\n");
  lines.splice(1, 0, 'process.stderr.write("TAMPERED CODE RAN\\n");');
  writeFileSync(script, lines.join("\n"));
  const afterTamper = run(executable, ["version"]);
  assert.equal(afterTamper.status, 0, afterTamper.stderr);
  assert.doesNotMatch(afterTamper.stderr, /TAMPERED/);
  assert.equal(readFileSync(script, "utf8"), original);
  // The probe's other damage: without the addon every command failed with a stack until the directory was removed.
  const addon = join(dir, "prebuilds", "linux-x64", "classic-level.node");
  const addonBytes = readFileSync(addon);
  rmSync(addon);
  const afterDelete = run(executable, ["version"]);
  assert.equal(afterDelete.status, 0, afterDelete.stderr);
  assert.deepEqual(readFileSync(addon), addonBytes);
  assert.deepEqual(readdirSync(cache), [name], "repaired in place, nothing left beside it");
});

test("a planted world-writable cache root in the tmp fallback is refused: one clear message, exit 126", () => {
  const executable = join(alone, "chaind-v2-linux-amd64");
  const [name] = readdirSync(cache);
  // HOME unusable (procfs), so the launcher falls back to $TMPDIR/chaind-cache-<uid>, planted by another user with
  // a copy of the real files whose chaind.js is tampered.
  const tmp = join(work, "shared-tmp");
  const planted = join(tmp, `chaind-cache-${process.getuid?.() ?? 0}`);
  mkdirSync(planted, { recursive: true });
  spawnSync("cp", ["-a", join(cache, name), join(planted, name)]);
  const script = join(planted, name, "chaind.js");
  writeFileSync(
    script,
    readFileSync(script, "utf8").replace("\n", '\nprocess.stderr.write("TAMPERED CODE RAN\\n");\n'),
  );
  chmodSync(planted, 0o777);
  const result = run(executable, ["version"], { CHAIND_CACHE_DIR: "", HOME: "/proc", TMPDIR: tmp });
  assert.equal(result.status, 126, result.stderr);
  assert.doesNotMatch(result.stderr, /TAMPERED/);
  assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack");
  assert.match(result.stderr, /^chaind: cannot unpack the release into any cache directory/);
  assert.match(
    result.stderr,
    new RegExp(
      `${planted}: refused, since another user could change the code it runs: it is writable by group or others \\(mode 0777\\)`,
    ),
  );
});

test("a cache root owned by another user is refused with a warning, and the next root is used", {
  skip: process.getuid?.() === 0 ? false : "needs root to give a directory to another user",
}, () => {
  const executable = join(alone, "chaind-v2-linux-amd64");
  const planted = join(work, "nobody-cache");
  mkdirSync(planted, { mode: 0o755 });
  chmodSync(planted, 0o755);
  chownSync(planted, 65534, 65534);
  const home = join(work, "fallback-home");
  mkdirSync(home);
  const result = run(executable, ["version"], { CHAIND_CACHE_DIR: planted, HOME: home });
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stdout, "2.0.0\n");
  assert.equal(
    result.stderr,
    `chaind: warning: cache directory ${planted}: refused, since another user could change the code it runs: it is owned by uid 65534, not by this user (uid 0)\n`,
  );
  assert.equal(readdirSync(join(home, ".cache", "chaind")).length, 1);
});

test("HOME and TMPDIR on procfs: the launcher stops at once with exit 126 instead of spinning", () => {
  const result = run(join(alone, "chaind-v2-linux-amd64"), ["version"], {
    CHAIND_CACHE_DIR: "",
    HOME: "/proc",
    TMPDIR: "/proc",
  });
  assert.equal(result.signal, null, "it looped until the timeout killed it");
  assert.equal(result.status, 126, result.stderr);
  assert.match(result.stderr, /^chaind: cannot unpack the release into any cache directory/);
  assert.match(result.stderr, /\/proc\/\.cache\/chaind: /);
});

test("the single file runs a dev chain on its bundled LevelDB addon, and `status` reads it live and stopped", async () => {
  const executable = join(alone, "chaind-v2-linux-amd64");
  const home = join(work, "dev-home");
  const env = { PATH: `${trapPath}:/usr/bin:/bin`, HOME: work, CHAIND_CACHE_DIR: cache };
  const flags = [
    // Debug: the node says there why it has no malloc_trim (below).
    "--log_level",
    "debug",
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
    // The malloc-trim addon, when the framework's build compiled it (a C compiler on glibc), is carried and loads
    // from the unpacked bundle; otherwise the node says why at debug level and runs without it.
    if (existsSync(join(project, "dist", MALLOC_TRIM_ADDON))) {
      assert.doesNotMatch(stderr, /no malloc_trim/, "the bundled malloc-trim addon loads");
    } else {
      assert.match(stderr, /no malloc_trim after heap reductions/);
    }
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
