import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type AppConfig, loadAppConfig, parseAppConfig } from "./app-config.ts";
import { APP_TOML_SECTIONS, renderAppToml } from "./app-toml-template.ts";
import { ConfigError } from "./errors.ts";
import { ensureHome } from "./home.ts";
import { templateKeys } from "./toml-template.ts";

const FILE = "/home/op/.chaind/config/app.toml";

const DEFAULTS: Omit<AppConfig, "file"> = {
  minimumGasPrices: [],
  pruning: { strategy: "default", keepRecent: 362880n, interval: 10n },
  pruningSettings: { keepRecent: 0n, interval: 0n },
  haltHeight: 0n,
  haltTime: 0n,
  minRetainBlocks: 0n,
  queryGasLimit: 0n,
  inPlaceUpgrades: false,
  api: {
    enable: true,
    swagger: true,
    upgradePage: false,
    address: { protocol: "tcp", host: "localhost", port: 1317, address: "tcp://localhost:1317" },
    maxOpenConnections: 1000,
    rpcReadTimeoutSeconds: 10,
    rpcWriteTimeoutSeconds: 0,
    rpcMaxBodyBytes: 1000000,
    enabledUnsafeCors: false,
    corsAllowedOrigins: [],
  },
  grpc: {
    enable: true,
    address: { host: "localhost", port: 9090, address: "localhost:9090" },
    maxRecvMsgSize: 10485760,
    maxSendMsgSize: 2147483647,
  },
  stateSync: { snapshotInterval: 0n, snapshotKeepRecent: 2 },
  telemetry: { enabled: false, serviceName: "chaind" },
  unknownKeys: [],
};

/** A one-key document: `section` "" puts the key at the top level. */
function doc(dotted: string, literal: string): string {
  const dot = dotted.indexOf(".");
  return dot < 0 ? `${dotted} = ${literal}\n` : `[${dotted.slice(0, dot)}]\n${dotted.slice(dot + 1)} = ${literal}\n`;
}

function errorOf(text: string): ConfigError {
  try {
    parseAppConfig(text, FILE);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return error;
  }
  assert.fail("expected the document to be refused");
}

describe("app.toml template", () => {
  test("holds every key of docs/CONTRACT.md §7", () => {
    assert.deepEqual(templateKeys(APP_TOML_SECTIONS), [
      "minimum-gas-prices",
      "pruning",
      "pruning-keep-recent",
      "pruning-interval",
      "halt-height",
      "halt-time",
      "min-retain-blocks",
      "query-gas-limit",
      "in-place-upgrades",
      "api.enable",
      "api.swagger",
      "api.upgrade-page",
      "api.address",
      "api.max-open-connections",
      "api.rpc-read-timeout",
      "api.rpc-write-timeout",
      "api.rpc-max-body-bytes",
      "api.enabled-unsafe-cors",
      "api.cors-allowed-origins",
      "grpc.enable",
      "grpc.address",
      "grpc.max-recv-msg-size",
      "grpc.max-send-msg-size",
      "state-sync.snapshot-interval",
      "state-sync.snapshot-keep-recent",
      "telemetry.enabled",
      "telemetry.service-name",
    ]);
  });

  test("parses back to the defaults, which are also what an empty file means", () => {
    assert.deepEqual(parseAppConfig(renderAppToml(), FILE), { file: FILE, ...DEFAULTS });
    assert.deepEqual(parseAppConfig("", FILE), { file: FILE, ...DEFAULTS });
  });

  test("overrides land in the rendered file", () => {
    const config = parseAppConfig(
      renderAppToml({
        "minimum-gas-prices": "0.025stake",
        "api.address": "tcp://127.0.0.1:0",
        "api.cors-allowed-origins": ["http://localhost:3000"],
      }),
      FILE,
    );
    assert.deepEqual(config.minimumGasPrices, [{ denom: "stake", amount: "0.025" }]);
    assert.deepEqual(config.api.address, { protocol: "tcp", host: "127.0.0.1", port: 0, address: "tcp://127.0.0.1:0" });
    assert.deepEqual(config.api.corsAllowedOrigins, ["http://localhost:3000"]);
    assert.throws(() => renderAppToml({ "api.adress": "x" }), /unknown template key "api.adress"/);
  });
});

describe("app.toml values", () => {
  test("numbers are accepted as integers or as strings of digits", () => {
    const config = parseAppConfig(
      'pruning = "custom"\npruning-keep-recent = 100\npruning-interval = "20"\nhalt-height = "1234"\nhalt-time = 1700000000\n' +
        '[grpc]\nmax-recv-msg-size = 1024\nmax-send-msg-size = "0"\n',
      FILE,
    );
    assert.deepEqual(config.pruning, { strategy: "custom", keepRecent: 100n, interval: 20n });
    assert.equal(config.haltHeight, 1234n);
    assert.equal(config.haltTime, 1700000000n);
    assert.equal(parseAppConfig("in-place-upgrades = true", FILE).inPlaceUpgrades, true);
    assert.equal(parseAppConfig("replay-releases = true", FILE).inPlaceUpgrades, true, "the older key is an alias");
    assert.equal(
      parseAppConfig("in-place-upgrades = false\nreplay-releases = true", FILE).inPlaceUpgrades,
      true,
      "either key turns the mode on",
    );
    assert.equal(
      parseAppConfig('query-gas-limit = "250000"', FILE).queryGasLimit,
      250000n,
      "upstream writes it quoted",
    );
    assert.equal(parseAppConfig("query-gas-limit = 3000", FILE).queryGasLimit, 3000n);
    assert.equal(config.grpc.maxRecvMsgSize, 1024);
    assert.equal(config.grpc.maxSendMsgSize, 2147483647, "0 means the default");
  });

  test("pruning strategies resolve as upstream", () => {
    const of = (strategy: string) => parseAppConfig(`pruning = "${strategy}"`, FILE).pruning;
    assert.deepEqual(of("default"), { strategy: "default", keepRecent: 362880n, interval: 10n });
    assert.deepEqual(of("everything"), { strategy: "everything", keepRecent: 2n, interval: 10n });
    assert.deepEqual(of("nothing"), { strategy: "nothing", keepRecent: 0n, interval: 0n });
    // The custom values are read only for "custom".
    assert.deepEqual(parseAppConfig('pruning = "nothing"\npruning-interval = "5"', FILE).pruning.interval, 0n);
    // ... but kept as written, for the node service's Config (upstream echoes them whatever the strategy).
    assert.deepEqual(parseAppConfig('pruning = "nothing"\npruning-interval = "5"', FILE).pruningSettings, {
      keepRecent: 0n,
      interval: 5n,
    });
    const custom = parseAppConfig('pruning = "custom"\npruning-keep-recent = "100"\npruning-interval = 20', FILE);
    assert.deepEqual(custom.pruningSettings, { keepRecent: 100n, interval: 20n });
  });

  test("gas prices: separators, sorting, canonical amounts", () => {
    const config = parseAppConfig('minimum-gas-prices = "0.250token2; 00.0001token1,1uatom"', FILE);
    assert.deepEqual(config.minimumGasPrices, [
      { denom: "token1", amount: "0.0001" },
      { denom: "token2", amount: "0.25" },
      { denom: "uatom", amount: "1" },
    ]);
  });

  test("unknown keys are listed for a warning, upstream-only keys are not", () => {
    const config = parseAppConfig(
      "foo = 1\niavl-cache-size = 781250\n[api]\nbar = true\n[telemetry]\nenabled = false\n[mystery]\nx = 1\n",
      FILE,
    );
    assert.deepEqual(config.unknownKeys, ["api.bar", "foo", "mystery.x"]);
  });

  test("[state-sync] snapshot settings are read (upstream's keys); a typo there is reported", () => {
    const config = parseAppConfig(
      "[state-sync]\nsnapshot-interval = 100\nsnapshot-keep-recent = 0\nsnapshot-intervall = 5\n",
      FILE,
    );
    assert.deepEqual(config.stateSync, { snapshotInterval: 100n, snapshotKeepRecent: 0 });
    assert.deepEqual(config.unknownKeys, ["state-sync.snapshot-intervall"]);
  });
});

describe("app.toml [telemetry]", () => {
  test("enabled and service-name are read (upstream's keys, the prefix defaulting to chaind); a bad prefix is refused", () => {
    const config = parseAppConfig('[telemetry]\nenabled = true\nservice-name = "mychain"\nglobal-labels = []\n', FILE);
    assert.deepEqual(config.telemetry, { enabled: true, serviceName: "mychain" });
    assert.deepEqual(config.unknownKeys, []);
    assert.throws(
      () => parseAppConfig('[telemetry]\nservice-name = "my-chain"\n', FILE),
      /telemetry\.service-name: expected letters, digits and underscores/,
    );
  });
});

describe("app.toml errors name the file, the key and what was expected", () => {
  const cases: [key: string, literal: string, message: string][] = [
    [
      "minimum-gas-prices",
      '"abc"',
      'minimum-gas-prices: expected gas prices such as "0.025stake" or "0.25token1,0.0001token2", got "abc" ("abc" is not <amount><denom>)',
    ],
    [
      "minimum-gas-prices",
      "5",
      'minimum-gas-prices: expected gas prices such as "0.025stake" or "0.25token1,0.0001token2", got 5',
    ],
    [
      "minimum-gas-prices",
      '"1stake,2stake"',
      'minimum-gas-prices: expected gas prices such as "0.025stake" or "0.25token1,0.0001token2", got "1stake,2stake" (denom "stake" appears twice)',
    ],
    [
      "minimum-gas-prices",
      '"0.1234567890123456789stake"',
      'minimum-gas-prices: expected gas prices such as "0.025stake" or "0.25token1,0.0001token2", got "0.1234567890123456789stake" ("0.1234567890123456789stake" has more than 18 decimal places)',
    ],
    [
      "pruning",
      '"sometimes"',
      'pruning: expected one of "default", "nothing", "everything", "custom", got "sometimes"',
    ],
    ["pruning-keep-recent", '"-1"', 'pruning-keep-recent: expected a non-negative integer, got "-1"'],
    ["pruning-interval", "1.5", "pruning-interval: expected a non-negative integer, got 1.5"],
    ["pruning-interval", "10.0", "pruning-interval: expected a non-negative integer, got 10.0"],
    ["halt-height", "-5", "halt-height: expected a non-negative integer, got -5"],
    ["halt-time", '"soon"', 'halt-time: expected a non-negative integer, got "soon"'],
    ["min-retain-blocks", "true", "min-retain-blocks: expected a non-negative integer, got true"],
    ["query-gas-limit", '"-1"', 'query-gas-limit: expected a non-negative integer, got "-1"'],
    ["query-gas-limit", '"lots"', 'query-gas-limit: expected a non-negative integer, got "lots"'],
    [
      "halt-height",
      '"18446744073709551616"',
      'halt-height: expected a non-negative integer, got "18446744073709551616" (the largest allowed value is 18446744073709551615)',
    ],
    ["replay-releases", '"yes"', 'replay-releases: expected true or false, got "yes"'],
    ["in-place-upgrades", '"yes"', 'in-place-upgrades: expected true or false, got "yes"'],
    ["api.enable", '"yes"', 'api.enable: expected true or false, got "yes"'],
    ["api.swagger", "1", "api.swagger: expected true or false, got 1"],
    ["api.upgrade-page", '"on"', 'api.upgrade-page: expected true or false, got "on"'],
    [
      "api.address",
      '"localhost:1317"',
      'api.address: expected an address with a scheme, "tcp://<host>:<port>" or "unix:///<path>", got "localhost:1317"',
    ],
    [
      "api.address",
      '"tcp://localhost:99999"',
      'api.address: expected an address with a scheme, "tcp://<host>:<port>" or "unix:///<path>", got "tcp://localhost:99999"',
    ],
    ["api.max-open-connections", '"abc"', 'api.max-open-connections: expected a non-negative integer, got "abc"'],
    [
      "api.rpc-read-timeout",
      "-1",
      "api.rpc-read-timeout: expected a whole number of seconds from 0 to 2147483, got -1",
    ],
    [
      "api.rpc-write-timeout",
      '"10s"',
      'api.rpc-write-timeout: expected a whole number of seconds from 0 to 2147483, got "10s"',
    ],
    ["api.rpc-max-body-bytes", '"1MB"', 'api.rpc-max-body-bytes: expected a positive integer, got "1MB"'],
    ["api.rpc-max-body-bytes", "0", "api.rpc-max-body-bytes: expected a positive integer, got 0"],
    ["api.enabled-unsafe-cors", '"true"', 'api.enabled-unsafe-cors: expected true or false, got "true"'],
    ["api.cors-allowed-origins", '"*"', 'api.cors-allowed-origins: expected a list of strings, got "*"'],
    [
      "api.cors-allowed-origins",
      '["https://a.example/"]',
      'api.cors-allowed-origins: expected a list of origins such as ["https://example.com", "http://localhost:3000"], or ["*"], got ["https://a.example/"] ("https://a.example/" is not a bare origin (scheme, host, optional port))',
    ],
    ["grpc.enable", "0", "grpc.enable: expected true or false, got 0"],
    [
      "grpc.address",
      '"tcp://localhost:9090"',
      'grpc.address: expected a "<host>:<port>" address without a scheme, got "tcp://localhost:9090" (remove the scheme)',
    ],
    [
      "grpc.address",
      '"localhost"',
      'grpc.address: expected a "<host>:<port>" address without a scheme, got "localhost"',
    ],
    ["grpc.max-recv-msg-size", '"big"', 'grpc.max-recv-msg-size: expected an integer from 0 to 2147483647, got "big"'],
    [
      "grpc.max-send-msg-size",
      "4294967296",
      "grpc.max-send-msg-size: expected an integer from 0 to 2147483647, got 4294967296 (the largest allowed value is 2147483647)",
    ],
    ["state-sync.snapshot-interval", "-1", "state-sync.snapshot-interval: expected a non-negative integer, got -1"],
    [
      "state-sync.snapshot-interval",
      '"1000 blocks"',
      'state-sync.snapshot-interval: expected a non-negative integer, got "1000 blocks"',
    ],
    [
      "state-sync.snapshot-keep-recent",
      "true",
      "state-sync.snapshot-keep-recent: expected an integer from 0 to 2147483647, got true",
    ],
  ];
  for (const [key, literal, message] of cases) {
    test(`${key} = ${literal}`, () => {
      const error = errorOf(doc(key, literal));
      assert.equal(error.message, `${FILE}: ${message}`);
      assert.equal(error.code, "CONFIG_INVALID");
      assert.equal(error.problems.length, 1);
      assert.equal(error.problems[0].key, key);
    });
  }

  test("custom pruning is checked with upstream's rules", () => {
    assert.equal(
      errorOf('pruning = "custom"').message,
      `${FILE}: pruning-interval: expected a non-zero interval when pruning = "custom", got "0" (to disable pruning, select pruning = "nothing")`,
    );
    assert.equal(
      errorOf('pruning = "custom"\npruning-interval = 5\npruning-keep-recent = "100"').message,
      `${FILE}: pruning-interval: expected an interval of at least 10 when pruning = "custom", got 5 (for the most aggressive pruning, select pruning = "everything")`,
    );
    assert.equal(
      errorOf('pruning = "custom"\npruning-interval = "10"\npruning-keep-recent = "1"').message,
      `${FILE}: pruning-keep-recent: expected at least 2 when pruning = "custom", got "1" (for the most aggressive pruning, select pruning = "everything")`,
    );
  });

  test('snapshots with pruning = "everything" are refused with upstream\'s reason; 0 or another strategy is fine', () => {
    assert.equal(
      errorOf('pruning = "everything"\n[state-sync]\nsnapshot-interval = 100').message,
      `${FILE}: state-sync.snapshot-interval: expected 0 when pruning = "everything", got 100 (cannot enable state sync snapshots with 'everything' pruning setting)`,
    );
    assert.equal(
      parseAppConfig('pruning = "everything"\n[state-sync]\nsnapshot-interval = 0').stateSync.snapshotInterval,
      0n,
    );
    assert.equal(
      parseAppConfig('pruning = "default"\n[state-sync]\nsnapshot-interval = 100').stateSync.snapshotInterval,
      100n,
    );
  });

  test("a custom pruning number that does not parse is reported once, not also against the floors", () => {
    for (const [key, other] of [
      ["pruning-keep-recent", 'pruning-interval = "10"'],
      ["pruning-interval", 'pruning-keep-recent = "5"'],
    ]) {
      const error = errorOf(`pruning = "custom"\n${other}\n${key} = "abc"`);
      assert.equal(error.message, `${FILE}: ${key}: expected a non-negative integer, got "abc"`);
      assert.equal(error.problems.length, 1);
    }
  });

  test("a section that is not a table", () => {
    assert.equal(errorOf("api = 5").message, `${FILE}: api: expected a table ([api] section), got 5`);
  });

  test("every problem is reported at once, one per line", () => {
    const error = errorOf('pruning = "x"\n[api]\naddress = "nowhere"\n[grpc]\nenable = "no"\n');
    assert.deepEqual(
      error.problems.map((p) => p.key),
      ["pruning", "api.address", "grpc.enable"],
    );
    assert.equal(error.message.split("\n").length, 3);
  });

  test("a TOML syntax error names the file and the line", () => {
    const error = errorOf('pruning = "default"\n[api]\naddress = "tcp://localhost:1317\nenable = true\n');
    assert.equal(error.code, "CONFIG_SYNTAX");
    assert.equal(error.problems[0].line, 3);
    assert.match(
      error.message,
      /^\/home\/op\/\.chaind\/config\/app\.toml: line 3, column \d+: invalid TOML syntax: .+/,
    );
    const duplicate = errorOf("halt-height = 1\nhalt-height = 2\n");
    assert.equal(duplicate.problems[0].line, 2);
  });
});

describe("loadAppConfig", () => {
  let home: string;
  before(async () => {
    home = await mkdtemp(join(tmpdir(), "chaind-app-config-"));
  });
  after(async () => {
    await rm(home, { recursive: true, force: true });
  });

  test("a missing file names itself and says how to create it", async () => {
    await assert.rejects(loadAppConfig(home), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.code, "CONFIG_UNREADABLE");
      assert.equal(
        error.message,
        `${join(home, "config", "app.toml")}: file not found; run "chaind init" to create it`,
      );
      return true;
    });
  });

  test("reads <home>/config/app.toml", async () => {
    const paths = await ensureHome(home);
    await writeFile(paths.appToml, renderAppToml({ "halt-height": 77 }));
    const config = await loadAppConfig(home);
    assert.equal(config.file, paths.appToml);
    assert.equal(config.haltHeight, 77n);
    await writeFile(paths.appToml, '[api]\nmax-open-connections = "abc"\n');
    await assert.rejects(loadAppConfig(home), {
      message: `${paths.appToml}: api.max-open-connections: expected a non-negative integer, got "abc"`,
    });
  });
});
