// `chaind init` as a library call: the home layout, config.toml and app.toml from their templates, the
// node and validator keys, and a genesis whose app_state is every module's default genesis (upstream's
// `init`). Returns what upstream prints: moniker, chain ID, node ID, gentxs dir and the app_state.

import { randomBytes } from "node:crypto";
import type { JsonObject } from "@bufbuild/protobuf";
import { isValidDenom } from "../app/coins.ts";
import { defaultConsensusParams, initHome, type TemplateOverrides } from "../config/index.ts";
import { UserError } from "../errors/user-error.ts";
import { currentChainIdentity } from "../runtime/current-chain.ts";
import { defaultAppState } from "./app-state.ts";

/** Options of {@link initNode}. */
export interface InitNodeParameters {
  home: string;
  moniker: string;
  /** Default: `test-chain-<6 random characters>`, as upstream. */
  chainId?: string;
  overwrite?: boolean;
  /** Bond denom of the new genesis (default: the chain identity's, "stake" for the reference chain). */
  defaultDenom?: string;
  /** Default 1. */
  initialHeight?: bigint;
  /** Values for a new app.toml (e.g. `{ "minimum-gas-prices": "0stake" }`). */
  appToml?: TemplateOverrides;
  /** Values for config.toml (e.g. `{ "consensus.timeout_commit": "1s" }`). */
  configToml?: TemplateOverrides;
}

/** Upstream's init output (`printInfo`). */
export interface InitNodeResult {
  moniker: string;
  chain_id: string;
  node_id: string;
  gentxs_dir: string;
  app_message: JsonObject;
}

/** Thrown for a bad init argument. */
export class InitNodeError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = "InitNodeError";
  }
}

/**
 * Initialises a node home. Refuses to replace an existing genesis.json unless `overwrite`.
 *
 * @example const info = await initNode({ home, moniker: "node0", chainId: "chain-1" }); info.node_id
 */
export async function initNode(parameters: InitNodeParameters): Promise<InitNodeResult> {
  const moniker = parameters.moniker.trim();
  if (moniker === "") throw new InitNodeError("the moniker must not be empty");
  const denom = parameters.defaultDenom ?? currentChainIdentity().denom;
  if (!isValidDenom(denom)) {
    throw new InitNodeError(
      `invalid --default-denom "${denom}": expected a denom such as stake (3-128 characters, a letter first)`,
    );
  }
  const chainId = parameters.chainId === undefined || parameters.chainId === "" ? randomChainId() : parameters.chainId;
  const appState = await defaultAppState({ home: parameters.home, denom });
  // Vote extensions on from the first block: every validator's precommit then carries its upgrade readiness
  // (src/x/upgrade/README.md, "Readiness").
  const consensusParams = defaultConsensusParams();
  consensusParams.abci.voteExtensionsEnableHeight = parameters.initialHeight ?? 1n;
  const result = await initHome({
    home: parameters.home,
    moniker,
    chainId,
    appState,
    consensusParams,
    overwrite: parameters.overwrite,
    initialHeight: parameters.initialHeight,
    appToml: parameters.appToml,
    configToml: parameters.configToml,
  });
  return {
    moniker,
    chain_id: chainId,
    node_id: result.nodeKey.id,
    gentxs_dir: "",
    app_message: appState,
  };
}

function randomChainId(): string {
  const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  return `test-chain-${[...randomBytes(6)].map((b) => letters[b % letters.length]).join("")}`;
}
