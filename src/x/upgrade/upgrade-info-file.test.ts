import assert from "node:assert/strict";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { UpgradeInfoFileError } from "./errors.ts";
import { newPlan } from "./plan.ts";
import {
  dumpUpgradeInfoToDisk,
  encodeUpgradeInfo,
  readUpgradeInfoFromDisk,
  upgradeInfoPath,
} from "./upgrade-info-file.ts";

let root: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), "upgrade-info-"));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

async function home(name: string): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  return dir;
}

test("dump: exact content (info omitted when empty), mode 0600, data/ created, no temporary file left", async () => {
  const dir = await home("dump");
  const path = await dumpUpgradeInfoToDisk(dir, 11n, newPlan({ name: "test", height: 11n }));
  assert.equal(path, join(dir, "data", "upgrade-info.json"));
  assert.equal(await readFile(path, "utf8"), '{"name":"test","time":"0001-01-01T00:00:00Z","height":11}');
  assert.equal((await stat(path)).mode & 0o777, 0o600);
  assert.deepEqual(await readdir(join(dir, "data")), ["upgrade-info.json"]);

  // The height argument wins over the plan's (an overdue plan halts later than its height); rewriting replaces.
  const info = '{"binaries":{"linux/amd64":"https://example.com/chaind?checksum=sha256:ab&x=<1>"}}';
  await dumpUpgradeInfoToDisk(dir, 15n, newPlan({ name: "v2", height: 12n, info }));
  assert.equal(
    await readFile(path, "utf8"),
    '{"name":"v2","time":"0001-01-01T00:00:00Z","height":15,"info":"{\\"binaries\\":{\\"linux/amd64\\":\\"https://example.com/chaind?checksum=sha256:ab\\u0026x=\\u003c1\\u003e\\"}}"}',
  );
  assert.deepEqual(await readUpgradeInfoFromDisk(dir), { name: "v2", height: 15n, info });
});

test("encodeUpgradeInfo writes heights beyond 2^53 exactly and reading keeps them", async () => {
  const dir = await home("big");
  await dumpUpgradeInfoToDisk(dir, 9007199254740993n, newPlan({ name: "big", height: 1n }));
  assert.equal(
    encodeUpgradeInfo(9007199254740993n, { name: "big", info: "" }).includes('"height":9007199254740993}'),
    true,
  );
  assert.deepEqual(await readUpgradeInfoFromDisk(dir), { name: "big", height: 9007199254740993n, info: "" });
});

test("read: a missing file is no plan", async () => {
  assert.equal(await readUpgradeInfoFromDisk(await home("missing")), undefined);
});

test("read: unknown fields are ignored; the zero time in any spelling is accepted", async () => {
  const dir = await home("lenient");
  await mkdir(join(dir, "data"));
  for (const time of ["0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000Z", "0001-01-01T00:00:00+00:00"]) {
    await writeFile(upgradeInfoPath(dir), JSON.stringify({ name: "v2", time, height: 7, extra: true }));
    assert.deepEqual(await readUpgradeInfoFromDisk(dir), { name: "v2", height: 7n, info: "" });
  }
});

test("read: each invalid file is a clear error naming the file", async () => {
  const dir = await home("invalid");
  await mkdir(join(dir, "data"));
  const path = upgradeInfoPath(dir);
  const cases: [string, RegExp][] = [
    ["", /the file is empty; expected \{"name"/],
    ["{not json", /not valid JSON \(.+\); expected \{"name":"<plan name>"/],
    ["[1,2]", /not a JSON object/],
    ['{"name":"","height":5}', /invalid upgrade info: name cannot be empty: invalid request$/],
    ['{"height":5}', /invalid upgrade info: name cannot be empty: invalid request$/],
    ['{"name":"v2","height":0}', /invalid upgrade info: height must be greater than 0: invalid request$/],
    ['{"name":"v2"}', /invalid upgrade info: height must be greater than 0: invalid request$/],
    ['{"name":"v2","height":-4}', /invalid upgrade info: height must be greater than 0: invalid request$/],
    ['{"name":"v2","height":"5"}', /"height" must be an integer JSON number/],
    ['{"name":"v2","height":5.5}', /"height" must be an integer JSON number/],
    // An object that looks like the reader's own record of a number's text is not a number.
    ['{"name":"v2","height":{"number":"12"}}', /"height" must be an integer JSON number/],
    ['{"name":7,"height":5}', /"name" must be a string/],
    ['{"name":"v2","height":5,"info":{}}', /"info" must be a string/],
    [
      '{"name":"v2","height":5,"time":"2030-01-01T00:00:00Z"}',
      /invalid upgrade info: time-based upgrades have been deprecated in the SDK: invalid request$/,
    ],
    ['{"name":"v2","height":5,"time":"soon"}', /"time" is not an RFC 3339 time: "soon"/],
    [
      '{"name":"v2","height":5,"upgraded_client_state":{"@type":"/x"}}',
      /invalid upgrade info: upgrade logic for IBC has been moved to the IBC module: invalid request$/,
    ],
  ];
  for (const [content, pattern] of cases) {
    await writeFile(path, content);
    await assert.rejects(readUpgradeInfoFromDisk(dir), (err: unknown) => {
      assert.ok(err instanceof UpgradeInfoFileError, `${content}: ${String(err)}`);
      assert.equal(err.path, path);
      assert.ok(err.message.startsWith(`${path}: `), err.message);
      assert.match(err.message, pattern, content);
      return true;
    });
  }
});

test("read: an unreadable file (a directory in its place) is an error naming it", async () => {
  const dir = await home("unreadable");
  await mkdir(upgradeInfoPath(dir), { recursive: true });
  await assert.rejects(readUpgradeInfoFromDisk(dir), (err: unknown) => {
    assert.ok(err instanceof UpgradeInfoFileError);
    assert.match(err.message, /upgrade-info\.json: cannot read the upgrade info file: EISDIR/);
    return true;
  });
});

test("dump: a home whose data path cannot be created is a clear error", async () => {
  const dir = await home("blocked");
  await writeFile(join(dir, "data"), "a file where the data directory should be");
  await assert.rejects(
    dumpUpgradeInfoToDisk(dir, 3n, newPlan({ name: "v2", height: 3n })),
    /could not create directory ".*data"/,
  );
});
