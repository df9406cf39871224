// app.toml and config.toml under fuzz (src/config/app-config.ts, node-config.ts): operators copy these files from
// guides, other chains and other releases, so anything may be in them. Properties: the loaders return a config or
// throw one ConfigError (never a TypeError from a value of the wrong kind); what they return keeps the promises of
// its type (ranges, parsed addresses, absolute paths); and loading a home's files writes nothing.
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { describe, test } from "node:test";
import fc from "fast-check";
import { stringify } from "smol-toml";
import { type AppConfig, loadAppConfig, parseAppConfig } from "../../src/config/app-config.ts";
import { APP_TOML_SECTIONS, renderAppToml } from "../../src/config/app-toml-template.ts";
import { CONFIG_TOML_SECTIONS, renderConfigToml } from "../../src/config/config-toml-template.ts";
import { ConfigError } from "../../src/config/errors.ts";
import { loadNodeConfig, type NodeConfig, parseNodeConfig } from "../../src/config/node-config.ts";
import { templateKeys } from "../../src/config/toml-template.ts";
import { edgeIntegers } from "./json-arbitraries.ts";
import { mutatedText } from "./mutations.ts";
import { parseOrOwnError, parseOrOwnErrorAsync } from "./own-errors.ts";
import { listTree, withSandbox } from "./sandbox.ts";
import { fuzzParameters } from "./settings.ts";

const HOME = "/home/op/.chaind";
const MAX_UINT64 = 2n ** 64n - 1n;
const INT32_MAX = 2147483647;

/** Strings near what the files hold: durations, addresses, peers, gas prices, booleans and numbers as text. */
const WORDS = [
  "",
  " ",
  "1s",
  "500ms",
  "-1s",
  "9999999999h",
  "1h30m",
  "0",
  "-1",
  "18446744073709551616",
  "true",
  "tcp://127.0.0.1:26657",
  "tcp://[::1]:0",
  "unix:///tmp/x.sock",
  "localhost:9090",
  "tcp://localhost:99999",
  ":1317",
  "0.025stake",
  "0.25token1,0.0001token2",
  "1e5stake",
  "default",
  "nothing",
  "everything",
  "custom",
  "flood",
  "nop",
  "kv",
  "json",
  "*",
  "https://example.com",
  "https://example.com/",
  `${"a".repeat(40)}@1.2.3.4:26656`,
  "0.38.25",
];

/** A TOML value of any kind, leaning towards the words and integers the loaders check. */
const { tomlValue } = fc.letrec<{ tomlValue: unknown }>((tie) => ({
  tomlValue: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom(...WORDS),
    fc.string({ maxLength: 20 }),
    edgeIntegers,
    fc.double({ noNaN: true }),
    fc.boolean(),
    fc.date({ noInvalidDate: true }),
    fc.array(tie("tomlValue"), { maxLength: 3 }),
    fc.array(fc.constantFrom(...WORDS), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 6 }), tie("tomlValue"), { maxKeys: 3 }),
  ),
}));

/** Sets a dotted key in a tree, replacing whatever non-table value stood in the way. */
function setKey(tree: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split(".");
  let node = tree;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (typeof next !== "object" || next === null || Array.isArray(next) || next instanceof Date) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts[parts.length - 1]] = value;
}

/** A TOML document setting a few of the file's real keys (and sometimes their section or an unknown key). */
function tomlNear(keys: readonly string[]): fc.Arbitrary<string> {
  const sections = [...new Set(keys.filter((key) => key.includes(".")).map((key) => key.split(".")[0]))];
  const key = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...keys) },
    fc.constantFrom(...sections),
    fc.string({ minLength: 1, maxLength: 8 }),
  );
  return fc.array(fc.tuple(key, tomlValue), { maxLength: 6 }).map((entries) => {
    const tree: Record<string, unknown> = {};
    for (const [name, value] of entries) setKey(tree, name, value);
    try {
      return stringify(tree);
    } catch {
      // A value smol-toml cannot write (e.g. an infinite float) still makes a document: the raw text of one entry.
      return entries.map(([name]) => `${JSON.stringify(name)} = 1`).join("\n");
    }
  });
}

/** A file's text: near its keys, the template with a few edits, or any text. */
function configText(keys: readonly string[], template: string): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: tomlNear(keys) },
    { weight: 3, arbitrary: mutatedText(template) },
    { weight: 1, arbitrary: fc.string({ maxLength: 80 }) },
  );
}

const APP_KEYS = templateKeys(APP_TOML_SECTIONS);
const NODE_KEYS = templateKeys(CONFIG_TOML_SECTIONS);
const appText = configText(APP_KEYS, renderAppToml());
const nodeText = configText(NODE_KEYS, renderConfigToml());

function checkApp(config: AppConfig): void {
  for (const count of [
    config.api.maxOpenConnections,
    config.api.rpcMaxBodyBytes,
    config.stateSync.snapshotKeepRecent,
  ]) {
    assert.ok(Number.isSafeInteger(count) && count >= 0, `count ${count}`);
  }
  assert.ok(config.api.rpcReadTimeoutSeconds >= 0 && config.api.rpcReadTimeoutSeconds * 1000 <= INT32_MAX);
  assert.ok(config.api.rpcWriteTimeoutSeconds >= 0 && config.api.rpcWriteTimeoutSeconds * 1000 <= INT32_MAX);
  for (const size of [config.grpc.maxRecvMsgSize, config.grpc.maxSendMsgSize]) assert.ok(size > 0 && size <= INT32_MAX);
  for (const height of [config.haltHeight, config.haltTime, config.minRetainBlocks, config.queryGasLimit]) {
    assert.ok(height >= 0n && height <= MAX_UINT64, `${height}`);
  }
  assert.ok(config.grpc.address.port >= 0 && config.grpc.address.port <= 65535);
  if (config.api.address.protocol === "tcp") assert.ok(config.api.address.port <= 65535);
  const denoms = config.minimumGasPrices.map((coin) => coin.denom);
  assert.deepEqual(denoms, [...denoms].sort(), "gas prices sorted by denom");
  for (const origin of config.api.corsAllowedOrigins) assert.ok(origin === "*" || new URL(origin).origin === origin);
}

function checkNode(config: NodeConfig): void {
  const durations = [
    config.rpc.timeoutBroadcastTxCommitMs,
    config.p2p.handshakeTimeoutMs,
    config.mempool.recheckTimeoutMs,
    config.consensus.timeoutCommitMs,
    config.consensus.timeoutProposeMs,
  ];
  for (const ms of durations) assert.ok(Number.isFinite(ms) && ms >= 0, `duration ${ms} ms`);
  for (const count of [config.rpc.maxOpenConnections, config.mempool.size, config.p2p.maxNumInboundPeers]) {
    assert.ok(Number.isSafeInteger(count) && count >= 0 && count <= INT32_MAX, `count ${count}`);
  }
  // A path key set to "" stays "" (no file); any other is resolved against the home.
  for (const path of [config.dbDir, config.genesisFile, config.nodeKeyFile, config.privValidatorKeyFile]) {
    assert.ok(path === "" || isAbsolute(path), path);
  }
  for (const peer of [...config.p2p.seeds, ...config.p2p.persistentPeers]) {
    assert.match(peer.id, /^[0-9a-f]{40}$/);
    assert.ok(peer.port >= 0 && peer.port <= 65535);
  }
  assert.ok(config.rpc.webSocketWriteBufferSize >= config.rpc.subscriptionBufferSize);
}

describe("app.toml", () => {
  test("parses into a config that keeps its promises, or fails with one ConfigError", () => {
    fc.assert(
      fc.property(appText, (text) => {
        const config = parseOrOwnError(() => parseAppConfig(text), [ConfigError], text);
        if (config !== undefined) checkApp(config);
      }),
      fuzzParameters(300),
    );
  });
});

describe("config.toml", () => {
  test("parses into a config that keeps its promises, or fails with one ConfigError", () => {
    fc.assert(
      fc.property(nodeText, (text) => {
        const config = parseOrOwnError(() => parseNodeConfig(text, HOME), [ConfigError], text);
        if (config !== undefined) checkNode(config);
      }),
      fuzzParameters(300),
    );
  });
});

describe("app.toml and config.toml in a home", () => {
  test("loading them writes nothing, whatever they hold", async () => {
    await fc.assert(
      fc.asyncProperty(appText, nodeText, async (app, node) => {
        await withSandbox(async (home) => {
          await mkdir(join(home, "config"));
          await writeFile(join(home, "config", "app.toml"), app);
          await writeFile(join(home, "config", "config.toml"), node);
          const before = await listTree(home);
          await parseOrOwnErrorAsync(() => loadAppConfig(home), [ConfigError], app);
          await parseOrOwnErrorAsync(() => loadNodeConfig(home), [ConfigError], node);
          assert.deepEqual(await listTree(home), before);
        });
      }),
      fuzzParameters(20),
    );
  });
});
