// Everything `chaind start` reads before it starts anything: app.toml, config.toml and genesis.json,
// with the command-line overrides (--rpc.laddr, --api.address, --grpc.address, --minimum-gas-prices,
// --halt-height) applied on top. A bad flag is reported with the flag's name; a bad file value with
// the file and the key (src/config's ConfigError); all before a single socket is opened.
import { readFile } from "node:fs/promises";
import {
  type AppConfig,
  currentBinaryName,
  DEC_COINS_EXPECTED,
  type GenesisDoc,
  HOST_PORT_EXPECTED,
  homePaths,
  loadGenesis,
  type NodeConfig,
  parseAppConfig,
  parseDecCoins,
  parseHostPort,
  parseListenAddress,
  parseNodeConfig,
  SCHEME_ADDRESS_EXPECTED,
  setTomlValues,
  unreadableFileError,
} from "../config/index.ts";
import { UserError } from "../errors/user-error.ts";

/** Command-line values that take precedence over the config files. */
export interface NodeOverrides {
  /** config.toml rpc.laddr. */
  rpcLaddr?: string;
  /** app.toml api.address. */
  apiAddress?: string;
  /** app.toml grpc.address. */
  grpcAddress?: string;
  /** app.toml minimum-gas-prices. */
  minimumGasPrices?: string;
  /** app.toml halt-height. */
  haltHeight?: string;
  /** app.toml halt-time (Unix seconds). */
  haltTime?: string;
}

/** The loaded, checked configuration of a node. */
export interface NodeSettings {
  home: string;
  appConfig: AppConfig;
  nodeConfig: NodeConfig;
  genesis: GenesisDoc;
  /** Keys the files hold that chaind does not use (for a warning). */
  unknownKeys: string[];
}

/** A bad command-line value; the message names the flag and what was expected. */
export class FlagError extends UserError {
  readonly flag: string;

  constructor(flag: string, value: string, expected: string) {
    super(`invalid ${flag} ${JSON.stringify(value)}: expected ${expected}`);
    this.name = "FlagError";
    this.flag = flag;
  }
}

const WHOLE_NUMBER = "a whole number up to 18446744073709551615 (0 = off)";

/** Checks the override flags on their own, so a bad one is reported by its flag name. */
export function checkOverrides(overrides: NodeOverrides): void {
  const { rpcLaddr, apiAddress, grpcAddress, minimumGasPrices, haltHeight, haltTime } = overrides;
  if (rpcLaddr !== undefined && parseListenAddress(rpcLaddr) === undefined) {
    throw new FlagError("--rpc.laddr", rpcLaddr, SCHEME_ADDRESS_EXPECTED);
  }
  if (apiAddress !== undefined && parseListenAddress(apiAddress) === undefined) {
    throw new FlagError("--api.address", apiAddress, SCHEME_ADDRESS_EXPECTED);
  }
  if (grpcAddress !== undefined && parseHostPort(grpcAddress) === undefined) {
    throw new FlagError("--grpc.address", grpcAddress, HOST_PORT_EXPECTED);
  }
  if (minimumGasPrices !== undefined && !Array.isArray(parseDecCoins(minimumGasPrices))) {
    throw new FlagError("--minimum-gas-prices", minimumGasPrices, DEC_COINS_EXPECTED);
  }
  if (haltHeight !== undefined && !isUint64(haltHeight)) throw new FlagError("--halt-height", haltHeight, WHOLE_NUMBER);
  if (haltTime !== undefined && !isUint64(haltTime)) throw new FlagError("--halt-time", haltTime, WHOLE_NUMBER);
}

// app.toml's halt-height and halt-time are uint64: a larger flag value is the flag's mistake, reported by its name
// before `dev` creates a home (app.toml's check would name the file, which the user did not write).
function isUint64(text: string): boolean {
  return /^[0-9]+$/.test(text) && BigInt(text) < 1n << 64n;
}

/**
 * Loads app.toml, config.toml and genesis.json of `home` with the overrides applied. Throws FlagError
 * or src/config's ConfigError (file, key, expected) — never after having started anything.
 *
 * @example const settings = await loadNodeSettings(home, { rpcLaddr: "tcp://127.0.0.1:0" });
 */
export async function loadNodeSettings(home: string, overrides: NodeOverrides = {}): Promise<NodeSettings> {
  checkOverrides(overrides);
  const paths = homePaths(home);
  const binary = currentBinaryName();
  const hint = `run "${binary} init <moniker> --chain-id <id>" (or "${binary} dev") to create it`;

  const appUpdates: Record<string, string | bigint> = {};
  if (overrides.apiAddress !== undefined) appUpdates["api.address"] = overrides.apiAddress;
  if (overrides.grpcAddress !== undefined) appUpdates["grpc.address"] = overrides.grpcAddress;
  if (overrides.minimumGasPrices !== undefined) appUpdates["minimum-gas-prices"] = overrides.minimumGasPrices;
  if (overrides.haltHeight !== undefined) appUpdates["halt-height"] = BigInt(overrides.haltHeight);
  if (overrides.haltTime !== undefined) appUpdates["halt-time"] = BigInt(overrides.haltTime);
  const appText = await readText(paths.appToml, hint);
  // The file is parsed as written first, so a broken file is reported before a flag could hide the key.
  parseAppConfig(appText, paths.appToml);
  const appConfig = parseAppConfig(setTomlValues(appText, appUpdates, paths.appToml), paths.appToml);

  const configUpdates: Record<string, string> = {};
  if (overrides.rpcLaddr !== undefined) configUpdates["rpc.laddr"] = overrides.rpcLaddr;
  const configText = await readText(paths.configToml, hint);
  parseNodeConfig(configText, paths.home, paths.configToml);
  const nodeConfig = parseNodeConfig(
    setTomlValues(configText, configUpdates, paths.configToml),
    paths.home,
    paths.configToml,
  );

  const genesis = await loadGenesis(nodeConfig.genesisFile);
  return {
    home: paths.home,
    appConfig,
    nodeConfig,
    genesis,
    unknownKeys: [
      ...appConfig.unknownKeys.map((key) => `${paths.appToml}: ${key}`),
      ...nodeConfig.unknownKeys.map((key) => `${paths.configToml}: ${key}`),
    ],
  };
}

async function readText(file: string, hint: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (err) {
    throw unreadableFileError(file, err, hint);
  }
}
