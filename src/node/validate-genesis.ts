// `genesis validate` as a library call: the CometBFT part of genesis.json (chain ID, times, consensus
// parameters, validators: src/config's checks, every problem named with its field) and then every
// module's own validateGenesis on app_state, the failing module named.
import type { JsonObject } from "@bufbuild/protobuf";
import { ConfigError, type GenesisDoc, loadGenesis } from "../config/index.ts";
import { UserError } from "../errors/user-error.ts";
import { offlineChainApp, validateAppState } from "./app-state.ts";

/** Thrown when a genesis file is invalid; `module` names the module at fault ("genesis" for the CometBFT part). */
export class GenesisValidationError extends UserError {
  readonly file: string;
  readonly module: string;

  constructor(file: string, module: string, message: string, options?: { cause?: unknown }) {
    super(`error validating genesis file ${file}: ${message}`, options);
    this.name = "GenesisValidationError";
    this.file = file;
    this.module = module;
  }
}

/**
 * Validates a genesis file completely; resolves with the document when it is valid.
 *
 * @example await validateGenesisFile({ home, file: homePaths(home).genesis })
 */
export async function validateGenesisFile(parameters: { home: string; file: string }): Promise<GenesisDoc> {
  let genesis: GenesisDoc;
  try {
    genesis = await loadGenesis(parameters.file);
  } catch (err) {
    if (err instanceof ConfigError) {
      throw new GenesisValidationError(parameters.file, "genesis", err.message, { cause: err });
    }
    throw err;
  }
  const chain = await offlineChainApp(parameters.home, genesis.chainId);
  const problem = validateAppState(chain, (genesis.appState ?? {}) as JsonObject);
  if (problem !== undefined) throw new GenesisValidationError(parameters.file, problem.module, problem.message);
  return genesis;
}
