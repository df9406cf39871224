import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { StoreLoader } from "../../app/store-loader.ts";
import { UpgradeInfoFileError } from "./errors.ts";
import { installUpgrades } from "./install.ts";
import { UpgradeKeeper } from "./keeper.ts";
import { newPlan } from "./plan.ts";
import { releaseStoreLoader, upgradeStoreLoader } from "./store-loader.ts";
import { upgradeInfoPath } from "./upgrade-info-file.ts";

const upgrades = { added: ["fresh"], renamed: [{ oldKey: "a", newKey: "b" }], deleted: ["gone"] };
const none = { added: [], renamed: [], deleted: [] };
const decide = (loader: StoreLoader, lastCommittedHeight: bigint) =>
  loader({ lastCommittedHeight, options: { storeNames: ["b", "fresh"] } });

let root: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), "upgrade-loader-"));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

test("upgradeStoreLoader: the upgrades only when opening at H−1, and only when a list is non-empty", () => {
  const loader = upgradeStoreLoader(10n, upgrades);
  assert.deepEqual(decide(loader, 9n), upgrades);
  assert.equal(decide(loader, 8n), undefined);
  assert.equal(decide(loader, 10n), undefined);
  assert.equal(decide(loader, 11n), undefined);
  assert.equal(decide(upgradeStoreLoader(10n, none), 9n), undefined);
  assert.deepEqual(decide(upgradeStoreLoader(10n, { ...none, deleted: ["x"] }), 9n), { ...none, deleted: ["x"] });
});

test("releaseStoreLoader: installed only for this release's upgrade at a height that is not skipped", async () => {
  const home = join(root, "release");
  const keeper = new UpgradeKeeper({ home });
  const release = { keeper, upgradeName: "v2", storeUpgrades: upgrades };
  assert.equal(await releaseStoreLoader(release), undefined); // no file
  await keeper.dumpUpgradeInfoToDisk(12n, newPlan({ name: "v3", height: 12n }));
  assert.equal(await releaseStoreLoader(release), undefined); // another upgrade
  await keeper.dumpUpgradeInfoToDisk(12n, newPlan({ name: "v2", height: 12n }));
  const loader = await releaseStoreLoader(release);
  assert.ok(loader !== undefined);
  assert.deepEqual(decide(loader, 11n), upgrades);
  assert.equal(decide(loader, 12n), undefined);
  const skipping = new UpgradeKeeper({ home, skipUpgradeHeights: [12n] });
  assert.equal(await releaseStoreLoader({ ...release, keeper: skipping }), undefined);
});

test("an invalid upgrade-info.json at start is an error naming the file, and no store loader is installed", async () => {
  const home = join(root, "invalid");
  await mkdir(join(home, "data"), { recursive: true });
  await writeFile(upgradeInfoPath(home), '{"name":"","height":12}');
  const calls: string[] = [];
  const app = {
    setAppVersionProvider: () => calls.push("appVersion"),
    onInitChainVersionMap: () => calls.push("versionMap"),
    setStoreLoader: () => calls.push("storeLoader"),
  };
  await assert.rejects(
    installUpgrades(app, new UpgradeKeeper({ home }), [{ name: "v2", storeUpgrades: upgrades }], {
      migrator: { runMigrations: async (_ctx, fromVM) => fromVM },
      storeNames: ["b", "fresh"],
    }),
    (err: unknown) => {
      assert.ok(err instanceof UpgradeInfoFileError);
      assert.equal(
        err.message,
        `${upgradeInfoPath(home)}: invalid upgrade info: name cannot be empty: invalid request`,
      );
      return true;
    },
  );
  assert.deepEqual(calls, ["appVersion", "versionMap"]);
});

test("installUpgrades' storeLoader option: none, or the named upgrade at the given height, never reading upgrade-info.json", async () => {
  const home = join(root, "explicit");
  const keeper = new UpgradeKeeper({ home });
  // A file naming v2 at 12 is on disk; the explicit sources ignore it.
  await keeper.dumpUpgradeInfoToDisk(12n, newPlan({ name: "v2", height: 12n }));
  const install = async (storeLoader: Parameters<typeof installUpgrades>[3]["storeLoader"]) => {
    const loaders: StoreLoader[] = [];
    const app = {
      setAppVersionProvider: () => {},
      onInitChainVersionMap: () => {},
      setStoreLoader: (loader: StoreLoader) => void loaders.push(loader),
    };
    const installed = await installUpgrades(
      app,
      new UpgradeKeeper({ home }),
      [{ name: "v2", storeUpgrades: upgrades }],
      {
        migrator: { runMigrations: async (_ctx, fromVM) => fromVM },
        storeNames: ["b", "fresh"],
        storeLoader,
      },
    );
    return { loaders, installed };
  };

  const fromFile = await install(undefined);
  assert.equal(fromFile.installed.storeLoaderOf?.name, "v2");
  assert.deepEqual(decide(fromFile.loaders[0] as StoreLoader, 11n), upgrades);

  const noLoader = await install("none");
  assert.equal(noLoader.installed.storeLoaderOf, undefined);
  assert.equal(noLoader.loaders.length, 0);

  const explicit = await install({ upgrade: "v2", height: 40n });
  assert.equal(explicit.installed.storeLoaderOf?.name, "v2");
  assert.equal(explicit.loaders.length, 1);
  assert.deepEqual(decide(explicit.loaders[0] as StoreLoader, 39n), upgrades);
  assert.equal(decide(explicit.loaders[0] as StoreLoader, 11n), undefined, "the file's height is not used");

  await assert.rejects(install({ upgrade: "v3", height: 40n }), {
    message: 'cannot install the store loader of upgrade "v3": this release knows only "v2"',
  });
});
