import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { formatUpgradeInfo, parseUpgradeInfo, readUpgradeInfo, writeUpgradeInfo } from "./upgrade-info.ts";

const FILE = "/home/n/data/upgrade-info.json";

describe("upgrade-info.json", () => {
  it("parses the node's format, height as a number or a decimal string", () => {
    assert.deepEqual(parseUpgradeInfo('{"name":"v2","time":"0001-01-01T00:00:00Z","height":130,"info":"x"}', FILE), {
      name: "v2",
      height: 130n,
      info: "x",
    });
    assert.deepEqual(parseUpgradeInfo('{"name":"V2","height":"131"}', FILE), { name: "V2", height: 131n, info: "" });
  });

  it("refuses broken or invalid content with a message naming the file", () => {
    const cases: [string, string][] = [
      ["", `empty upgrade-info.json in "${FILE}"`],
      ["{", `cannot parse ${FILE}: `],
      ["[]", `invalid upgrade-info.json content in ${FILE}: expected a JSON object with name, time, height and info`],
      ['{"name":"","height":5}', `invalid upgrade-info.json content in ${FILE}: name cannot be empty`],
      ['{"name":"v2","height":0}', `invalid upgrade-info.json content in ${FILE}: height must be greater than 0`],
      ['{"name":"v2"}', `invalid upgrade-info.json content in ${FILE}: height must be greater than 0`],
      ['{"name":"v2","height":-4}', `invalid upgrade-info.json content in ${FILE}: height must be greater than 0`],
      ['{"name":"v2","height":1.5}', `invalid upgrade-info.json content in ${FILE}: "height" must be an integer`],
      ['{"name":"v2","height":5,"time":"2030-01-01T00:00:00Z"}', "time-based upgrades have been deprecated in the SDK"],
      ['{"name":"v2","height":5,"upgraded_client_state":{}}', "upgrade logic for IBC has been moved to the IBC module"],
      ['{"name":7,"height":5}', `invalid upgrade-info.json content in ${FILE}: "name" must be a string, got 7`],
      ['{"name":"v2","height":5,"info":{}}', `invalid upgrade-info.json content in ${FILE}: "info" must be a string`],
    ];
    for (const [text, message] of cases) {
      assert.throws(
        () => parseUpgradeInfo(text, FILE),
        (error: Error) => error.message.includes(message),
        text,
      );
    }
  });

  it("writes the node's format atomically with mode 0600", async () => {
    assert.equal(
      formatUpgradeInfo({ name: "v2", height: 130n, info: "" }),
      '{"name":"v2","time":"0001-01-01T00:00:00Z","height":130}',
    );
    const dir = await mkdtemp(join(tmpdir(), "chainvisor-info-"));
    try {
      const path = join(dir, "data", "upgrade-info.json");
      assert.equal(await readUpgradeInfo(path), undefined);
      await writeUpgradeInfo(path, { name: "v3", height: 7n, info: '{"binaries":{}}' });
      assert.equal(
        await readFile(path, "utf8"),
        '{"name":"v3","time":"0001-01-01T00:00:00Z","height":7,"info":"{\\"binaries\\":{}}"}',
      );
      assert.equal((await stat(path)).mode & 0o777, 0o600);
      assert.deepEqual(await readUpgradeInfo(path), { name: "v3", height: 7n, info: '{"binaries":{}}' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
