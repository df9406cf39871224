import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { loadAppConfig } from "./app-config.ts";
import { ConfigError } from "./errors.ts";
import { loadGenesis } from "./genesis.ts";
import { defaultHome, ensureHome, homePaths, resolveHome } from "./home.ts";
import { initHome } from "./init-home.ts";
import { loadNodeConfig } from "./node-config.ts";
import { loadNodeKey, loadPrivValidatorKey } from "./node-keys.ts";
import { loadPrivValidatorState } from "./priv-validator-state.ts";

describe("home paths", () => {
  test("the layout of docs/CONTRACT.md §1", () => {
    const paths = homePaths("/srv/h");
    assert.deepEqual(paths, {
      home: "/srv/h",
      configDir: "/srv/h/config",
      dataDir: "/srv/h/data",
      appToml: "/srv/h/config/app.toml",
      configToml: "/srv/h/config/config.toml",
      genesis: "/srv/h/config/genesis.json",
      privValidatorKey: "/srv/h/config/priv_validator_key.json",
      nodeKey: "/srv/h/config/node_key.json",
      addrBook: "/srv/h/config/addrbook.json",
      gentxDir: "/srv/h/config/gentx",
      privValidatorState: "/srv/h/data/priv_validator_state.json",
      applicationDb: "/srv/h/data/application.db",
      blocksDb: "/srv/h/data/blocks.db",
      upgradeInfo: "/srv/h/data/upgrade-info.json",
      keyringTestDir: "/srv/h/keyring-test",
      keyringFileDir: "/srv/h/keyring-file",
    });
  });

  test("default and flag resolution", () => {
    assert.equal(defaultHome(), join(homedir(), ".chaind"));
    assert.equal(homePaths().home, join(homedir(), ".chaind"));
    assert.equal(resolveHome(undefined), join(homedir(), ".chaind"));
    assert.equal(resolveHome(""), join(homedir(), ".chaind"));
    assert.equal(resolveHome("~/n1"), join(homedir(), "n1"));
    assert.equal(resolveHome("rel/dir"), resolve("rel/dir"));
  });
});

describe("ensureHome and initHome", () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), "chaind-home-"));
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  test("ensureHome creates config/ and data/ owner-only, and keeps what exists", async () => {
    const home = join(root, "ensure");
    const paths = await ensureHome(home);
    assert.equal((await stat(paths.configDir)).mode & 0o777, 0o700);
    assert.equal((await stat(paths.dataDir)).mode & 0o777, 0o700);
    await writeFile(join(paths.dataDir, "keep"), "x");
    await ensureHome(home);
    assert.deepEqual(await readdir(paths.dataDir), ["keep"]);
  });

  test("initHome writes a home every loader accepts", async () => {
    const home = join(root, "init");
    const result = await initHome({
      home,
      moniker: "node0",
      chainId: "chain-1",
      appState: { upgrade: {} },
      appToml: { "minimum-gas-prices": "0stake" },
      configToml: { "consensus.timeout_commit": "200ms" },
    });
    const paths = result.paths;
    assert.deepEqual(
      result.written.sort(),
      [
        paths.appToml,
        paths.configToml,
        paths.genesis,
        paths.nodeKey,
        paths.privValidatorKey,
        paths.privValidatorState,
      ].sort(),
    );
    const app = await loadAppConfig(home);
    assert.deepEqual(app.minimumGasPrices, [{ denom: "stake", amount: "0" }]);
    const node = await loadNodeConfig(home);
    assert.equal(node.moniker, "node0");
    assert.equal(node.consensus.timeoutCommitMs, 200);
    const genesis = await loadGenesis(paths.genesis);
    assert.equal(genesis.chainId, "chain-1");
    assert.deepEqual(genesis.appState, { upgrade: {} });
    assert.equal((await loadNodeKey(paths.nodeKey)).id, result.nodeKey.id);
    assert.deepEqual((await loadPrivValidatorKey(paths.privValidatorKey)).address, result.validatorKey.address);
    assert.equal((await loadPrivValidatorState(paths.privValidatorState)).height, 0n);
    assert.deepEqual(
      (await readdir(paths.configDir)).filter((name) => name.includes(".tmp-")),
      [],
    );
  });

  test("a second init refuses to replace the genesis; with overwrite it keeps keys and settings", async () => {
    const home = join(root, "twice");
    const first = await initHome({ home, moniker: "a", chainId: "chain-a" });
    const paths = first.paths;
    await writeFile(
      paths.appToml,
      (await readFile(paths.appToml, "utf8")).replace("halt-height = 0", "halt-height = 9"),
    );
    const genesisBefore = await readFile(paths.genesis, "utf8");
    await assert.rejects(initHome({ home, moniker: "b", chainId: "chain-b" }), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.message, `${paths.genesis}: genesis.json file already exists; pass --overwrite to replace it`);
      return true;
    });
    assert.equal(await readFile(paths.genesis, "utf8"), genesisBefore);
    const second = await initHome({ home, moniker: "b", chainId: "chain-b", overwrite: true });
    assert.equal(second.nodeKey.id, first.nodeKey.id);
    assert.deepEqual(second.validatorKey.publicKey, first.validatorKey.publicKey);
    assert.equal((await loadGenesis(paths.genesis)).chainId, "chain-b");
    assert.equal((await loadNodeConfig(home)).moniker, "b");
    assert.equal((await loadAppConfig(home)).haltHeight, 9n, "an existing app.toml is kept");
    assert.deepEqual(second.written, [paths.configToml, paths.genesis]);
  });
});
