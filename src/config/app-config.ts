// Loading app.toml into a typed AppConfig (docs/CONTRACT.md §7). Every problem names the file, the dotted key and
// what was expected, and all of them are reported at once, before anything starts.
import type { PruningOptions } from "../store/types.ts";
import { DEC_COINS_EXPECTED, type GasPrice, parseDecCoins } from "./dec-coins.ts";
import { currentBinaryName, homePaths } from "./home.ts";
import { HOST_PORT_EXPECTED, type HostPort, type ListenAddress, parseHostPort } from "./listen-address.ts";
import { PRUNING_STRATEGIES, resolvePruning } from "./pruning.ts";
import { parseTomlText, readSchemeAddress, readTomlFile, TomlFieldReader } from "./toml-reader.ts";

/** The REST gateway settings ([api]). */
export interface ApiConfig {
  enable: boolean;
  swagger: boolean;
  /** Serve the upgrade status page at /upgrade (src/server/upgrade-page.ts). */
  upgradePage: boolean;
  address: ListenAddress;
  /** 0 = no limit. */
  maxOpenConnections: number;
  rpcReadTimeoutSeconds: number;
  /** 0 = no limit. */
  rpcWriteTimeoutSeconds: number;
  rpcMaxBodyBytes: number;
  enabledUnsafeCors: boolean;
  /** Exact origins (`scheme://host[:port]`), or "*" for any. */
  corsAllowedOrigins: string[];
}

/** The gRPC server settings ([grpc]). Sizes are resolved: 0 in the file becomes the default. */
export interface GrpcConfig {
  enable: boolean;
  address: HostPort & { address: string };
  maxRecvMsgSize: number;
  maxSendMsgSize: number;
}

/** app.toml `[state-sync]` (upstream's keys and defaults). */
export interface StateSyncConfig {
  /** Take a snapshot every this many heights; 0n = off. */
  snapshotInterval: bigint;
  /** Snapshots kept (the newest); 0 = keep all. */
  snapshotKeepRecent: number;
}

/** app.toml `[telemetry]` (upstream's keys; the rest of upstream's section is accepted and unused). */
export interface TelemetryConfig {
  enabled: boolean;
  /** The metric prefix: `service-name`, "chaind" when empty. */
  serviceName: string;
}

/** Everything app.toml says, typed. */
export interface AppConfig {
  /** The file it came from. */
  file: string;
  /** Parsed `minimum-gas-prices`, sorted by denom ([] when the key is ""). */
  minimumGasPrices: GasPrice[];
  pruning: PruningOptions;
  /**
   * `pruning-keep-recent` and `pruning-interval` as the file gives them (0 when absent), whatever the strategy:
   * the node service's Config echoes them, as upstream's does. What pruning does is `pruning`.
   */
  pruningSettings: { keepRecent: bigint; interval: bigint };
  /** 0n = off. */
  haltHeight: bigint;
  /** Unix seconds; 0n = off. */
  haltTime: bigint;
  /** 0n = keep every block. */
  minRetainBlocks: bigint;
  /** `query-gas-limit`: the most gas one query may use; 0n = unbounded. */
  queryGasLimit: bigint;
  /**
   * `in-place-upgrades` (alias `replay-releases`, the key's first name; either one set to true turns the mode on):
   * run the rules of the release active on chain at each height and apply the upgrades this binary's release line
   * knows in process, without halting (src/replay). Default false: docs/CONTRACT.md §2.4 as is.
   */
  inPlaceUpgrades: boolean;
  api: ApiConfig;
  grpc: GrpcConfig;
  /** `[state-sync]`: snapshots for nodes joining by state sync. */
  stateSync: StateSyncConfig;
  /** `[telemetry]`: application metrics on the REST server. */
  telemetry: TelemetryConfig;
  /** Keys in the file that chaind does not use (dotted), for a warning; upstream-only keys are not listed. */
  unknownKeys: string[];
}

/** Default gRPC message limits, used when the file says 0 (as upstream does). */
export const DEFAULT_GRPC_MAX_RECV_MSG_SIZE = 10 * 1024 * 1024;
/** app.toml grpc.max-send-msg-size default (upstream: math.MaxInt32). */
export const DEFAULT_GRPC_MAX_SEND_MSG_SIZE = 2147483647;

const MAX_UINT64 = (1n << 64n) - 1n;
const MAX_INT32 = 2147483647;
// Node's timers overflow above 2^31-1 ms, so longer timeouts could not be honoured.
const MAX_TIMEOUT_SECONDS = Math.floor(MAX_INT32 / 1000);
const SECONDS = `a whole number of seconds from 0 to ${MAX_TIMEOUT_SECONDS}`;

// Keys an upstream app.toml carries that chaind has no use for: accepted silently, so an operator
// who copies a file over sees warnings only for real typos.
const UPSTREAM_ONLY_KEYS = [
  "inter-block-cache",
  "index-events",
  "iavl-cache-size",
  "iavl-disable-fastnode",
  "iavl-lazy-loading",
  "app-db-backend",
  "grpc.skip-check-header",
  "grpc.historical-grpc-address-block-range",
  "telemetry.",
  "grpc-web.",
  "streaming.",
  "mempool.",
  "store.",
  "wasm.",
];

/**
 * Reads `<home>/config/app.toml` into an AppConfig. Absent keys take their defaults; anything
 * malformed throws one ConfigError listing every problem as `<file>: <key>: expected <x>, got <y>`.
 *
 * @example const app = await loadAppConfig(home); app.api.address // { protocol: "tcp", host: "localhost", port: 1317, ... }
 */
export async function loadAppConfig(home: string): Promise<AppConfig> {
  const file = homePaths(home).appToml;
  const { tree } = await readTomlFile(file, `run "${currentBinaryName()} init" to create it`);
  return appConfigFromTree(tree, file);
}

/** Parses app.toml text (e.g. from a test or a flag) the same way {@link loadAppConfig} parses the file. */
export function parseAppConfig(text: string, file = "app.toml"): AppConfig {
  return appConfigFromTree(parseTomlText(text, file), file);
}

function appConfigFromTree(tree: Record<string, unknown>, file: string): AppConfig {
  const read = new TomlFieldReader(file, tree);

  const gasText = read.string("minimum-gas-prices", "", { expected: DEC_COINS_EXPECTED });
  const gas = parseDecCoins(gasText);
  let minimumGasPrices: GasPrice[] = [];
  if (Array.isArray(gas)) minimumGasPrices = gas;
  else read.problem("minimum-gas-prices", DEC_COINS_EXPECTED, gasText, gas.reason);

  const strategy = read.oneOf("pruning", PRUNING_STRATEGIES, "default");
  const problemsBeforePruning = read.problems.length;
  const keepRecent = read.integer("pruning-keep-recent", 0n, { min: 0n, max: MAX_UINT64 });
  const interval = read.integer("pruning-interval", 0n, { min: 0n, max: MAX_UINT64 });
  let pruning: PruningOptions = { strategy: "default", keepRecent: 362880n, interval: 10n };
  // The custom floors are only checked on numbers that parsed: a malformed "abc" is already
  // reported, and its stand-in 0 would add a second, misleading "at least 2 … got "abc"" line.
  if (read.problems.length === problemsBeforePruning) {
    const resolved = resolvePruning(strategy, keepRecent, interval);
    if ("strategy" in resolved) pruning = resolved;
    else read.problem(resolved.key, resolved.expected, read.raw(resolved.key) ?? "0", resolved.reason);
  }

  const haltHeight = read.integer("halt-height", 0n, { min: 0n, max: MAX_UINT64 });
  const haltTime = read.integer("halt-time", 0n, { min: 0n, max: MAX_UINT64 });
  const minRetainBlocks = read.integer("min-retain-blocks", 0n, { min: 0n, max: MAX_UINT64 });
  const queryGasLimit = read.integer("query-gas-limit", 0n, { min: 0n, max: MAX_UINT64 });
  // Both keys are read (and checked) so that an app.toml written before the rename keeps its meaning.
  const inPlaceKey = read.boolean("in-place-upgrades", false);
  const replayKey = read.boolean("replay-releases", false);
  const inPlaceUpgrades = inPlaceKey || replayKey;

  const api: ApiConfig = {
    enable: read.boolean("api.enable", true),
    swagger: read.boolean("api.swagger", true),
    upgradePage: read.boolean("api.upgrade-page", false),
    address: readSchemeAddress(read, "api.address", "tcp://localhost:1317"),
    maxOpenConnections: read.count("api.max-open-connections", 1000),
    rpcReadTimeoutSeconds: read.count("api.rpc-read-timeout", 10, { max: MAX_TIMEOUT_SECONDS, expected: SECONDS }),
    rpcWriteTimeoutSeconds: read.count("api.rpc-write-timeout", 0, { max: MAX_TIMEOUT_SECONDS, expected: SECONDS }),
    // At least 1: the gateway cannot run with a zero body limit, and "no body at all" is no setting for a node
    // whose tx routes take bodies.
    rpcMaxBodyBytes: read.count("api.rpc-max-body-bytes", 1000000, { min: 1 }),
    enabledUnsafeCors: read.boolean("api.enabled-unsafe-cors", false),
    corsAllowedOrigins: readOrigins(read, "api.cors-allowed-origins"),
  };

  const grpcAddressText = read.string("grpc.address", "localhost:9090");
  let grpcAddress = parseHostPort(grpcAddressText);
  if (grpcAddress === undefined) {
    read.problem(
      "grpc.address",
      HOST_PORT_EXPECTED,
      grpcAddressText,
      grpcAddressText.includes("://") ? "remove the scheme" : undefined,
    );
    grpcAddress = { host: "localhost", port: 9090 };
  }
  const recv = read.count("grpc.max-recv-msg-size", DEFAULT_GRPC_MAX_RECV_MSG_SIZE, { max: MAX_INT32 });
  const send = read.count("grpc.max-send-msg-size", DEFAULT_GRPC_MAX_SEND_MSG_SIZE, { max: MAX_INT32 });
  const grpc: GrpcConfig = {
    enable: read.boolean("grpc.enable", true),
    address: { ...grpcAddress, address: grpcAddressText },
    maxRecvMsgSize: recv === 0 ? DEFAULT_GRPC_MAX_RECV_MSG_SIZE : recv,
    maxSendMsgSize: send === 0 ? DEFAULT_GRPC_MAX_SEND_MSG_SIZE : send,
  };

  const stateSync: StateSyncConfig = {
    snapshotInterval: read.integer("state-sync.snapshot-interval", 0n, { min: 0n, max: MAX_UINT64 }),
    snapshotKeepRecent: read.count("state-sync.snapshot-keep-recent", 2, { max: MAX_INT32 }),
  };
  // Upstream's Config.ValidateBasic refuses this pair: "everything" keeps only the last 2 versions, so a
  // node would advertise snapshots of heights whose state it no longer holds for peers to cross-check.
  if (strategy === "everything" && stateSync.snapshotInterval > 0n) {
    read.problem(
      "state-sync.snapshot-interval",
      '0 when pruning = "everything"',
      read.raw("state-sync.snapshot-interval"),
      "cannot enable state sync snapshots with 'everything' pruning setting",
    );
  }

  const serviceText = read.string("telemetry.service-name", "");
  if (serviceText !== "" && !/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(serviceText)) {
    read.problem("telemetry.service-name", "letters, digits and underscores, not starting with a digit", serviceText);
  }
  const telemetry: TelemetryConfig = {
    enabled: read.boolean("telemetry.enabled", false),
    serviceName: serviceText === "" ? "chaind" : serviceText,
  };

  const unknownKeys = read.unknownKeys(UPSTREAM_ONLY_KEYS);
  read.finish();
  return {
    file,
    minimumGasPrices,
    pruning,
    pruningSettings: { keepRecent, interval },
    haltHeight,
    haltTime,
    minRetainBlocks,
    queryGasLimit,
    inPlaceUpgrades,
    api,
    grpc,
    stateSync,
    telemetry,
    unknownKeys,
  };
}

const ORIGINS_EXPECTED = 'a list of origins such as ["https://example.com", "http://localhost:3000"], or ["*"]';

function readOrigins(read: TomlFieldReader, key: string): string[] {
  const origins = read.stringList(key, []);
  for (const origin of origins) {
    if (origin === "*") continue;
    let normalized: string | undefined;
    try {
      normalized = new URL(origin).origin;
    } catch {
      normalized = undefined;
    }
    // A browser sends the bare origin; anything else (a path, a trailing slash) would never match.
    if (normalized === undefined || normalized === "null" || normalized !== origin) {
      read.problem(key, ORIGINS_EXPECTED, origins, `"${origin}" is not a bare origin (scheme, host, optional port)`);
      return [];
    }
  }
  return origins;
}
