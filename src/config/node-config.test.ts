import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { COMETBFT_CONFIG_VERSION, renderConfigToml } from "./config-toml-template.ts";
import { ConfigError } from "./errors.ts";
import { ensureHome } from "./home.ts";
import { loadNodeConfig, parseNodeConfig } from "./node-config.ts";

const HOME = "/srv/chain";
const FILE = "/srv/chain/config/config.toml";

function doc(dotted: string, literal: string): string {
  const dot = dotted.indexOf(".");
  return dot < 0 ? `${dotted} = ${literal}\n` : `[${dotted.slice(0, dot)}]\n${dotted.slice(dot + 1)} = ${literal}\n`;
}

function errorOf(text: string): ConfigError {
  try {
    parseNodeConfig(text, HOME, FILE);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return error;
  }
  assert.fail("expected the document to be refused");
}

describe("config.toml template", () => {
  test("parses back to the same values an empty file gets, with nothing unknown", () => {
    const fromTemplate = parseNodeConfig(renderConfigToml({ moniker: "node0" }), HOME, FILE);
    const fromDefaults = parseNodeConfig(`moniker = "node0"\nversion = "${COMETBFT_CONFIG_VERSION}"\n`, HOME, FILE);
    assert.deepEqual(fromTemplate, fromDefaults);
    assert.deepEqual(fromTemplate.unknownKeys, []);
  });

  test("holds CometBFT v0.38's defaults, with paths resolved against the home", () => {
    const config = parseNodeConfig(renderConfigToml({ moniker: "node0" }), HOME, FILE);
    assert.equal(config.version, "0.38.25");
    assert.equal(config.moniker, "node0");
    assert.deepEqual(config.proxyApp, {
      protocol: "tcp",
      host: "127.0.0.1",
      port: 26658,
      address: "tcp://127.0.0.1:26658",
    });
    assert.equal(config.abci, "socket");
    assert.equal(config.dbDir, "/srv/chain/data");
    assert.equal(config.genesisFile, "/srv/chain/config/genesis.json");
    assert.equal(config.privValidatorKeyFile, "/srv/chain/config/priv_validator_key.json");
    assert.equal(config.privValidatorStateFile, "/srv/chain/data/priv_validator_state.json");
    assert.equal(config.nodeKeyFile, "/srv/chain/config/node_key.json");
    assert.equal(config.rpc.laddr.address, "tcp://127.0.0.1:26657");
    assert.equal(config.rpc.maxBodyBytes, 1000000);
    assert.equal(config.rpc.timeoutBroadcastTxCommitMs, 10000);
    assert.equal(config.p2p.laddr.address, "tcp://0.0.0.0:26656");
    assert.equal(config.p2p.addrBookStrict, true);
    assert.equal(config.p2p.allowDuplicateIp, false);
    assert.deepEqual(config.p2p.persistentPeers, []);
    assert.deepEqual(
      [config.mempool.type, config.mempool.size, config.mempool.maxTxsBytes, config.mempool.maxTxBytes],
      ["flood", 5000, 1073741824, 1048576],
    );
    assert.equal(config.mempool.cacheSize, 10000);
    assert.deepEqual(
      [
        config.consensus.timeoutProposeMs,
        config.consensus.timeoutProposeDeltaMs,
        config.consensus.timeoutPrevoteMs,
        config.consensus.timeoutPrecommitMs,
        config.consensus.timeoutCommitMs,
        config.consensus.createEmptyBlocksIntervalMs,
      ],
      [3000, 500, 1000, 1000, 1000, 0],
    );
    assert.equal(config.consensus.createEmptyBlocks, true);
    assert.equal(config.consensus.walFile, "/srv/chain/data/cs.wal/wal");
    assert.equal(config.txIndex.indexer, "kv");
    assert.equal(config.storage.discardAbciResponses, false);
  });

  test("overrides and fast test settings", () => {
    const config = parseNodeConfig(
      renderConfigToml({
        moniker: "n",
        "consensus.timeout_commit": "10ms",
        "consensus.skip_timeout_commit": true,
        "consensus.create_empty_blocks": false,
        "rpc.laddr": "tcp://127.0.0.1:0",
        "p2p.persistent_peers":
          "0123456789abcdef0123456789abcdef01234567@127.0.0.2:26656, 89ABCDEF0123456789ABCDEF0123456789ABCDEF@[::1]:26656",
        genesis_file: "/elsewhere/genesis.json",
      }),
      HOME,
      FILE,
    );
    assert.equal(config.consensus.timeoutCommitMs, 10);
    assert.equal(config.consensus.skipTimeoutCommit, true);
    assert.equal(config.consensus.createEmptyBlocks, false);
    assert.equal(config.rpc.laddr.protocol === "tcp" && config.rpc.laddr.port, 0);
    assert.deepEqual(config.p2p.persistentPeers, [
      { id: "0123456789abcdef0123456789abcdef01234567", host: "127.0.0.2", port: 26656 },
      { id: "89abcdef0123456789abcdef0123456789abcdef", host: "::1", port: 26656 },
    ]);
    assert.equal(config.genesisFile, "/elsewhere/genesis.json");
  });

  test("keys of other CometBFT releases are not reported; typos are", () => {
    const config = parseNodeConfig(
      '[p2p]\nupnp = false\n[fastsync]\nversion = "v0"\n[consensus]\ntimeout_comit = "1s"\n',
      HOME,
      FILE,
    );
    assert.deepEqual(config.unknownKeys, ["consensus.timeout_comit"]);
  });
});

describe("config.toml errors name the file, the key and what was expected", () => {
  const DURATION = 'a duration such as "1s", "500ms" or "1h30m"';
  const cases: [key: string, literal: string, message: string][] = [
    ["consensus.timeout_commit", '"fast"', `consensus.timeout_commit: expected ${DURATION}, got "fast"`],
    ["consensus.timeout_commit", "1000", `consensus.timeout_commit: expected ${DURATION}, got 1000`],
    [
      "consensus.timeout_propose",
      '"-1s"',
      'consensus.timeout_propose: expected a duration that is not negative, got "-1s"',
    ],
    ["consensus.create_empty_blocks", '"false"', 'consensus.create_empty_blocks: expected true or false, got "false"'],
    [
      "consensus.create_empty_blocks_interval",
      '"30"',
      `consensus.create_empty_blocks_interval: expected ${DURATION}, got "30"`,
    ],
    [
      "consensus.double_sign_check_height",
      "-1",
      "consensus.double_sign_check_height: expected a non-negative integer, got -1",
    ],
    [
      "rpc.laddr",
      '"127.0.0.1:26657"',
      'rpc.laddr: expected an address with a scheme, "tcp://<host>:<port>" or "unix:///<path>", got "127.0.0.1:26657"',
    ],
    ["rpc.max_body_bytes", '"1MB"', 'rpc.max_body_bytes: expected a non-negative integer, got "1MB"'],
    [
      "rpc.experimental_subscription_buffer_size",
      "50",
      "rpc.experimental_subscription_buffer_size: expected an integer from 100 to 2147483647, got 50",
    ],
    ["rpc.cors_allowed_origins", '"*"', 'rpc.cors_allowed_origins: expected a list of strings, got "*"'],
    ["mempool.size", "-1", "mempool.size: expected an integer from 0 to 2147483647, got -1"],
    ["mempool.type", '"priority"', 'mempool.type: expected one of "flood", "nop", "", got "priority"'],
    ["mempool.recheck_timeout", '"1 second"', `mempool.recheck_timeout: expected ${DURATION}, got "1 second"`],
    ["tx_index.indexer", '"sql"', 'tx_index.indexer: expected one of "kv", "null", "psql", got "sql"'],
    ["log_format", '"text"', 'log_format: expected one of "plain", "json", got "text"'],
    [
      "log_level",
      '"main:info,state"',
      'log_level: expected one of trace, debug, info, warn, error, fatal, or per-module levels such as "x/upgrade:debug,*:info", got "main:info,state"',
    ],
    ["abci", '"http"', 'abci: expected one of "socket", "grpc", got "http"'],
    [
      "proxy_app",
      '"kvstore"',
      'proxy_app: expected the application\'s address, "tcp://<host>:<port>" or "unix:///<path>", got "kvstore" (chaind has no built-in applications such as kvstore)',
    ],
    [
      "p2p.persistent_peers",
      '"abc@host:1"',
      'p2p.persistent_peers: expected a comma-separated list of "<node id>@<host>:<port>" (node id: 40 hex characters), got "abc@host:1" ("abc@host:1" does not fit)',
    ],
    [
      "p2p.private_peer_ids",
      '"xyz"',
      'p2p.private_peer_ids: expected a comma-separated list of node IDs (40 hex characters each), got "xyz" ("xyz" is not a node ID)',
    ],
    [
      "p2p.laddr",
      '"0.0.0.0:26656"',
      'p2p.laddr: expected an address with a scheme, "tcp://<host>:<port>" or "unix:///<path>", got "0.0.0.0:26656"',
    ],
    ["p2p.handshake_timeout", "20", `p2p.handshake_timeout: expected ${DURATION}, got 20`],
    ["blocksync.version", '"v1"', 'blocksync.version: expected one of "v0", got "v1"'],
    ["version", '"v0.38"', 'version: expected a version such as "0.38.25", got "v0.38"'],
    ["moniker", "5", "moniker: expected a string, got 5"],
    ["statesync.trust_period", '"a week"', `statesync.trust_period: expected ${DURATION}, got "a week"`],
    ["storage.discard_abci_responses", "0", "storage.discard_abci_responses: expected true or false, got 0"],
  ];
  for (const [key, literal, message] of cases) {
    test(`${key} = ${literal}`, () => {
      const error = errorOf(doc(key, literal));
      assert.equal(error.message, `${FILE}: ${message}`);
      assert.equal(error.problems.length, 1);
      assert.equal(error.problems[0].key, key);
    });
  }

  test("rules between keys", () => {
    assert.equal(
      errorOf("[rpc]\nexperimental_websocket_write_buffer_size = 150\n").message,
      `${FILE}: rpc.experimental_websocket_write_buffer_size: expected at least experimental_subscription_buffer_size (200), got 150`,
    );
    assert.equal(
      errorOf('[mempool]\ntype = "nop"\n[consensus]\ncreate_empty_blocks = false\n').message,
      `${FILE}: consensus.create_empty_blocks: expected true when mempool.type = "nop", got false (a nop mempool never signals new transactions)`,
    );
  });

  test("a syntax error names the line", () => {
    const error = errorOf('[consensus]\ntimeout_commit = "1s"\ntimeout_propose = 3s\n');
    assert.equal(error.code, "CONFIG_SYNTAX");
    assert.equal(error.problems[0].line, 3);
    assert.match(error.message, /^\/srv\/chain\/config\/config\.toml: line 3, column \d+: invalid TOML syntax: /);
  });
});

describe("loadNodeConfig", () => {
  let home: string;
  before(async () => {
    home = await mkdtemp(join(tmpdir(), "chaind-node-config-"));
  });
  after(async () => {
    await rm(home, { recursive: true, force: true });
  });

  test("reads <home>/config/config.toml and resolves paths against that home", async () => {
    await assert.rejects(loadNodeConfig(home), { code: "CONFIG_UNREADABLE" });
    const paths = await ensureHome(home);
    await writeFile(paths.configToml, renderConfigToml({ moniker: "x", "consensus.timeout_commit": "250ms" }));
    const config = await loadNodeConfig(home);
    assert.equal(config.file, paths.configToml);
    assert.equal(config.consensus.timeoutCommitMs, 250);
    assert.equal(config.genesisFile, paths.genesis);
    assert.equal(config.privValidatorStateFile, paths.privValidatorState);
  });
});
