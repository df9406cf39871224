// Chain definitions, release selection, withMigrations and the app builder's module set.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { pino } from "pino";
import type { AppModule } from "../app/module.ts";
import { bankModule } from "../x/bank/module.ts";
import { buildChainApp } from "./build-app.ts";
import { currentRelease, defineChain, type Release, ReleaseSelectionError, releaseNamed } from "./release.ts";
import { withMigrations } from "./with-migrations.ts";

const extra = (name: string, storeKey = name): AppModule => ({
  name,
  consensusVersion: 1n,
  storeKeys: [storeKey],
  defaultGenesis: () => ({}),
  validateGenesis: () => {},
  initGenesis: async () => undefined,
  exportGenesis: async () => ({}),
  registerServices: () => {},
});

const v1: Release = { name: "v1", version: "1.0.0", modules: () => [extra("notes", "notes_v1")] };
const v2: Release = {
  name: "v2",
  version: "2.0.0",
  upgradesFrom: ["v1"],
  modules: ({ bankKeeper }) => [
    withMigrations(bankModule(bankKeeper), { consensusVersion: 2n, migrations: [{ from: 1n, run: async () => {} }] }),
    extra("notes"),
  ],
  upgrade: {
    name: "v2",
    storeUpgrades: { added: [], renamed: [{ oldKey: "notes_v1", newKey: "notes" }], deleted: [] },
  },
};

let home: string;
before(async () => {
  home = await mkdtemp(join(tmpdir(), "runtime-"));
});
after(async () => {
  await rm(home, { recursive: true, force: true });
});

test("defineChain refuses an empty chain, a duplicate release, an unknown predecessor or default", () => {
  assert.throws(() => defineChain({ name: "c", releases: [] }), /chain "c" has no release: expected at least one/);
  assert.throws(() => defineChain({ name: "c", releases: [v1, v1] }), /release "v1" is listed twice/);
  assert.throws(
    () => defineChain({ name: "c", releases: [{ ...v2, upgradesFrom: ["v0"] }] }),
    /release "v2" upgrades from unknown release "v0"/,
  );
  assert.throws(
    () => defineChain({ name: "c", releases: [v1], defaultRelease: "v9" }),
    /default release "v9" is not one of its releases/,
  );
});

test("defineChain refuses a release with a predecessor but no upgrade, and an upgrade named by two releases", () => {
  assert.throws(
    () => defineChain({ name: "c", releases: [v1, { ...v2, upgrade: undefined }] }),
    /release "v2" upgrades from "v1" but names no `upgrade`: expected the upgrade that enters it/,
  );
  const v3: Release = { name: "v3", version: "3.0.0", upgradesFrom: ["v2"], upgrade: { name: "v2" } };
  assert.throws(
    () => defineChain({ name: "c", releases: [v1, v2, v3] }),
    /releases "v2" and "v3" both name upgrade "v2": a release names only the upgrade it adds/,
  );
});

test("the release variable picks the release; unset is the default; an unknown name lists the known ones", () => {
  const chain = defineChain({ name: "c", releases: [v1, v2], defaultRelease: "v1", releaseEnv: "C_RELEASE" });
  assert.equal(releaseNamed(chain, undefined).name, "v1");
  assert.equal(releaseNamed(chain, "").name, "v1");
  assert.equal(currentRelease(chain, { C_RELEASE: "v2" }).name, "v2");
  assert.throws(
    () => currentRelease(chain, { C_RELEASE: "v3" }),
    (err: unknown) =>
      err instanceof ReleaseSelectionError &&
      err.exitCode === 1 &&
      err.message === 'unknown release "v3" (C_RELEASE): expected one of v1, v2',
  );
});

test("withMigrations refuses a step that does not lead up to the declared version", () => {
  const module = extra("m");
  assert.throws(
    () => withMigrations(module, { consensusVersion: 2n, migrations: [{ from: 2n, run: async () => {} }] }),
    /module "m": a migration from version 2 does not lead to a version up to 2/,
  );
});

test("buildChainApp: standard modules plus the release's, a same-named module replaces the standard one", async () => {
  const chain = defineChain({ name: "c", releases: [v1, v2] });
  const build = (release: Release) =>
    buildChainApp({
      chain,
      release,
      home,
      chainId: "c-1",
      logger: pino({ level: "silent" }),
      backend: "memory",
      deferLoad: true,
    });
  const one = await build(v1);
  assert.deepEqual(
    one.moduleManager.modules().map((m) => m.name),
    ["auth", "bank", "staking", "gov", "upgrade", "notes", "genutil"],
  );
  assert.equal(one.moduleManager.getVersionMap().get("bank"), 1n);
  const two = await build(v2);
  assert.equal(two.moduleManager.getVersionMap().get("bank"), 2n);
  assert.ok(two.moduleManager.storeKeys().includes("notes"));
  assert.equal(two.app.version, "2.0.0");
  await assert.rejects(
    build({ name: "bad", version: "0", modules: () => [extra("gov")] }),
    /release "bad" replaces gov or genutil/,
  );
});

test("a chain's module CLIs: the standard ones, one replaced in place by name, then the chain's own", async () => {
  const { chainModuleClis, STANDARD_MODULE_CLIS } = await import("./standard-module-clis.ts");
  const ref = (name: string) => ({ name, types: async () => [], load: async () => ({}) });
  assert.deepEqual(
    chainModuleClis({ name: "c" }).map((cli) => cli.name),
    ["auth", "bank", "gov", "staking", "upgrade"],
  );
  const own = chainModuleClis({ name: "c", moduleClis: [ref("notes"), ref("bank")] });
  assert.deepEqual(
    own.map((cli) => cli.name),
    ["auth", "bank", "gov", "staking", "upgrade", "notes"],
  );
  assert.notEqual(own[1], STANDARD_MODULE_CLIS[1]);
  assert.throws(() => chainModuleClis({ name: "c", moduleClis: [ref("notes"), ref("notes")] }), /listed twice/);
});
