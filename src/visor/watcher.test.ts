import assert from "node:assert/strict";
import { mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { createLogger } from "./log.ts";
import { writeUpgradeInfo } from "./upgrade-info.ts";
import { UpgradeInfoWatcher } from "./watcher.ts";

describe("UpgradeInfoWatcher", () => {
  let dir: string;
  let file: string;
  let lines: string[];
  const log = createLogger({ write: (line) => lines.push(line) });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "chainvisor-watch-"));
    file = join(dir, "upgrade-info.json");
    lines = [];
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("reports a new plan, lower-cased, until it is handled; a rewrite of the same plan is not new", async () => {
    const watcher = new UpgradeInfoWatcher({ path: file, log, currentRelease: "genesis" });
    assert.equal(await watcher.check(), undefined);
    await writeUpgradeInfo(file, { name: "V2", height: 130n, info: "" });
    const plan = await watcher.check();
    assert.deepEqual(plan, { name: "v2", height: 130n, info: "" });
    assert.deepEqual(await watcher.check(), plan, "still due until handled");
    watcher.markHandled(plan!, "v2");
    assert.equal(await watcher.check(), undefined);
    await writeUpgradeInfo(file, { name: "v2", height: 130n, info: "again" });
    await utimes(file, new Date(), new Date(Date.now() + 5_000));
    assert.equal(await watcher.check(), undefined);
    await writeUpgradeInfo(file, { name: "v3", height: 200n, info: "" });
    assert.deepEqual(await watcher.check(), { name: "v3", height: 200n, info: "" });
  });

  it("never reports the release already running", async () => {
    await writeUpgradeInfo(file, { name: "v2", height: 130n, info: "" });
    const watcher = new UpgradeInfoWatcher({ path: file, log, currentRelease: "v2" });
    assert.equal(await watcher.check(), undefined);
  });

  it("gives a half-written file time, then reports it once and keeps going", async () => {
    await writeFile(file, '{"name":"v2",');
    const watcher = new UpgradeInfoWatcher({ path: file, log, currentRelease: "genesis", settleMs: 30 });
    assert.equal(await watcher.check(), undefined);
    assert.ok(watcher.unsettled);
    assert.deepEqual(lines, []);
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.equal(await watcher.check(), undefined);
    assert.equal(await watcher.check(), undefined);
    assert.equal(lines.length, 1);
    assert.match(lines[0], /error: cannot parse .*upgrade-info\.json: .*\n {2}expected \{"name"/);
    await writeFile(file, '{"name":"v2","height":5}');
    await utimes(file, new Date(), new Date(Date.now() + 5_000));
    assert.deepEqual(await watcher.check(), { name: "v2", height: 5n, info: "" });
  });

  it("takes an empty (0-byte) file for one being written: no plan, no word; unusable only once asked after the node exited", async () => {
    await writeFile(file, "");
    const watcher = new UpgradeInfoWatcher({ path: file, log, currentRelease: "genesis", settleMs: 10 });
    assert.equal(await watcher.check(), undefined);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(await watcher.check(), undefined);
    assert.ok(watcher.empty);
    assert.deepEqual(lines, [], "an empty file is not reported while the node runs");
    assert.equal(watcher.broken, undefined);
    assert.match(String(watcher.unusable), new RegExp(`empty upgrade-info\\.json in "${file.replace(/[.]/g, "\\.")}"`));
    // The writer finishes: the plan counts, and the file is usable again.
    await writeFile(file, '{"name":"v2","height":5}');
    assert.deepEqual(await watcher.check(), { name: "v2", height: 5n, info: "" });
    assert.equal(watcher.empty, false);
    assert.equal(watcher.unusable, undefined);
    // Emptied again (a writer truncating it): empty again, whatever was parsed before.
    await writeFile(file, "");
    assert.equal(await watcher.check(), undefined);
    assert.ok(watcher.empty);
    assert.ok(watcher.unusable !== undefined);
    await rm(file);
    assert.equal(await watcher.check(), undefined);
    assert.equal(watcher.empty, false);
    assert.equal(watcher.unusable, undefined, "no file is no plan, not an unusable one");
  });

  it("reports a plan whose name cannot be a directory as new, so the upgrade fails loudly on it", async () => {
    await writeUpgradeInfo(file, { name: "..", height: 5n, info: "" });
    const watcher = new UpgradeInfoWatcher({ path: file, log, currentRelease: "genesis" });
    assert.deepEqual(await watcher.check(), { name: "..", height: 5n, info: "" });
    watcher.markHandled({ name: "..", height: 5n, info: "" });
    assert.equal(await watcher.check(), undefined);
  });
});
