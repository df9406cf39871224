// data/upgrade-info.json under fuzz: the node writes it when it halts for an upgrade and reads it back at start
// (src/x/upgrade/upgrade-info-file.ts); chainvisor reads it to switch binaries and keeps a copy in each upgrade
// directory (src/visor/upgrade-info.ts, layout.ts). Its content comes from a governance proposal, so a stranger chooses
// the plan's name and info. Properties: either reader accepts or refuses with its own error class; what it accepts is
// a valid plan; what one side writes the other reads back unchanged; and the files land only where they belong.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import fc from "fast-check";
import { VisorError } from "../../src/visor/errors.ts";
import { upgradeDir, upgradeDirName, visorLayout } from "../../src/visor/layout.ts";
import {
  formatUpgradeInfo,
  parseUpgradeInfo as visorParse,
  readUpgradeInfo as visorRead,
  writeUpgradeInfo,
} from "../../src/visor/upgrade-info.ts";
import { UpgradeInfoFileError } from "../../src/x/upgrade/errors.ts";
import {
  dumpUpgradeInfoToDisk,
  parseUpgradeInfo as nodeParse,
  readUpgradeInfoFromDisk,
} from "../../src/x/upgrade/upgrade-info-file.ts";
import { edgeIntegers, jsonNear } from "./json-arbitraries.ts";
import { mutatedText } from "./mutations.ts";
import { parseOrOwnError } from "./own-errors.ts";
import { created, listTree, withSandbox } from "./sandbox.ts";
import { fuzzParameters } from "./settings.ts";

const FIELDS = ["name", "height", "time", "info", "upgraded_client_state"];
// Keys JSON documents commonly carry, so nested objects also take shapes a reader might mistake for a value.
const COMMON_KEYS = ["number", "value", "type", "@type", "source", "binaries", "__proto__", "constructor"];
const WORDS = ["v2", "0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000Z", "2030-01-01T00:00:00Z", "", " "];
const PATH = "/home/op/.chaind/data/upgrade-info.json";
const INT64_MAX = 2n ** 63n - 1n;

/** A plan name as a proposal may carry it: ordinary, path-like, unicode, or long. */
const planName = fc.oneof(
  fc.constantFrom("v2", "V2", ".", "..", "../../etc", "a/b", "/abs", "a\\b", "%2F", "\u0000", "nul\u0000x", "ü"),
  fc.string({ minLength: 1, maxLength: 40 }),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 }),
  fc.string({ unit: fc.constantFrom(".", "/", "\\", "%", "~", "a"), minLength: 1, maxLength: 12 }),
  fc.string({ minLength: 200, maxLength: 300 }),
);

/** An info string: empty, a binaries document, or anything. */
const planInfo = fc.oneof(
  fc.constant(""),
  fc.string({ maxLength: 60 }),
  fc.webUrl().map((url) => JSON.stringify({ binaries: { "linux/amd64": url } })),
  fc.string({ unit: "grapheme", maxLength: 20 }),
);

/** upgrade-info.json content: structured documents near the format, a valid file slightly broken, or any text. */
const upgradeInfoText = fc.oneof(
  { weight: 3, arbitrary: jsonNear([...FIELDS, ...COMMON_KEYS], WORDS).map((value) => JSON.stringify(value)) },
  {
    weight: 3,
    arbitrary: fc
      .record(
        {
          name: fc.oneof(planName, jsonNear(COMMON_KEYS)),
          height: fc.oneof(edgeIntegers.map(Number), edgeIntegers.map(String), jsonNear(COMMON_KEYS)),
          time: fc.oneof(fc.constantFrom(...WORDS), jsonNear(COMMON_KEYS)),
          info: fc.oneof(planInfo, jsonNear(COMMON_KEYS)),
        },
        { requiredKeys: [] },
      )
      .map((record) => JSON.stringify(record)),
  },
  { weight: 2, arbitrary: mutatedText('{"name":"v2","time":"0001-01-01T00:00:00Z","height":130,"info":"x"}') },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 80 }) },
);

describe("upgrade-info.json: the node's reader", () => {
  test("accepts only a valid plan and refuses everything else with UpgradeInfoFileError", () => {
    fc.assert(
      fc.property(upgradeInfoText, (text) => {
        const info = parseOrOwnError(() => nodeParse(text, PATH), [UpgradeInfoFileError], text);
        if (info === undefined) return;
        assert.ok(info.name !== "", "an accepted plan has a name");
        assert.ok(info.height > 0n && info.height <= INT64_MAX, `height ${info.height} out of range`);
        // The node's format is Go's: the height is a JSON number, never a string or an object standing for one.
        const parsed = JSON.parse(text) as Record<string, unknown>;
        assert.equal(typeof parsed.height, "number", `accepted a height written as ${JSON.stringify(parsed.height)}`);
        assert.equal(parsed.name, info.name);
        assert.equal(parsed.info ?? "", info.info);
      }),
      fuzzParameters(400),
    );
  });
});

describe("upgrade-info.json: chainvisor's reader", () => {
  test("accepts only a valid plan and refuses everything else with VisorError", () => {
    fc.assert(
      fc.property(upgradeInfoText, (text) => {
        const plan = parseOrOwnError(() => visorParse(text, PATH), [VisorError], text);
        if (plan === undefined) return;
        assert.ok(plan.name !== "", "an accepted plan has a name");
        assert.ok(plan.height > 0n, `height ${plan.height} must be positive`);
        assert.equal(typeof plan.info, "string");
      }),
      fuzzParameters(400),
    );
  });

  test("an upgrade's directory is one child of upgrades/, or the name is refused with VisorError", () => {
    const layout = visorLayout("/home/op/.chaind", "chaind");
    fc.assert(
      fc.property(planName, (name) => {
        const dirName = parseOrOwnError(() => upgradeDirName(name), [VisorError], name);
        if (dirName === undefined) return;
        assert.ok(!dirName.includes("/") && !dirName.includes("\\") && !dirName.includes("\u0000"), dirName);
        assert.ok(!dirName.startsWith("."), dirName);
        assert.ok(Buffer.byteLength(dirName) <= 255, `${dirName.length} bytes`);
        assert.equal(upgradeDir(layout, name), join(layout.upgradesDir, dirName));
      }),
      fuzzParameters(400),
    );
  });
});

describe("upgrade-info.json: written by one side, read by the other", () => {
  // Heights stay below 2^53: chainvisor reads the height as a JS number and refuses larger ones (a chain never
  // gets there); the node's own round trip beyond 2^53 is a unit test in upgrade-info-file.test.ts.
  const height = fc.bigInt({ min: 1n, max: 2n ** 53n - 1n });

  test("the node's halt file is read back by the node and by chainvisor, and nothing else is written", async () => {
    await fc.assert(
      fc.asyncProperty(planName, height, planInfo, async (name, at, info) => {
        await withSandbox(async (home) => {
          await dumpUpgradeInfoToDisk(home, at, { name, info });
          assert.deepEqual(await listTree(home), ["data", "data/upgrade-info.json"]);
          assert.deepEqual(await readUpgradeInfoFromDisk(home), { name, height: at, info });
          assert.deepEqual(await visorRead(join(home, "data", "upgrade-info.json")), { name, height: at, info });
        });
      }),
      fuzzParameters(30),
    );
  });

  test("chainvisor's copy in the upgrade directory stays inside it and reads back unchanged", async () => {
    await fc.assert(
      fc.asyncProperty(planName, height, planInfo, async (name, at, info) => {
        await withSandbox(async (home) => {
          const layout = visorLayout(home, "chaind");
          const before = await listTree(home);
          const plan = { name, height: at, info };
          let dir: string;
          try {
            dir = upgradeDir(layout, name);
          } catch (error) {
            assert.ok(error instanceof VisorError, String(error));
            return;
          }
          const file = join(dir, "upgrade-info.json");
          await writeUpgradeInfo(file, plan);
          const dirName = upgradeDirName(name);
          assert.deepEqual(created(before, await listTree(home)), [
            "chainvisor",
            "chainvisor/upgrades",
            `chainvisor/upgrades/${dirName}`,
            `chainvisor/upgrades/${dirName}/upgrade-info.json`,
          ]);
          assert.equal(await readFile(file, "utf8"), formatUpgradeInfo(plan));
          assert.deepEqual(await visorRead(file), plan);
          // The node reads chainvisor's format too (the same file shape, written by either side).
          assert.deepEqual(nodeParse(formatUpgradeInfo(plan), file), plan);
        });
      }),
      fuzzParameters(30),
    );
  });
});
