// The app.toml that `chaind init` writes: every key of docs/CONTRACT.md §7 with its default and a comment in our
// own words. The loader (app-config.ts) falls back to exactly these defaults for absent keys.
import { renderTemplate, type TemplateOverrides, type TemplateSection } from "./toml-template.ts";

const HEADER = [
  "<binary> node settings (app.toml).",
  "",
  "Every key below shows its default. A key left out keeps its default; a key <binary> does not know is",
  "ignored. A malformed value stops the node before it starts, naming this file and the key.",
];

/** The sections and keys of app.toml, with defaults. */
export const APP_TOML_SECTIONS: readonly TemplateSection[] = [
  {
    name: "",
    title: "Base settings",
    entries: [
      {
        key: "minimum-gas-prices",
        value: "",
        comment: [
          'The lowest fee per unit of gas this node accepts into its mempool, e.g. "0.025stake" or',
          '"0.25token1,0.0001token2". A transaction must pay at least this much in one of the listed denoms.',
          "Only this node's CheckTx applies it; blocks made by others are not checked against it.",
        ],
      },
      {
        key: "pruning",
        value: "default",
        comment: [
          "Which old state versions to delete:",
          '  "default"    keep the last 362880 versions, prune every 10 blocks',
          '  "nothing"    keep every version (archive node)',
          '  "everything" keep the last 2 versions, prune every 10 blocks',
          '  "custom"     use pruning-keep-recent and pruning-interval below',
          "Queries at a pruned height answer 404 with the earliest height still available.",
        ],
      },
      {
        key: "pruning-keep-recent",
        value: "0",
        comment: ['Versions kept besides the latest, when pruning = "custom" (at least 2).'],
      },
      {
        key: "pruning-interval",
        value: "0",
        comment: ['Prune every this many blocks, when pruning = "custom" (at least 10).'],
      },
      {
        key: "halt-height",
        value: 0,
        comment: ["Stop the node after committing this height. 0 turns it off."],
      },
      {
        key: "halt-time",
        value: 0,
        comment: [
          "Stop the node at the first block whose time is at or after this Unix time (seconds). 0 turns it off.",
        ],
      },
      {
        key: "min-retain-blocks",
        value: 0,
        comment: [
          "Keep at least this many recent blocks in the block store; older blocks may be deleted.",
          "This prunes blocks, not application state. 0 keeps every block.",
        ],
      },
      {
        key: "query-gas-limit",
        value: "0",
        comment: [
          "The most gas one gRPC, REST or ABCI query may use; a query that needs more fails with",
          "sdk code 11 (out of gas), HTTP 500. 0 means no limit.",
        ],
      },
      {
        key: "in-place-upgrades",
        value: false,
        comment: [
          "In-place upgrades: run the rules of the release active on chain at each height and apply the",
          "upgrades this binary's releases know in process (no halt, no upgrade-info.json, no restart): start",
          "the next release ahead of an upgrade's height with this on and the chain passes it without a pause;",
          "a node syncing from genesis with the latest release alone uses it too (replay mode). An upgrade this",
          "binary does not know still halts. Same as `<binary> start --in-place-upgrades`; the older key",
          "`replay-releases` (and flag `--replay-releases`) still works. See docs/UPGRADING.md.",
        ],
      },
    ],
  },
  {
    name: "api",
    title: "REST gateway",
    entries: [
      { key: "enable", value: true, comment: ["Serve the REST gateway at all."] },
      { key: "swagger", value: true, comment: ["Serve the Swagger specification and UI at /swagger."] },
      {
        key: "upgrade-page",
        value: false,
        comment: [
          "Serve the upgrade status page at /upgrade: the current plan with a countdown, readiness, migrations,",
          "applied plans and this node's version, read from the public queries above. `<binary> dev` turns it on.",
        ],
      },
      {
        key: "address",
        value: "tcp://localhost:1317",
        comment: ['Where the gateway listens: "tcp://<host>:<port>" or "unix:///<path>".'],
      },
      {
        key: "max-open-connections",
        value: 1000,
        comment: ["Connections served at once; further ones wait until one closes. 0 means no limit."],
      },
      {
        key: "rpc-read-timeout",
        value: 10,
        comment: ["Seconds allowed for reading a whole request, headers and body."],
      },
      {
        key: "rpc-write-timeout",
        value: 0,
        comment: ["Seconds allowed for writing a response. 0 means no limit."],
      },
      {
        key: "rpc-max-body-bytes",
        value: 1000000,
        comment: ["Largest request body accepted, in bytes; a larger one is refused with status 413."],
      },
      {
        key: "enabled-unsafe-cors",
        value: false,
        comment: [
          "Let web pages from any origin call the gateway. For development only: put a reverse proxy in",
          "front of a public node instead.",
        ],
      },
      {
        key: "cors-allowed-origins",
        value: [],
        comment: ['Origins allowed to call the gateway from a browser, e.g. ["https://wallet.example.com"].'],
      },
    ],
  },
  {
    name: "grpc",
    title: "gRPC server",
    entries: [
      { key: "enable", value: true, comment: ["Serve gRPC at all."] },
      {
        key: "address",
        value: "localhost:9090",
        comment: ['Where gRPC listens: "<host>:<port>", without a scheme.'],
      },
      {
        key: "max-recv-msg-size",
        value: "10485760",
        comment: ["Largest request message accepted, in bytes (default 10 MiB). 0 means the default."],
      },
      {
        key: "max-send-msg-size",
        value: "2147483647",
        comment: ["Largest response message sent, in bytes (default 2147483647). 0 means the default."],
      },
    ],
  },
  {
    name: "state-sync",
    title: "State sync snapshots",
    entries: [
      {
        key: "snapshot-interval",
        value: 0,
        comment: [
          "Take a snapshot of the application state every this many blocks, in the background, under",
          "data/snapshots; nodes joining with CometBFT state sync fetch them from here. 0 turns snapshots off.",
        ],
      },
      {
        key: "snapshot-keep-recent",
        value: 2,
        comment: ["How many of the newest snapshots to keep. 0 keeps them all."],
      },
    ],
  },
  {
    name: "telemetry",
    title: "Application metrics",
    entries: [
      {
        key: "enabled",
        value: false,
        comment: [
          "Serve the application's metrics (txs, gas, queries, snapshots, upgrades, the process) on the REST",
          "server at GET /metrics?format=prometheus. docs/OPERATIONS.md lists them.",
        ],
      },
      {
        key: "service-name",
        value: "",
        comment: ['Prefix of the metric names (letters, digits, underscores); empty means "chaind".'],
      },
    ],
  },
];

/**
 * The commented app.toml text with every default, or with `overrides` by dotted key.
 *
 * @example renderAppToml({ "minimum-gas-prices": "0stake", "api.address": "tcp://127.0.0.1:0" })
 */
export function renderAppToml(overrides: TemplateOverrides = {}): string {
  return renderTemplate(HEADER, APP_TOML_SECTIONS, overrides);
}
