// The node's home directory: one place that knows every path of docs/CONTRACT.md §1, so no other part of the
// code joins path segments by hand. The layout matches CometBFT's, so `cometbft node --home <same>`
// finds its files where chaind put them.
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** Every path under one home directory (absolute when the home was resolved). */
export interface HomePaths {
  home: string;
  configDir: string;
  dataDir: string;
  /** `config/app.toml`: node and API settings (docs/CONTRACT.md §7). */
  appToml: string;
  /** `config/config.toml`: consensus and RPC settings with CometBFT key names. */
  configToml: string;
  /** `config/genesis.json`: CometBFT-format genesis with app_state. */
  genesis: string;
  /** `config/priv_validator_key.json`: the validator's ed25519 consensus key. */
  privValidatorKey: string;
  /** `config/node_key.json`: the node's ed25519 p2p identity (its node ID). */
  nodeKey: string;
  /** `config/addrbook.json`: CometBFT's peer address book (written by CometBFT only). */
  addrBook: string;
  /** `config/gentx/`: genesis transactions collected by `genesis collect-gentxs`. */
  gentxDir: string;
  /** `data/priv_validator_state.json`: the double-sign guard (last signed height/round/step). */
  privValidatorState: string;
  /** `data/application.db`: the state store. */
  applicationDb: string;
  /** `data/blocks.db`: the embedded engine's block store (not CometBFT's blockstore.db). */
  blocksDb: string;
  /** `data/upgrade-info.json`: written when the node halts for an upgrade. */
  upgradeInfo: string;
  /** `keyring-test/`: the unencrypted test keyring. */
  keyringTestDir: string;
  /** `keyring-file/`: the passphrase-encrypted keyring. */
  keyringFileDir: string;
}

/** The binary this process runs as: `chaind`, or a chain developer's own (set with the chain it serves). */
let binaryName = "chaind";

/**
 * Names the binary this process runs as (runtime's `useChain` passes the chain's name): its default home is
 * `~/.<name>` and hints say `run "<name> init"`, so two chains on one machine do not share `~/.chaind`.
 */
export function setBinaryName(name: string): void {
  binaryName = name;
}

/** The binary this process runs as (`chaind` unless a chain with its own name is served). */
export function currentBinaryName(): string {
  return binaryName;
}

/** A chain's declared default home (absolute), when it has one other than `~/.<binary>`. */
let declaredHome: string | undefined;

/**
 * Sets (or, with undefined, clears) the default home of this process's chain when it is not `~/.<binary>`
 * (runtime's `useChain` passes the chain identity's `defaultHome`).
 */
export function setDefaultHome(home: string | undefined): void {
  declaredHome = home;
}

/** The default home directory: `~/.chaind`, `~/.<name>` for a chain with its own name, or the chain's declared one. */
export function defaultHome(): string {
  return declaredHome ?? join(homedir(), `.${binaryName}`);
}

/**
 * Turns a `--home` flag value into an absolute path: undefined or empty → the default home; a leading `~/`
 * is expanded (for values that did not pass through a shell); relative paths are taken from the cwd.
 */
export function resolveHome(flag?: string): string {
  if (flag === undefined || flag === "") return defaultHome();
  if (flag === "~") return homedir();
  if (flag.startsWith("~/")) return join(homedir(), flag.slice(2));
  return resolve(flag);
}

/** All paths of docs/CONTRACT.md §1 under `home` (default: {@link defaultHome}). Pure: touches no file. */
export function homePaths(home: string = defaultHome()): HomePaths {
  const root = resolve(home);
  const configDir = join(root, "config");
  const dataDir = join(root, "data");
  return {
    home: root,
    configDir,
    dataDir,
    appToml: join(configDir, "app.toml"),
    configToml: join(configDir, "config.toml"),
    genesis: join(configDir, "genesis.json"),
    privValidatorKey: join(configDir, "priv_validator_key.json"),
    nodeKey: join(configDir, "node_key.json"),
    addrBook: join(configDir, "addrbook.json"),
    gentxDir: join(configDir, "gentx"),
    privValidatorState: join(dataDir, "priv_validator_state.json"),
    applicationDb: join(dataDir, "application.db"),
    blocksDb: join(dataDir, "blocks.db"),
    upgradeInfo: join(dataDir, "upgrade-info.json"),
    keyringTestDir: join(root, "keyring-test"),
    keyringFileDir: join(root, "keyring-file"),
  };
}

/**
 * Creates the home, `config/` and `data/` directories when missing (mode 0700, as CometBFT does:
 * they hold private keys). Existing directories are left as they are.
 */
export async function ensureHome(home: string = defaultHome()): Promise<HomePaths> {
  const paths = homePaths(home);
  // Looked up here, not imported: node:fs/promises loads ~10 built-in modules (readline among them) that a client
  // command, which imports this file for its paths, never needs.
  const { mkdir } = process.getBuiltinModule("node:fs/promises");
  await mkdir(paths.configDir, { recursive: true, mode: 0o700 });
  await mkdir(paths.dataDir, { recursive: true, mode: 0o700 });
  return paths;
}
