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
