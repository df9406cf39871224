// Loading config.toml (CometBFT v0.38 key names) into a typed NodeConfig: durations in milliseconds,
// paths resolved against the home directory, addresses parsed. The checks follow CometBFT's own
// (negative values, unknown enum values), reported the chaind way: file, key, what was expected.
import { resolve } from "node:path";
import { currentBinaryName, homePaths } from "./home.ts";
import { readLogSettings } from "./home-log-settings.ts";
import { type HostPort, type ListenAddress, parseHostPort, parseListenAddress } from "./listen-address.ts";
import { parseTomlText, readSchemeAddress, readTomlFile, TomlFieldReader } from "./toml-reader.ts";

/** [rpc]: the consensus RPC server. Durations in ms. */
export interface RpcConfig {
  laddr: ListenAddress;
  corsAllowedOrigins: string[];
  corsAllowedMethods: string[];
  corsAllowedHeaders: string[];
  grpcLaddr: string;
  grpcMaxOpenConnections: number;
  unsafe: boolean;
  /** 0 = no limit. */
  maxOpenConnections: number;
  maxSubscriptionClients: number;
  maxSubscriptionsPerClient: number;
  subscriptionBufferSize: number;
  webSocketWriteBufferSize: number;
  closeOnSlowClient: boolean;
  timeoutBroadcastTxCommitMs: number;
  /** 0 = no limit. */
  maxRequestBatchSize: number;
  maxBodyBytes: number;
  maxHeaderBytes: number;
  tlsCertFile: string;
  tlsKeyFile: string;
  pprofLaddr: string;
}

/** A peer as written in persistent_peers / seeds: `<node id>@<host>:<port>`. */
export interface PeerAddress {
  id: string;
  host: string;
  port: number;
}

/** [p2p]: used only by CometBFT, validated so a shared home stays valid for it. */
export interface P2PConfig {
  laddr: ListenAddress;
  externalAddress: string;
  seeds: PeerAddress[];
  persistentPeers: PeerAddress[];
  addrBookFile: string;
  addrBookStrict: boolean;
  maxNumInboundPeers: number;
  maxNumOutboundPeers: number;
  unconditionalPeerIds: string[];
  persistentPeersMaxDialPeriodMs: number;
  flushThrottleTimeoutMs: number;
  maxPacketMsgPayloadSize: number;
  sendRate: number;
  recvRate: number;
  pex: boolean;
  seedMode: boolean;
  privatePeerIds: string[];
  allowDuplicateIp: boolean;
  handshakeTimeoutMs: number;
  dialTimeoutMs: number;
}

/** [mempool]. */
export interface MempoolConfig {
  type: "flood" | "nop";
  recheck: boolean;
  recheckTimeoutMs: number;
  broadcast: boolean;
  /** Absolute, or "" for none. */
  walDir: string;
  /** Transactions held at most. */
  size: number;
  /** Total bytes held at most. */
  maxTxsBytes: number;
  cacheSize: number;
  keepInvalidTxsInCache: boolean;
  /** Largest single transaction. */
  maxTxBytes: number;
  maxBatchBytes: number;
  maxGossipConnectionsToPersistentPeers: number;
  maxGossipConnectionsToNonPersistentPeers: number;
}

/** [consensus]. Durations in ms. */
export interface ConsensusConfig {
  walFile: string;
  timeoutProposeMs: number;
  timeoutProposeDeltaMs: number;
  timeoutPrevoteMs: number;
  timeoutPrevoteDeltaMs: number;
  timeoutPrecommitMs: number;
  timeoutPrecommitDeltaMs: number;
  /** The pause between blocks. */
  timeoutCommitMs: number;
  doubleSignCheckHeight: bigint;
  skipTimeoutCommit: boolean;
  createEmptyBlocks: boolean;
  createEmptyBlocksIntervalMs: number;
  peerGossipSleepDurationMs: number;
  peerQueryMaj23SleepDurationMs: number;
}

/** Everything config.toml says, typed. Paths are absolute. */
export interface NodeConfig {
  file: string;
  home: string;
  version: string;
  /** The ABCI socket (`chaind start --abci` listens here). */
  proxyApp: ListenAddress;
  moniker: string;
  dbBackend: string;
  dbDir: string;
  logLevel: string;
  logFormat: "plain" | "json";
  genesisFile: string;
  privValidatorKeyFile: string;
  privValidatorStateFile: string;
  privValidatorLaddr: string;
  nodeKeyFile: string;
  abci: "socket" | "grpc";
  filterPeers: boolean;
  rpc: RpcConfig;
  p2p: P2PConfig;
  mempool: MempoolConfig;
  statesync: { enable: boolean };
  blocksync: { version: "v0" };
  consensus: ConsensusConfig;
  storage: { discardAbciResponses: boolean };
  txIndex: { indexer: "kv" | "null" | "psql"; psqlConn: string };
  instrumentation: {
    prometheus: boolean;
    /** As written (CometBFT's ":26660" form); `prometheusListen` is it parsed (an empty host = every interface). */
    prometheusListenAddr: string;
    prometheusListen: HostPort;
    maxOpenConnections: number;
    namespace: string;
  };
  /** Keys in the file that neither chaind nor CometBFT v0.38 uses (dotted), for a warning. */
  unknownKeys: string[];
}

// Keys of other CometBFT releases: harmless here, so they are not reported as unknown.
const OTHER_RELEASE_KEYS = [
  "p2p.upnp",
  "p2p.test_dial_fail",
  "p2p.test_fuzz",
  "p2p.test_fuzz_config.",
  "p2p.libp2p.",
  "mempool.version",
  "mempool.ttl-duration",
  "mempool.ttl-num-blocks",
  "statesync.max_snapshot_chunks",
  "blocksync.follower_mode",
  "blocksync.recv_rate",
  "consensus.block_time_tolerance",
  "consensus.timeout_round",
  "fastsync.",
  "storage.",
  "grpc.",
];

// Semantic versioning 2.0.0, as CometBFT checks `version`.
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
const NODE_ID = /^[0-9a-fA-F]{40}$/;
const INT32_MAX = 2147483647;

/**
 * Reads `<home>/config/config.toml` into a NodeConfig. Absent keys take CometBFT's defaults; anything
 * malformed throws one ConfigError listing every problem (`<file>: consensus.timeout_commit: expected a
 * duration such as "1s", "500ms" or "1h30m", got "fast"`).
 *
 * @example const node = await loadNodeConfig(home); setTimeout(next, node.consensus.timeoutCommitMs)
 */
export async function loadNodeConfig(home: string): Promise<NodeConfig> {
  const paths = homePaths(home);
  const { tree } = await readTomlFile(paths.configToml, `run "${currentBinaryName()} init" to create it`);
  return nodeConfigFromTree(tree, paths.configToml, paths.home);
}

/** Parses config.toml text the same way {@link loadNodeConfig} parses the file; paths resolve against `home`. */
export function parseNodeConfig(text: string, home: string, file = "config.toml"): NodeConfig {
  return nodeConfigFromTree(parseTomlText(text, file), file, resolve(home));
}

function nodeConfigFromTree(tree: Record<string, unknown>, file: string, home: string): NodeConfig {
  const read = new TomlFieldReader(file, tree);
  const path = (key: string, fallback: string): string => {
    const value = read.string(key, fallback);
    return value === "" ? "" : resolve(home, value);
  };
  const count = (key: string, fallback: number, min = 0): number => read.count(key, fallback, { min, max: INT32_MAX });
  const bytes = (key: string, fallback: number): number => read.count(key, fallback);

  const version = read.string("version", "");
  if (version !== "" && !SEMVER.test(version)) read.problem("version", 'a version such as "0.38.25"', version);

  const proxyText = read.string("proxy_app", "tcp://127.0.0.1:26658");
  let proxyApp = parseListenAddress(proxyText, { schemeOptional: true });
  if (proxyApp === undefined) {
    read.problem(
      "proxy_app",
      'the application\'s address, "tcp://<host>:<port>" or "unix:///<path>"',
      proxyText,
      `${currentBinaryName()} has no built-in applications such as kvstore`,
    );
    proxyApp = parseListenAddress("tcp://127.0.0.1:26658") as ListenAddress;
  }

  const rpc: RpcConfig = {
    laddr: readSchemeAddress(read, "rpc.laddr", "tcp://127.0.0.1:26657"),
    corsAllowedOrigins: read.stringList("rpc.cors_allowed_origins", []),
    corsAllowedMethods: read.stringList("rpc.cors_allowed_methods", ["HEAD", "GET", "POST"]),
    corsAllowedHeaders: read.stringList("rpc.cors_allowed_headers", [
      "Origin",
      "Accept",
      "Content-Type",
      "X-Requested-With",
      "X-Server-Time",
    ]),
    grpcLaddr: read.string("rpc.grpc_laddr", ""),
    grpcMaxOpenConnections: count("rpc.grpc_max_open_connections", 900),
    unsafe: read.boolean("rpc.unsafe", false),
    maxOpenConnections: count("rpc.max_open_connections", 900),
    maxSubscriptionClients: count("rpc.max_subscription_clients", 100),
    maxSubscriptionsPerClient: count("rpc.max_subscriptions_per_client", 5),
    subscriptionBufferSize: count("rpc.experimental_subscription_buffer_size", 200, 100),
    webSocketWriteBufferSize: count("rpc.experimental_websocket_write_buffer_size", 200),
    closeOnSlowClient: read.boolean("rpc.experimental_close_on_slow_client", false),
    timeoutBroadcastTxCommitMs: read.durationMs("rpc.timeout_broadcast_tx_commit", 10_000),
    maxRequestBatchSize: count("rpc.max_request_batch_size", 10),
    maxBodyBytes: bytes("rpc.max_body_bytes", 1000000),
    maxHeaderBytes: count("rpc.max_header_bytes", 1048576),
    tlsCertFile: read.string("rpc.tls_cert_file", ""),
    tlsKeyFile: read.string("rpc.tls_key_file", ""),
    pprofLaddr: read.string("rpc.pprof_laddr", ""),
  };
  if (rpc.webSocketWriteBufferSize < rpc.subscriptionBufferSize) {
    read.problem(
      "rpc.experimental_websocket_write_buffer_size",
      `at least experimental_subscription_buffer_size (${rpc.subscriptionBufferSize})`,
      read.raw("rpc.experimental_websocket_write_buffer_size") ?? BigInt(rpc.webSocketWriteBufferSize),
    );
  }

  const p2p: P2PConfig = {
    laddr: readSchemeAddress(read, "p2p.laddr", "tcp://0.0.0.0:26656"),
    externalAddress: read.string("p2p.external_address", ""),
    seeds: readPeers(read, "p2p.seeds"),
    persistentPeers: readPeers(read, "p2p.persistent_peers"),
    addrBookFile: path("p2p.addr_book_file", "config/addrbook.json"),
    addrBookStrict: read.boolean("p2p.addr_book_strict", true),
    maxNumInboundPeers: count("p2p.max_num_inbound_peers", 40),
    maxNumOutboundPeers: count("p2p.max_num_outbound_peers", 10),
    unconditionalPeerIds: readNodeIds(read, "p2p.unconditional_peer_ids"),
    persistentPeersMaxDialPeriodMs: read.durationMs("p2p.persistent_peers_max_dial_period", 0),
    flushThrottleTimeoutMs: read.durationMs("p2p.flush_throttle_timeout", 100),
    maxPacketMsgPayloadSize: count("p2p.max_packet_msg_payload_size", 1024),
    sendRate: bytes("p2p.send_rate", 5120000),
    recvRate: bytes("p2p.recv_rate", 5120000),
    pex: read.boolean("p2p.pex", true),
    seedMode: read.boolean("p2p.seed_mode", false),
    privatePeerIds: readNodeIds(read, "p2p.private_peer_ids"),
    allowDuplicateIp: read.boolean("p2p.allow_duplicate_ip", false),
    handshakeTimeoutMs: read.durationMs("p2p.handshake_timeout", 20_000),
    dialTimeoutMs: read.durationMs("p2p.dial_timeout", 3_000),
  };

  // CometBFT treats an empty mempool type as "flood", for files older than the key.
  const mempoolType = read.oneOf("mempool.type", ["flood", "nop", ""], "flood");
  const mempool: MempoolConfig = {
    type: mempoolType === "" ? "flood" : mempoolType,
    recheck: read.boolean("mempool.recheck", true),
    recheckTimeoutMs: read.durationMs("mempool.recheck_timeout", 1_000),
    broadcast: read.boolean("mempool.broadcast", true),
    walDir: path("mempool.wal_dir", ""),
    size: count("mempool.size", 5000),
    maxTxsBytes: bytes("mempool.max_txs_bytes", 1073741824),
    cacheSize: count("mempool.cache_size", 10000),
    keepInvalidTxsInCache: read.boolean("mempool.keep-invalid-txs-in-cache", false),
    maxTxBytes: count("mempool.max_tx_bytes", 1048576),
    maxBatchBytes: count("mempool.max_batch_bytes", 0),
    maxGossipConnectionsToPersistentPeers: count("mempool.experimental_max_gossip_connections_to_persistent_peers", 0),
    maxGossipConnectionsToNonPersistentPeers: count(
      "mempool.experimental_max_gossip_connections_to_non_persistent_peers",
      0,
    ),
  };

  // State sync belongs to CometBFT; its keys are checked for shape only, so CometBFT can start.
  const statesync = { enable: read.boolean("statesync.enable", false) };
  read.string("statesync.rpc_servers", "");
  read.integer("statesync.trust_height", 0n, { min: 0n });
  read.string("statesync.trust_hash", "");
  read.durationMs("statesync.trust_period", 604_800_000);
  read.durationMs("statesync.discovery_time", 15_000);
  read.string("statesync.temp_dir", "");
  read.durationMs("statesync.chunk_request_timeout", 10_000);
  read.integer("statesync.chunk_fetchers", 4n, { min: 0n, max: BigInt(INT32_MAX) });

  const blocksyncVersion = read.oneOf("blocksync.version", ["v0"], "v0");

  const consensus: ConsensusConfig = {
    walFile: path("consensus.wal_file", "data/cs.wal/wal"),
    timeoutProposeMs: read.durationMs("consensus.timeout_propose", 3_000),
    timeoutProposeDeltaMs: read.durationMs("consensus.timeout_propose_delta", 500),
    timeoutPrevoteMs: read.durationMs("consensus.timeout_prevote", 1_000),
    timeoutPrevoteDeltaMs: read.durationMs("consensus.timeout_prevote_delta", 500),
    timeoutPrecommitMs: read.durationMs("consensus.timeout_precommit", 1_000),
    timeoutPrecommitDeltaMs: read.durationMs("consensus.timeout_precommit_delta", 500),
    timeoutCommitMs: read.durationMs("consensus.timeout_commit", 1_000),
    doubleSignCheckHeight: read.integer("consensus.double_sign_check_height", 0n, { min: 0n, max: (1n << 63n) - 1n }),
    skipTimeoutCommit: read.boolean("consensus.skip_timeout_commit", false),
    createEmptyBlocks: read.boolean("consensus.create_empty_blocks", true),
    createEmptyBlocksIntervalMs: read.durationMs("consensus.create_empty_blocks_interval", 0),
    peerGossipSleepDurationMs: read.durationMs("consensus.peer_gossip_sleep_duration", 100),
    peerQueryMaj23SleepDurationMs: read.durationMs("consensus.peer_query_maj23_sleep_duration", 2_000),
  };
  if (mempool.type === "nop" && !consensus.createEmptyBlocks) {
    read.problem(
      "consensus.create_empty_blocks",
      'true when mempool.type = "nop"',
      false,
      "a nop mempool never signals new transactions",
    );
  }

  const config: NodeConfig = {
    file,
    home,
    version,
    proxyApp,
    moniker: read.string("moniker", ""),
    dbBackend: read.string("db_backend", "goleveldb"),
    dbDir: path("db_dir", "data"),
    ...readLogSettings(read),
    genesisFile: path("genesis_file", "config/genesis.json"),
    privValidatorKeyFile: path("priv_validator_key_file", "config/priv_validator_key.json"),
    privValidatorStateFile: path("priv_validator_state_file", "data/priv_validator_state.json"),
    privValidatorLaddr: read.string("priv_validator_laddr", ""),
    nodeKeyFile: path("node_key_file", "config/node_key.json"),
    abci: read.oneOf("abci", ["socket", "grpc"], "socket"),
    filterPeers: read.boolean("filter_peers", false),
    rpc,
    p2p,
    mempool,
    statesync,
    blocksync: { version: blocksyncVersion },
    consensus,
    storage: { discardAbciResponses: read.boolean("storage.discard_abci_responses", false) },
    txIndex: {
      indexer: read.oneOf("tx_index.indexer", ["kv", "null", "psql"], "kv"),
      psqlConn: read.string("tx_index.psql-conn", ""),
    },
    instrumentation: readInstrumentation(read, count),
    unknownKeys: [],
  };
  config.unknownKeys = read.unknownKeys(OTHER_RELEASE_KEYS);
  read.finish();
  return config;
}

const NAMESPACE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

// [instrumentation]: the embedded engine's metrics listener (src/engine/consensus-metrics.ts). The address and
// namespace are checked here so a typo stops the node before anything starts, not at the first scrape.
function readInstrumentation(
  read: TomlFieldReader,
  count: (key: string, fallback: number, min?: number) => number,
): NodeConfig["instrumentation"] {
  const addrText = read.string("instrumentation.prometheus_listen_addr", ":26660");
  let listen = parseHostPort(addrText);
  if (listen === undefined) {
    read.problem("instrumentation.prometheus_listen_addr", '"<host>:<port>" or ":<port>", e.g. ":26660"', addrText);
    listen = { host: "0.0.0.0", port: 26660 };
  }
  const namespace = read.string("instrumentation.namespace", "cometbft");
  if (!NAMESPACE.test(namespace)) {
    read.problem("instrumentation.namespace", "letters, digits and underscores, not starting with a digit", namespace);
  }
  return {
    prometheus: read.boolean("instrumentation.prometheus", false),
    prometheusListenAddr: addrText,
    prometheusListen: listen,
    maxOpenConnections: count("instrumentation.max_open_connections", 3),
    namespace,
  };
}

const PEERS_EXPECTED = 'a comma-separated list of "<node id>@<host>:<port>" (node id: 40 hex characters)';

function splitList(text: string): string[] {
  return text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

function readPeers(read: TomlFieldReader, key: string): PeerAddress[] {
  const text = read.string(key, "", { expected: PEERS_EXPECTED });
  const peers: PeerAddress[] = [];
  for (const item of splitList(text)) {
    const at = item.indexOf("@");
    const id = at < 0 ? "" : item.slice(0, at);
    const hostPort = at < 0 ? undefined : parseHostPort(item.slice(at + 1));
    if (!NODE_ID.test(id) || hostPort === undefined) {
      read.problem(key, PEERS_EXPECTED, text, `"${item}" does not fit`);
      return [];
    }
    peers.push({ id: id.toLowerCase(), ...hostPort });
  }
  return peers;
}

function readNodeIds(read: TomlFieldReader, key: string): string[] {
  const expected = "a comma-separated list of node IDs (40 hex characters each)";
  const text = read.string(key, "", { expected });
  const ids = splitList(text);
  const bad = ids.find((id) => !NODE_ID.test(id));
  if (bad !== undefined) {
    read.problem(key, expected, text, `"${bad}" is not a node ID`);
    return [];
  }
  return ids.map((id) => id.toLowerCase());
}
