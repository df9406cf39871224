// `genesis collect-gentxs` as a library call (upstream x/genutil collect.go): read every gentx file,
// check that each carries exactly one MsgCreateValidator whose delegator has enough genesis balance,
// put them into app_state.genutil.gen_txs, and set config.toml's p2p.persistent_peers from their
// memos (`<node id>@<host>:<port>`), leaving out this node's own.

import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { amountOf } from "../app/coins.ts";
import { fromProtoJson } from "../app/proto-json.ts";
import { fromWireBinary } from "../app/wire-decimals.ts";
import { currentBinaryName } from "../config/home.ts";
import {
  homePaths,
  loadGenesis,
  loadNodeConfig,
  loadNodeKey,
  saveGenesis,
  setTomlValues,
  writeFileAtomic,
} from "../config/index.ts";
import { addressFromBech32, addressToBech32 } from "../crypto/index.ts";
import { UserError } from "../errors/user-error.ts";
import { MsgCreateValidatorSchema } from "../gen/chain/staking/v1beta1/tx_pb.js";
import { TxSchema } from "../gen/chain/tx/v1beta1/tx_pb.js";
import { validateGenTxs } from "../x/staking/genutil.ts";
import { isObject, offlineChainApp } from "./app-state.ts";
import { genesisBalanceOf } from "./genesis-accounts.ts";

/** Options of {@link collectGenTxs}. */
export interface CollectGenTxsParameters {
  home: string;
  /** Default `config/gentx`. */
  gentxDir?: string;
}

/** What {@link collectGenTxs} did. */
export interface CollectGenTxsResult {
  gentxDir: string;
  files: string[];
  /** The persistent_peers value written to config.toml. */
  persistentPeers: string;
  chainId: string;
  moniker: string;
  nodeId: string;
  appState: JsonObject;
}

/** Thrown for an unreadable or invalid gentx; the message names the file. */
export class CollectGenTxsError extends UserError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "CollectGenTxsError";
  }
}

/**
 * Collects the gentxs of `gentxDir` into the genesis of `home` and updates persistent_peers.
 *
 * @example const { files } = await collectGenTxs({ home });
 */
export async function collectGenTxs(parameters: CollectGenTxsParameters): Promise<CollectGenTxsResult> {
  const paths = homePaths(parameters.home);
  const gentxDir = parameters.gentxDir ?? paths.gentxDir;
  const genesis = await loadGenesis(paths.genesis);
  const nodeConfig = await loadNodeConfig(parameters.home);
  const nodeId = (await loadNodeKey(nodeConfig.nodeKeyFile)).id;
  const chain = await offlineChainApp(parameters.home, genesis.chainId);
  const appState = structuredClone(genesis.appState ?? {}) as JsonObject;

  let names: string[];
  try {
    names = (await readdir(gentxDir)).filter((name) => name.endsWith(".json")).sort();
  } catch (err) {
    throw new CollectGenTxsError(`cannot read the gentx directory ${gentxDir}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  if (names.length === 0) {
    throw new CollectGenTxsError(
      `no gentx files (*.json) found in ${gentxDir}: run "${currentBinaryName()} genesis gentx" first`,
    );
  }

  const genTxs: JsonValue[] = [];
  const peers: string[] = [];
  for (const name of names) {
    const file = join(gentxDir, name);
    const genTx = await readGenTx(file);
    try {
      validateGenTxs([genTx], chain.app.typeRegistry);
    } catch (err) {
      throw new CollectGenTxsError(`${file}: ${(err as Error).message}`, { cause: err });
    }
    let tx: ReturnType<typeof fromProtoJson<typeof TxSchema>>;
    try {
      tx = fromProtoJson(TxSchema, genTx, chain.app.typeRegistry);
    } catch (err) {
      throw new CollectGenTxsError(`${file}: not a transaction: ${(err as Error).message}`, { cause: err });
    }
    const msg = fromWireBinary(MsgCreateValidatorSchema, tx.body?.messages[0]?.value ?? new Uint8Array());
    // The delegator is the operator's account (same bytes, account prefix).
    let delegator: string;
    try {
      delegator = addressToBech32(addressFromBech32(msg.validatorAddress, "val"));
    } catch (err) {
      throw new CollectGenTxsError(
        `${file}: invalid validator_address "${msg.validatorAddress}": ${(err as Error).message}`,
        {
          cause: err,
        },
      );
    }
    const bank = appState.bank;
    const listed =
      isObject(bank) &&
      Array.isArray(bank.balances) &&
      bank.balances.some((b) => isObject(b) && b.address === delegator);
    if (!listed) throw new CollectGenTxsError(`${file}: account ${delegator} balance not in genesis state`);
    const denom = msg.value?.denom ?? "";
    const wanted = BigInt(msg.value?.amount || "0");
    const available = amountOf(genesisBalanceOf(appState, delegator), denom);
    if (available < wanted) {
      throw new CollectGenTxsError(
        `${file}: insufficient fund for delegation ${delegator}: ${available}${denom} < ${wanted}${denom}`,
      );
    }
    genTxs.push(genTx);
    const memo = tx.body?.memo ?? "";
    if (memo !== "" && !memo.startsWith(`${nodeId}@`)) peers.push(memo);
  }

  const genutil = isObject(appState.genutil) ? appState.genutil : {};
  genutil.gen_txs = genTxs;
  appState.genutil = genutil;
  await saveGenesis(paths.genesis, { ...genesis, appState });

  const persistentPeers = peers.sort().join(",");
  const configText = await readFile(paths.configToml, "utf8");
  const updated = setTomlValues(configText, { "p2p.persistent_peers": persistentPeers }, paths.configToml);
  if (updated !== configText) await writeFileAtomic(paths.configToml, updated, 0o644);

  return {
    gentxDir,
    files: names.map((name) => join(gentxDir, name)),
    persistentPeers,
    chainId: genesis.chainId,
    moniker: nodeConfig.moniker,
    nodeId,
    appState,
  };
}

async function readGenTx(file: string): Promise<JsonValue> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    throw new CollectGenTxsError(`cannot read gentx ${file}: ${(err as Error).message}`, { cause: err });
  }
  try {
    return JSON.parse(text) as JsonValue;
  } catch (err) {
    throw new CollectGenTxsError(`${file} is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
}
