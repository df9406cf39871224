import assert from "node:assert/strict";
import { chmod, mkdir, mkdtemp, readlink, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { VisorError } from "./errors.ts";
import {
  ensureBinary,
  readCurrentRelease,
  switchCurrent,
  upgradeDirName,
  upgradeTarget,
  visorLayout,
} from "./layout.ts";

describe("upgradeDirName", () => {
  it("lower-cases and escapes like Go's url.PathEscape", () => {
    assert.equal(upgradeDirName("MyUpgrade"), "myupgrade");
    assert.equal(upgradeDirName("v2.0.1-rc_1~x"), "v2.0.1-rc_1~x");
    assert.equal(upgradeDirName("some spaces"), "some%20spaces");
    assert.equal(upgradeDirName("a/b"), "a%2Fb");
    assert.equal(upgradeDirName("x;y,z?"), "x%3By%2Cz%3F");
    assert.equal(upgradeDirName("$&+:=@"), "$&+:=@");
    assert.equal(upgradeDirName("Ü"), "%C3%BC");
  });

  it("refuses names that could escape upgrades/ or hide", () => {
    assert.throws(() => upgradeDirName(""), { message: "upgrade name cannot be empty" });
    assert.throws(() => upgradeDirName(".."), /must not start with "."/);
    assert.throws(() => upgradeDirName(".download-x"), /must not start with "."/);
  });
});

describe("current link and binaries", () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), "chainvisor-layout-"));
    await mkdir(join(home, "chainvisor", "genesis", "bin"), { recursive: true });
    await mkdir(join(home, "chainvisor", "upgrades", "v2", "bin"), { recursive: true });
  });
  afterEach(() => rm(home, { recursive: true, force: true }));

  it("creates current -> genesis when missing and switches atomically with relative targets", async () => {
    const layout = visorLayout(home, "chaind");
    const genesis = await readCurrentRelease(layout);
    assert.equal(genesis.label, "genesis");
    assert.equal(genesis.binary, join(home, "chainvisor", "genesis", "bin", "chaind"));
    assert.equal(await readlink(layout.currentLink), "genesis");
    await switchCurrent(layout, upgradeTarget("v2"));
    assert.equal(await readlink(layout.currentLink), "upgrades/v2");
    const current = await readCurrentRelease(layout);
    assert.equal(current.label, "v2");
    assert.equal(current.binary, join(home, "chainvisor", "upgrades", "v2", "bin", "chaind"));
  });

  it("reports without creating when asked not to", async () => {
    const layout = visorLayout(home, "chaind");
    assert.equal((await readCurrentRelease(layout, false)).label, "genesis");
    await assert.rejects(readlink(layout.currentLink), { code: "ENOENT" });
  });

  it("refuses a dangling link and a current that is not a link", async () => {
    const layout = visorLayout(home, "chaind");
    await symlink("upgrades/gone", layout.currentLink);
    await assert.rejects(readCurrentRelease(layout), {
      message: `${layout.currentLink} points to upgrades/gone, which does not exist`,
    });
    await rm(layout.currentLink);
    await writeFile(layout.currentLink, "");
    await assert.rejects(readCurrentRelease(layout), {
      message: `${layout.currentLink} exists and is not a symbolic link`,
    });
  });

  it("follows an absolute target (as cosmovisor writes them) and names the release inside the root", async () => {
    const layout = visorLayout(home, "chaind");
    await symlink(join(home, "chainvisor", "upgrades", "v2"), layout.currentLink);
    const current = await readCurrentRelease(layout);
    assert.equal(current.label, "v2");
    assert.equal(current.binary, join(home, "chainvisor", "upgrades", "v2", "bin", "chaind"));
    await rm(layout.currentLink);
    const elsewhere = join(home, "elsewhere");
    await mkdir(join(elsewhere, "bin"), { recursive: true });
    await symlink(elsewhere, layout.currentLink);
    const outside = await readCurrentRelease(layout);
    assert.equal(outside.label, elsewhere);
    assert.equal(outside.binary, join(elsewhere, "bin", "chaind"));
  });

  it("ensureBinary adds execute bits and refuses what is not a regular file", async () => {
    const binary = join(home, "chainvisor", "genesis", "bin", "chaind");
    await writeFile(binary, "#!/bin/sh\n");
    await chmod(binary, 0o600);
    await ensureBinary(binary);
    assert.equal((await stat(binary)).mode & 0o777, 0o711);
    await assert.rejects(ensureBinary(join(home, "chainvisor", "upgrades", "v2", "bin")), (error) => {
      assert.ok(error instanceof VisorError);
      assert.equal(error.message, "bin is not a regular file");
      return true;
    });
    const missing = join(home, "nothing");
    await assert.rejects(ensureBinary(missing), { message: `stat ${missing}: no such file or directory` });
  });
});
