// What `chaind init` does to the disk, as a library call: the home layout, config.toml and app.toml
// from the templates, the two keys, the signing state and a new genesis. Like `cometbft init`, it
// never replaces a key, and it refuses to replace a genesis unless told to.
import { access, readFile } from "node:fs/promises";
import { renderAppToml } from "./app-toml-template.ts";
import { writeFileAtomic } from "./atomic-file.ts";
import { renderConfigToml } from "./config-toml-template.ts";
import type { ConsensusParams } from "./consensus-params.ts";
import { ConfigError } from "./errors.ts";
import { type GenesisDoc, newGenesis, saveGenesis } from "./genesis.ts";
import { ensureHome, type HomePaths } from "./home.ts";
import type { JsonObject } from "./json-reader.ts";
import { loadOrCreateNodeKey, loadOrCreatePrivValidatorKey, type NodeKey, type PrivValidatorKey } from "./node-keys.ts";
import { loadOrCreatePrivValidatorState } from "./priv-validator-state.ts";
import type { Timestamp } from "./rfc3339.ts";
import { setTomlValues, type TemplateOverrides } from "./toml-template.ts";

/** Options of {@link initHome}. */
export interface InitHomeParameters {
  home: string;
  moniker: string;
  chainId: string;
  /** The application's default genesis state (the CLI composes it from the modules). */
  appState?: JsonObject;
  /** Replace an existing genesis.json (the `--overwrite` flag). */
  overwrite?: boolean;
  genesisTime?: Timestamp;
  initialHeight?: bigint;
  /** The genesis consensus parameters (default CometBFT v0.38's, see newGenesis). */
  consensusParams?: ConsensusParams;
  /** Values for a new app.toml, e.g. `{ "minimum-gas-prices": "0stake" }`. */
  appToml?: TemplateOverrides;
  /** Values for a new config.toml, e.g. `{ "consensus.timeout_commit": "200ms" }`. */
  configToml?: TemplateOverrides;
  /** Make the validator key from this 32-byte seed instead of at random (the `--recover` flag). */
  validatorSeed?: Uint8Array;
}

/** What {@link initHome} produced or found. */
export interface InitHomeResult {
  paths: HomePaths;
  nodeKey: NodeKey;
  validatorKey: PrivValidatorKey;
  genesis: GenesisDoc;
  /** Files written by this call (existing ones that were kept are not listed). */
  written: string[];
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * Initialises a home directory. An existing config.toml keeps its content except the moniker; an
 * existing app.toml and existing keys are kept; an existing genesis.json is an error unless
 * `overwrite`. Every file is written atomically.
 *
 * @example const { nodeKey } = await initHome({ home, moniker: "node0", chainId: "chain-1", appState })
 */
export async function initHome(parameters: InitHomeParameters): Promise<InitHomeResult> {
  const paths = await ensureHome(parameters.home);
  const written: string[] = [];

  if ((await exists(paths.genesis)) && parameters.overwrite !== true) {
    throw new ConfigError(
      { file: paths.genesis, reason: "genesis.json file already exists; pass --overwrite to replace it" },
      { code: "CONFIG_INVALID" },
    );
  }

  if (await exists(paths.configToml)) {
    const text = await readFile(paths.configToml, "utf8");
    const updated = setTomlValues(text, { ...parameters.configToml, moniker: parameters.moniker }, paths.configToml);
    if (updated !== text) {
      await writeFileAtomic(paths.configToml, updated, 0o644);
      written.push(paths.configToml);
    }
  } else {
    await writeFileAtomic(
      paths.configToml,
      renderConfigToml({ ...parameters.configToml, moniker: parameters.moniker }),
      0o644,
    );
    written.push(paths.configToml);
  }

  if (!(await exists(paths.appToml))) {
    await writeFileAtomic(paths.appToml, renderAppToml(parameters.appToml), 0o644);
    written.push(paths.appToml);
  }

  const hadNodeKey = await exists(paths.nodeKey);
  const nodeKey = await loadOrCreateNodeKey(paths.nodeKey);
  if (!hadNodeKey) written.push(paths.nodeKey);
  const hadValidatorKey = await exists(paths.privValidatorKey);
  const validatorKey = await loadOrCreatePrivValidatorKey(paths.privValidatorKey, parameters.validatorSeed);
  if (!hadValidatorKey) written.push(paths.privValidatorKey);
  const hadState = await exists(paths.privValidatorState);
  await loadOrCreatePrivValidatorState(paths.privValidatorState);
  if (!hadState) written.push(paths.privValidatorState);

  const genesis = newGenesis({
    chainId: parameters.chainId,
    genesisTime: parameters.genesisTime,
    initialHeight: parameters.initialHeight,
    consensusParams: parameters.consensusParams,
    appState: parameters.appState,
  });
  await saveGenesis(paths.genesis, genesis);
  written.push(paths.genesis);

  return { paths, nodeKey, validatorKey, genesis, written };
}
