// The config.toml that `chaind init` writes: CometBFT v0.38's key names, sections and defaults, so a
// real `cometbft node --home <same home>` runs on it unchanged, while the embedded engine reads the
// keys it uses (consensus timing, RPC, mempool, tx index). Comments are our own.
import { hostname } from "node:os";
import { renderTemplate, type TemplateOverrides, type TemplateSection } from "./toml-template.ts";

/** The CometBFT release whose config layout this template follows (written as `version`). */
export const COMETBFT_CONFIG_VERSION = "0.38.25";

const HEADER = [
  "Consensus, RPC and networking settings (config.toml), in CometBFT v0.38's format: the embedded",
  "engine of <binary> reads it, and a CometBFT node started with --home on this directory reads it too.",
  "",
  'Relative paths are taken from the home directory. Durations are written like "1s", "500ms", "1h30m".',
];

/** The sections and keys of config.toml, with CometBFT v0.38's defaults (moniker aside). */
export const CONFIG_TOML_SECTIONS: readonly TemplateSection[] = [
  {
    name: "",
    title: "Base settings",
    entries: [
      {
        key: "version",
        value: COMETBFT_CONFIG_VERSION,
        comment: ["The CometBFT config format this file follows. Leave it as it is."],
      },
      {
        key: "proxy_app",
        value: "tcp://127.0.0.1:26658",
        comment: [
          "The ABCI socket: `<binary> start --abci` listens here and CometBFT connects to it.",
          '"tcp://<host>:<port>" or "unix:///<path>".',
        ],
      },
      { key: "moniker", value: "", comment: ["A human-readable name for this node."] },
      {
        key: "db_backend",
        value: "goleveldb",
        comment: ["CometBFT's database engine for its own stores (<binary>'s stores are always LevelDB)."],
      },
      { key: "db_dir", value: "data", comment: ["Directory of the databases."] },
      {
        key: "log_level",
        value: "info",
        comment: [
          'The node\'s log level (--log_level wins): "info", or per-module levels such as "x/upgrade:debug,*:info"',
          '(lines of a module not listed, and lines without a module, use the "*" level; "info" without one).',
        ],
      },
      {
        key: "log_format",
        value: "plain",
        comment: ['The node\'s log format (--log_format wins): "plain" or "json".'],
      },
      { key: "genesis_file", value: "config/genesis.json", comment: ["The genesis document."] },
      {
        key: "priv_validator_key_file",
        value: "config/priv_validator_key.json",
        comment: ["The validator's consensus signing key."],
      },
      {
        key: "priv_validator_state_file",
        value: "data/priv_validator_state.json",
        comment: ["The last height, round and step signed, which guards against double signing."],
      },
      {
        key: "priv_validator_laddr",
        value: "",
        comment: ["Address on which to wait for an external signer instead of using the key file; empty = none."],
      },
      { key: "node_key_file", value: "config/node_key.json", comment: ["The node's peer-to-peer identity key."] },
      { key: "abci", value: "socket", comment: ['How CometBFT talks to the application: "socket" or "grpc".'] },
      {
        key: "filter_peers",
        value: false,
        comment: ["Ask the application whether to keep each new peer connection."],
      },
    ],
  },
  {
    name: "rpc",
    title: "Consensus RPC server",
    entries: [
      {
        key: "laddr",
        value: "tcp://127.0.0.1:26657",
        comment: ['Where the JSON-RPC server listens: "tcp://<host>:<port>" or "unix:///<path>".'],
      },
      {
        key: "cors_allowed_origins",
        value: [],
        comment: ['Origins allowed to call the RPC from a browser; [] turns CORS off, ["*"] allows all.'],
      },
      { key: "cors_allowed_methods", value: ["HEAD", "GET", "POST"], comment: ["Methods allowed cross-origin."] },
      {
        key: "cors_allowed_headers",
        value: ["Origin", "Accept", "Content-Type", "X-Requested-With", "X-Server-Time"],
        comment: ["Request headers allowed cross-origin."],
      },
      {
        key: "grpc_laddr",
        value: "",
        comment: ["CometBFT's own broadcast-only gRPC endpoint; empty = off (not <binary>'s gRPC server)."],
      },
      {
        key: "grpc_max_open_connections",
        value: 900,
        comment: ["Connections allowed on grpc_laddr at once; 0 = no limit."],
      },
      { key: "unsafe", value: false, comment: ["Enable the unsafe RPC methods (dial peers, flush the mempool)."] },
      {
        key: "max_open_connections",
        value: 900,
        comment: ["HTTP and WebSocket connections allowed at once; 0 = no limit. Keep it below the open-file limit."],
      },
      { key: "max_subscription_clients", value: 100, comment: ["Clients that may hold event subscriptions."] },
      { key: "max_subscriptions_per_client", value: 5, comment: ["Subscriptions one client may hold."] },
      {
        key: "experimental_subscription_buffer_size",
        value: 200,
        comment: ["Events buffered per subscription before it is closed (at least 100)."],
      },
      {
        key: "experimental_websocket_write_buffer_size",
        value: 200,
        comment: ["Responses buffered per WebSocket client (at least experimental_subscription_buffer_size)."],
      },
      {
        key: "experimental_close_on_slow_client",
        value: false,
        comment: ["Close a WebSocket whose client reads too slowly, instead of dropping events."],
      },
      {
        key: "timeout_broadcast_tx_commit",
        value: "10s",
        comment: ["How long broadcast_tx_commit waits for the transaction to be included in a block."],
      },
      {
        key: "max_request_batch_size",
        value: 10,
        comment: ["Requests allowed in one JSON-RPC batch; 0 = no limit."],
      },
      { key: "max_body_bytes", value: 1000000, comment: ["Largest request body, in bytes (this bounds tx size)."] },
      { key: "max_header_bytes", value: 1048576, comment: ["Largest request header, in bytes."] },
      {
        key: "tls_cert_file",
        value: "",
        comment: ["Certificate for HTTPS, relative to the config directory; with tls_key_file, turns HTTPS on."],
      },
      { key: "tls_key_file", value: "", comment: ["Private key for HTTPS, relative to the config directory."] },
      { key: "pprof_laddr", value: "", comment: ["Address of CometBFT's profiling server; empty = off."] },
    ],
  },
  {
    name: "p2p",
    title: "Peer-to-peer networking (CometBFT only; the embedded engine has no peers)",
    entries: [
      { key: "laddr", value: "tcp://0.0.0.0:26656", comment: ["Where to listen for peers."] },
      {
        key: "external_address",
        value: "",
        comment: ['Address announced to peers ("<ip>:<port>"); empty = worked out from laddr.'],
      },
      { key: "seeds", value: "", comment: ['Seed nodes, comma-separated "<node id>@<host>:<port>".'] },
      {
        key: "persistent_peers",
        value: "",
        comment: ['Peers to stay connected to, comma-separated "<node id>@<host>:<port>".'],
      },
      { key: "addr_book_file", value: "config/addrbook.json", comment: ["The address book of known peers."] },
      {
        key: "addr_book_strict",
        value: true,
        comment: ["Refuse non-routable addresses; set false on private or loopback networks."],
      },
      { key: "max_num_inbound_peers", value: 40, comment: ["Inbound peers allowed."] },
      { key: "max_num_outbound_peers", value: 10, comment: ["Outbound peers dialled, persistent peers aside."] },
      {
        key: "unconditional_peer_ids",
        value: "",
        comment: ["Node IDs always allowed to connect, above the limits; comma-separated."],
      },
      {
        key: "persistent_peers_max_dial_period",
        value: "0s",
        comment: ["Longest pause between redials of a persistent peer; 0s = exponential backoff."],
      },
      { key: "flush_throttle_timeout", value: "100ms", comment: ["How long to batch outgoing messages."] },
      { key: "max_packet_msg_payload_size", value: 1024, comment: ["Largest packet payload, in bytes."] },
      { key: "send_rate", value: 5120000, comment: ["Upload limit per connection, bytes per second."] },
      { key: "recv_rate", value: 5120000, comment: ["Download limit per connection, bytes per second."] },
      { key: "pex", value: true, comment: ["Exchange peer addresses with other nodes."] },
      { key: "seed_mode", value: false, comment: ["Crawl the network and hand out addresses, then hang up."] },
      { key: "private_peer_ids", value: "", comment: ["Node IDs never gossiped to others; comma-separated."] },
      {
        key: "allow_duplicate_ip",
        value: false,
        comment: ["Accept several peers from one IP address (true for several nodes on one machine)."],
      },
      { key: "handshake_timeout", value: "20s", comment: ["Time allowed for a peer handshake."] },
      { key: "dial_timeout", value: "3s", comment: ["Time allowed for dialling a peer."] },
    ],
  },
  {
    name: "mempool",
    title: "Mempool",
    entries: [
      {
        key: "type",
        value: "flood",
        comment: ['"flood" (the usual mempool) or "nop" (the application keeps transactions itself).'],
      },
      {
        key: "recheck",
        value: true,
        comment: ["Check every waiting transaction again after each block, dropping those now invalid."],
      },
      { key: "recheck_timeout", value: "1s", comment: ["Time allowed for the recheck answers (CometBFT only)."] },
      { key: "broadcast", value: true, comment: ["Relay transactions to peers."] },
      { key: "wal_dir", value: "", comment: ["Write-ahead log of the mempool; empty = none."] },
      { key: "size", value: 5000, comment: ["Transactions the mempool holds at most."] },
      {
        key: "max_txs_bytes",
        value: 1073741824,
        comment: ["Total bytes of the transactions the mempool holds at most."],
      },
      { key: "cache_size", value: 10000, comment: ["Recently seen transactions remembered, to refuse duplicates."] },
      {
        key: "keep-invalid-txs-in-cache",
        value: false,
        comment: ["Remember invalid transactions too, so they are refused at once if sent again."],
      },
      { key: "max_tx_bytes", value: 1048576, comment: ["Largest single transaction, in bytes."] },
      { key: "max_batch_bytes", value: 0, comment: ["Unused by CometBFT v0.38; kept for its format."] },
      {
        key: "experimental_max_gossip_connections_to_persistent_peers",
        value: 0,
        comment: ["Persistent peers transactions are gossiped to at most; 0 = all."],
      },
      {
        key: "experimental_max_gossip_connections_to_non_persistent_peers",
        value: 0,
        comment: ["Other peers transactions are gossiped to at most; 0 = all."],
      },
    ],
  },
  {
    name: "statesync",
    title: "State sync (CometBFT only; the snapshots come from peers with app.toml [state-sync] on)",
    entries: [
      {
        key: "enable",
        value: false,
        comment: ["Start from a snapshot fetched from peers instead of replaying blocks."],
      },
      {
        key: "rpc_servers",
        value: "",
        comment: ["At least two RPC servers for light-client checks, comma-separated."],
      },
      { key: "trust_height", value: 0, comment: ["A trusted height and its block hash."] },
      { key: "trust_hash", value: "" },
      { key: "trust_period", value: "168h0m0s", comment: ["How long validators of a trusted header stay trusted."] },
      { key: "discovery_time", value: "15s", comment: ["Time spent looking for snapshots."] },
      { key: "temp_dir", value: "", comment: ["Where snapshot chunks are kept while restoring; empty = system temp."] },
      { key: "chunk_request_timeout", value: "10s", comment: ["Time before a chunk is asked for again."] },
      { key: "chunk_fetchers", value: "4", comment: ["Chunks fetched at once."] },
    ],
  },
  {
    name: "blocksync",
    title: "Block sync (CometBFT only)",
    entries: [{ key: "version", value: "v0", comment: ['The block sync protocol; only "v0" exists.'] }],
  },
  {
    name: "consensus",
    title: "Consensus",
    entries: [
      { key: "wal_file", value: "data/cs.wal/wal", comment: ["CometBFT's consensus write-ahead log."] },
      { key: "timeout_propose", value: "3s", comment: ["Time to wait for a proposal before voting nil."] },
      { key: "timeout_propose_delta", value: "500ms", comment: ["Added to timeout_propose each round."] },
      { key: "timeout_prevote", value: "1s", comment: ["Time to wait for more prevotes once 2/3 have arrived."] },
      { key: "timeout_prevote_delta", value: "500ms", comment: ["Added to timeout_prevote each round."] },
      { key: "timeout_precommit", value: "1s", comment: ["Time to wait for more precommits once 2/3 have arrived."] },
      { key: "timeout_precommit_delta", value: "500ms", comment: ["Added to timeout_precommit each round."] },
      {
        key: "timeout_commit",
        value: "1s",
        comment: ["Pause after a block is committed before the next height starts: the main block-time knob."],
      },
      {
        key: "double_sign_check_height",
        value: 0,
        comment: ["Blocks to look back for this validator's own votes before signing again; 0 = off."],
      },
      {
        key: "skip_timeout_commit",
        value: false,
        comment: ["Start the next height as soon as every precommit is in, without timeout_commit."],
      },
      {
        key: "create_empty_blocks",
        value: true,
        comment: ["Make blocks without transactions; false = wait for a transaction (or a changed app hash)."],
      },
      {
        key: "create_empty_blocks_interval",
        value: "0s",
        comment: ["With create_empty_blocks, the longest wait before an empty block is made; 0s = no wait."],
      },
      {
        key: "peer_gossip_sleep_duration",
        value: "100ms",
        comment: ["Pauses of the consensus gossip routines (CometBFT only)."],
      },
      { key: "peer_query_maj23_sleep_duration", value: "2s" },
    ],
  },
  {
    name: "storage",
    title: "Storage",
    entries: [
      {
        key: "discard_abci_responses",
        value: false,
        comment: ["Drop block results after use; keep false, as /block_results and crash recovery need them."],
      },
    ],
  },
  {
    name: "tx_index",
    title: "Transaction index",
    entries: [
      {
        key: "indexer",
        value: "kv",
        comment: ['"kv" indexes transactions by hash and events (for /tx and /tx_search); "null" turns it off.'],
      },
      { key: "psql-conn", value: "", comment: ['Connection string of CometBFT\'s "psql" indexer.'] },
    ],
  },
  {
    name: "instrumentation",
    title: "Consensus metrics",
    entries: [
      {
        key: "prometheus",
        value: false,
        comment: [
          "Serve Prometheus metrics on GET /metrics: the embedded engine's (CometBFT's names), or CometBFT's own",
          "with `<binary> start --abci` (<binary> then leaves this address to CometBFT). docs/OPERATIONS.md lists them.",
        ],
      },
      {
        key: "prometheus_listen_addr",
        value: ":26660",
        comment: ['Where the metrics are served: "<host>:<port>", or ":<port>" for every interface.'],
      },
      { key: "max_open_connections", value: 3, comment: ["Connections to the metrics server at once; 0 = no limit."] },
      { key: "namespace", value: "cometbft", comment: ["Prefix of the metric names."] },
    ],
  },
];

/**
 * The commented config.toml text with CometBFT v0.38 defaults, or with `overrides` by dotted key.
 * The moniker defaults to the machine's host name, as CometBFT's does.
 *
 * @example renderConfigToml({ moniker: "node0", "consensus.timeout_commit": "200ms" })
 */
export function renderConfigToml(overrides: TemplateOverrides = {}): string {
  return renderTemplate(HEADER, CONFIG_TOML_SECTIONS, { moniker: hostname(), ...overrides });
}
