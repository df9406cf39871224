// The package as a chain developer outside this repository gets it (docs/BUILD-A-CHAIN.md, "0. The package"):
// `npm run build && npm pack ./dist`, the tarball installed into a fresh project, and the guestbook example
// (examples/guestbook: its module, its generated protobuf code, its CLI, its releases, its binary) copied there as
// the developer's own chain. It must type-check with the package's shipped types (`tsc --noEmit`), resolve
// `chaind/...` into node_modules (where Node strips no types, so the package must hold JavaScript), run its binary,
// start a node and dry-run its upgrade.
//
// The tarball comes from the same build the release tests pack (support/project-build.ts: dist/ when current, else
// a private compile). Installing it is what `npm install <tarball>` does without the registry: unpacked into
// node_modules/chaind, and each dependency its manifest names linked from this checkout's node_modules — so a
// dependency missing from the packed manifest fails here as it would for the developer.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { cp, mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { x as untar } from "tar";
import {
  bannerEndpoints,
  type ChainBinary,
  killAllStarted,
  LOOPBACK_PORT_FLAGS,
  spawnChainBinary,
  tempDir,
  waitForHeight,
} from "../../src/testing/index.ts";
import { PROJECT, projectToPackage } from "./support/project-build.ts";

const run = promisify(execFile);

let dir: Awaited<ReturnType<typeof tempDir>>;
/** The developer's project: package.json, tsconfig.json, node_modules/chaind from the tarball, the guestbook chain. */
let app: string;
let packed: { exports: Record<string, string>; dependencies: Record<string, string>; bin: Record<string, string> };
let files: string[];

before(async () => {
  dir = await tempDir("chaind-packed-");
  const root = await projectToPackage(dir.path);
  const { stdout } = await run("npm", ["pack", join(root, "dist"), "--pack-destination", dir.path, "--json"], {
    cwd: dir.path,
    maxBuffer: 64 << 20,
  });
  const [report] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  files = report.files.map((file) => file.path);

  app = join(dir.path, "app");
  const installed = join(app, "node_modules", "chaind");
  await mkdir(installed, { recursive: true });
  await untar({ file: join(dir.path, report.filename), cwd: installed, strip: 1 });
  packed = JSON.parse(await readFile(join(installed, "package.json"), "utf8"));
  // @types/node: the developer's own dev dependency, for their tsc.
  for (const dependency of [...Object.keys(packed.dependencies ?? {}), "@types/node"]) {
    const link = join(app, "node_modules", dependency);
    await mkdir(join(link, ".."), { recursive: true });
    await symlink(join(PROJECT, "node_modules", dependency), link);
  }
  for (const part of ["app.ts", "modules", "cmd", "client", "gen"]) {
    await cp(join(PROJECT, "examples", "guestbook", part), join(app, part), { recursive: true });
  }
  // The project files as docs/BUILD-A-CHAIN.md shows them.
  await writeFile(join(app, "package.json"), JSON.stringify({ name: "guestbook", private: true, type: "module" }));
  await writeFile(
    join(app, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "es2023",
        module: "nodenext",
        strict: true,
        noEmit: true,
        allowImportingTsExtensions: true,
        verbatimModuleSyntax: true,
        erasableSyntaxOnly: true,
        types: ["node"],
      },
    }),
  );
});

after(async () => {
  await killAllStarted();
  await dir?.remove();
});

const GUESTBOOKD = (): ChainBinary => ({
  node: process.execPath,
  entry: join(app, "cmd", "guestbookd.ts"),
  cwd: app,
  releaseEnv: "GUESTBOOK_RELEASE",
});

test("the tarball holds compiled JavaScript with its types, every export and bin in it, and no TypeScript source", () => {
  const sources = files.filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"));
  assert.deepEqual(sources, [], "Node refuses to strip types under node_modules");
  for (const [subpath, target] of Object.entries(packed.exports)) {
    if (subpath === "./package.json" || subpath.endsWith("*")) continue;
    const file = target.replace(/^\.\//, "");
    assert.ok(files.includes(file), `${subpath} → ${file} is in the tarball`);
    assert.ok(files.includes(file.replace(/\.js$/, ".d.ts")), `${subpath} has its .d.ts`);
  }
  for (const target of Object.values(packed.bin)) assert.ok(files.includes(target), `bin ${target} is in the tarball`);
  assert.ok(files.includes("src/gen/chain/upgrade/v1beta1/tx_pb.d.ts"), "chaind/gen/* carries its types");
  assert.deepEqual(
    Object.keys(packed.dependencies).sort(),
    Object.keys(JSON.parse(readFileSync(join(PROJECT, "package.json"), "utf8")).dependencies).sort(),
    "the root manifest's runtime dependencies",
  );
});

/** Values the docs tell a chain developer to import (BUILD-A-CHAIN.md, src/x/upgrade/README.md, AppModule's TSDoc). */
const DOCUMENTED: Record<string, string[]> = {
  "chaind/runtime": ["defineChain", "withMigrations", "buildChainApp", "useChain", "chainIdentity"],
  "chaind/release": ["buildRelease", "archiveName", "executableName"],
  "chaind/client/crypto": ["addressToBech32", "bech32PrefixesOf", "currentBech32Prefixes"],
  "chaind/app": ["ModuleManager", "createApp", "HaltError"],
  "chaind/x/upgrade": [
    "installUpgrades",
    "UpgradeKeeper",
    "createUpgradeModule",
    "upgradeStoreLoader",
    "UPGRADE_EXIT_CODES",
    "UpgradeHaltError",
  ],
  "chaind/store": ["openMultiStore", "readCommittedStoreNames"],
  "chaind/cli": ["runCli", "lazyChain"],
  "chaind/node": ["startNode", "initNode", "prepareDevHome", "dryRunUpgrade"],
  "chaind/testing": [
    "startTestNode",
    "spawnChainBinary",
    "scheduleUpgradeByVote",
    "broadcastAndWait",
    "prepareTestChainHome",
    "testKey",
    "signTx",
  ],
};

test("every name the docs import is exported by the installed package", async () => {
  const script = `const wanted = ${JSON.stringify(DOCUMENTED)}; const missing = [];
    for (const [entry, names] of Object.entries(wanted)) {
      const module = await import(entry);
      for (const name of names) if (!(name in module)) missing.push(entry + " " + name);
    }
    console.log(JSON.stringify(missing));`;
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: app });
  assert.deepEqual(JSON.parse(stdout), []);
});

test("the developer's chain type-checks against the package's shipped types", async () => {
  const tsc = join(PROJECT, "node_modules", "typescript", "bin", "tsc");
  const result = await run(process.execPath, [tsc, "--noEmit", "-p", app], { cwd: app }).catch(
    (err: { stdout: string; stderr: string }) => err,
  );
  assert.equal(`${result.stdout}${result.stderr}`, "", "tsc --noEmit reports nothing");
});

test("the chain's binary runs from the installed package, starts a node and dry-runs its upgrade", async () => {
  const { stdout: resolved } = await run(
    process.execPath,
    ["--input-type=module", "-e", 'console.log(import.meta.resolve("chaind/runtime"))'],
    { cwd: app },
  );
  assert.match(resolved.trim(), /\/app\/node_modules\/chaind\/src\/runtime\/index\.js$/);

  const userHome = join(dir.path, "user");
  const version = await spawnChainBinary(GUESTBOOKD(), ["version", "--long"], { userHome }).exited;
  assert.equal(version.code, 0, version.stderr);
  assert.match(version.stdout, /^name: guestbookd$/m);
  assert.match(version.stdout, /^release: v1$/m);

  const home = join(dir.path, "home");
  const node = spawnChainBinary(GUESTBOOKD(), ["dev", "--home", home, ...LOOPBACK_PORT_FLAGS], { userHome });
  const { rpc } = await bannerEndpoints(node);
  await waitForHeight(rpc, 2n);
  node.signal("SIGTERM");
  assert.equal((await node.exited).code, 0, node.stderr.slice(-3000));

  const dryRun = await spawnChainBinary(GUESTBOOKD(), ["upgrade", "dry-run", "v2", "--home", home], {
    userHome,
    env: { GUESTBOOK_RELEASE: "v2" },
  }).exited;
  assert.equal(dryRun.code, 0, dryRun.stderr.slice(-3000));
  assert.match(dryRun.stdout, /renamed \[entries_v1 -> guestbook\]/);
  assert.match(dryRun.stdout, /^ {2}guestbook +1 -> 2 +\*$/m);
});
