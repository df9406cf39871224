// The top-level commands of `chaind`, described lightly (src/cli/lazy-command.ts): a name, aliases and
// the description `chaind --help` shows, and how to import the implementation. Only the command that
// runs is imported. src/cli/command-list.test.ts checks each description against the loaded command.
import { currentChainIdentity } from "../runtime/current-chain.ts";
import type { CommandSpec } from "./lazy-command.ts";

/** Every top-level command, in the order `chaind --help` lists them. */
export const CHAIND_COMMANDS: readonly CommandSpec[] = [
  {
    name: "keys",
    description: "Manage the keys in the local keyring (BIP39 mnemonics, HD path m/44'/118'/0'/0/0)",
    load: async (io) => (await import("./keys-command.ts")).keysCommand(io),
  },
  {
    name: "init",
    description:
      "Initialize the node's home: config.toml, app.toml, the validator and node keys, and a genesis.json holding every module's default genesis",
    load: async (io) => (await import("./commands/init-command.ts")).initCommand(io),
  },
  {
    name: "start",
    description:
      "Run the node: the embedded single-validator engine (default) or, with --abci, the ABCI server for CometBFT; plus the gRPC server and REST gateway",
    load: async (io) => (await import("./commands/start-command.ts")).startCommand(io),
  },
  {
    name: "dev",
    // A getter: the dev chain id is the served chain's, known only once the entry point has set the chain.
    get description() {
      return `Run a development chain: on first use, init "${currentChainIdentity().devChainId}" with funded test keys (validator, alice, bob), short governance periods and 1 s blocks; then start it`;
    },
    load: async (io) => (await import("./commands/dev-command.ts")).devCommand(io),
  },
  {
    name: "genesis",
    description: "Build and check the genesis file: accounts, gentxs, validation",
    load: async (io) => (await import("./commands/genesis-command.ts")).genesisCommand(io),
  },
  {
    name: "pre-upgrade",
    description: "Work to do before the node restarts on a new release (called by chainvisor); exits 0",
    load: async (io) => (await import("./commands/pre-upgrade-command.ts")).preUpgradeCommand(io),
  },
  {
    name: "upgrade",
    description: "Node-side upgrade tools (dry-run, rehearse)",
    load: async (io) => (await import("./commands/dry-run-command.ts")).dryRunUpgradeCommand(io),
  },
  {
    name: "replay",
    description:
      "Build a new home (--home, absent or empty) by replaying every block of another home (--from) from genesis with this binary's releases, switching releases in process at each upgrade, and check each height's app hash against the source; the source is only read",
    load: async (io) => (await import("./commands/replay-command.ts")).replayCommand(io),
  },
  {
    name: "query",
    aliases: ["q"],
    description: "Querying subcommands (through --node, or --grpc-addr)",
    load: async (io, args) => (await import("./commands/client-commands.ts")).queryCommand(io, args),
  },
  {
    name: "tx",
    description: "Transaction subcommands: build, sign and broadcast through --node",
    load: async (io, args) => (await import("./commands/client-commands.ts")).txCommand(io, args),
  },
  {
    name: "snapshots",
    description: "Manage local state-sync snapshots (data/snapshots): list, export, dump, load, restore, delete",
    load: async (io) => (await import("./commands/snapshots-command.ts")).snapshotsCommand(io),
  },
  {
    name: "repair-store",
    description:
      "Run LevelDB's repair on a stopped node's store directory (e.g. <home>/data/application.db) whose CURRENT file is missing or whose MANIFEST is damaged; keep a copy of the directory first",
    load: async (io) => (await import("./commands/repair-store-command.ts")).repairStoreCommand(io),
  },
  {
    name: "release",
    description:
      "Build this chain's release files for linux/amd64: <binary>-<release>-linux-amd64 and its .tar.gz (bin/<binary>, bin/chainvisor, RELEASE), as chainvisor and cosmovisor install them",
    load: async (io) => (await import("./commands/release-command.ts")).releaseCommand(io),
  },
  {
    name: "version",
    description: "Print the version of this binary and the release it runs as",
    load: async (io) => (await import("./commands/version.ts")).versionCommand(io),
  },
  {
    name: "status",
    description: "Query the node's status (the consensus RPC /status as JSON; read from --home when no node answers)",
    load: async (io) => (await import("./commands/status-entry.ts")).statusEntryCommand(io),
  },
];
