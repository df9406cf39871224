// `genesis gentx` as a library call (upstream x/genutil/client/cli/gentx.go): a MsgCreateValidator
// whose consensus key is the node's priv_validator_key.json, self-delegating `amount` from the
// operator's genesis account, signed by that account's keyring key with account number 0 and
// sequence 0 (SIGN_MODE_DIRECT), written as tx JSON to config/gentx/gentx-<node id>.json.

import { mkdir, stat } from "node:fs/promises";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { create, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import type { Any } from "@bufbuild/protobuf/wkt";
import { amountOf, type Coin, coinToString } from "../app/coins.ts";
import { DecimalError, formatDecimal, parseDecimalInput } from "../app/dec.ts";
import { toProtoJson } from "../app/proto-json.ts";
import { toWireBinary } from "../app/wire-decimals.ts";
import type { Keyring } from "../client/keyring/index.ts";
import { signTx } from "../client/tx/index.ts";
import { txFromTxRaw } from "../client/tx/tx-raw.ts";
import {
  homePaths,
  loadGenesis,
  loadNodeConfig,
  loadNodeKey,
  loadPrivValidatorKey,
  writeFileAtomic,
} from "../config/index.ts";
import { addressToBech32 } from "../crypto/index.ts";
import { UserError } from "../errors/user-error.ts";
import { MsgCreateValidatorSchema } from "../gen/chain/staking/v1beta1/tx_pb.js";
import { TxSchema } from "../gen/chain/tx/v1beta1/tx_pb.js";
import { validateCreateValidator } from "../x/staking/msg-server.ts";
import { ed25519PubKeyAny } from "../x/staking/validator.ts";
import { bondDenomOf, offlineChainApp } from "./app-state.ts";
import { genesisBalanceOf } from "./genesis-accounts.ts";

/** Thrown when a gentx cannot be made; the message says what was wrong and what was expected. */
export class GenTxBuildError extends UserError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "GenTxBuildError";
  }
}

/** Validator description and commission flags (upstream's names and defaults). */
export interface GenTxValidatorFlags {
  moniker?: string;
  identity?: string;
  website?: string;
  securityContact?: string;
  details?: string;
  /** Default "0.1". */
  commissionRate?: string;
  /** Default "0.2". */
  commissionMaxRate?: string;
  /** Default "0.01". */
  commissionMaxChangeRate?: string;
  /** Default "1". */
  minSelfDelegation?: string;
}

/** Options of {@link createGenTx}. */
export interface CreateGenTxParameters extends GenTxValidatorFlags {
  home: string;
  /** Keyring holding the operator key. */
  keyring: Keyring;
  /** Key name (or address) in the keyring. */
  keyName: string;
  /** Self-delegation, in the bond denom. */
  amount: Coin;
  /** Must equal genesis.json's chain_id when given. */
  chainId?: string;
  /** Default: node_key.json's ID. */
  nodeId?: string;
  /** Default: the first non-loopback IPv4 address, else 127.0.0.1. */
  ip?: string;
  fees?: Coin[];
  /** Default 200000. */
  gas?: bigint;
  /** Default: `config/gentx/gentx-<node id>.json`. */
  outputDocument?: string;
}

/** What {@link createGenTx} wrote. */
export interface CreateGenTxResult {
  file: string;
  /** The tx JSON written. */
  genTx: JsonValue;
  operatorAddress: string;
  nodeId: string;
}

const DEFAULT_GAS = 200_000n;

/**
 * Builds, signs and writes a gentx. Checks, as upstream does, that the operator account is in genesis
 * with at least `amount`.
 *
 * @example await createGenTx({ home, keyring, keyName: "validator", amount: parseCoin("1000000stake"), chainId })
 */
export async function createGenTx(parameters: CreateGenTxParameters): Promise<CreateGenTxResult> {
  const paths = homePaths(parameters.home);
  // Refused before any work: the atomic write's rename would fail last, in words naming its temporary file.
  const output = parameters.outputDocument;
  if (output !== undefined && (await stat(output).catch(() => undefined))?.isDirectory() === true) {
    throw new GenTxBuildError(
      `--output-document ${output} is a directory: expected the path of the gentx file to write`,
    );
  }
  const genesis = await loadGenesis(paths.genesis);
  if (parameters.chainId !== undefined && parameters.chainId !== "" && parameters.chainId !== genesis.chainId) {
    throw new GenTxBuildError(
      `--chain-id "${parameters.chainId}" does not match chain_id "${genesis.chainId}" of ${paths.genesis}`,
    );
  }
  const appState = genesis.appState ?? {};
  const nodeConfig = await loadNodeConfig(parameters.home);
  const validatorKey = await loadPrivValidatorKey(nodeConfig.privValidatorKeyFile);
  const nodeId = parameters.nodeId ?? (await loadNodeKey(nodeConfig.nodeKeyFile)).id;
  const signer = await parameters.keyring.signer(parameters.keyName);
  const operator = addressToBech32(signer.address);

  const bondDenom = bondDenomOf(appState);
  const { amount } = parameters;
  if (amount.denom !== bondDenom) {
    throw new GenTxBuildError(
      `invalid self-delegation ${coinToString(amount)}: expected an amount of the bond denom "${bondDenom}"`,
    );
  }
  if (amount.amount <= 0n)
    throw new GenTxBuildError(`invalid self-delegation ${coinToString(amount)}: must be positive`);
  checkGenesisBalance(appState, operator, amount);

  const p2pPort = nodeConfig.p2p.laddr.protocol === "tcp" ? nodeConfig.p2p.laddr.port : 26656;
  const memo = `${nodeId}@${parameters.ip ?? externalIp()}:${p2pPort}`;
  const message = createValidatorMessage(parameters, {
    operator: addressToBech32(signer.address, "val"),
    consensusKey: validatorKey.publicKey,
    // As upstream: an empty --moniker means config.toml's.
    moniker: parameters.moniker || nodeConfig.moniker,
  });

  const signed = await signTx({
    messages: [message],
    memo,
    fee: {
      amount: (parameters.fees ?? []).map((c) => ({ denom: c.denom, amount: c.amount })),
      gasLimit: parameters.gas ?? DEFAULT_GAS,
    },
    chainId: genesis.chainId,
    accountNumber: 0n,
    sequence: 0n,
    signer,
  });
  const chain = await offlineChainApp(parameters.home, genesis.chainId);
  const genTx = genTxJson(signed.txBytes, chain.app.typeRegistry);

  const file = parameters.outputDocument ?? join(paths.gentxDir, `gentx-${nodeId}.json`);
  if (parameters.outputDocument === undefined) await mkdir(paths.gentxDir, { recursive: true, mode: 0o700 });
  await writeFileAtomic(file, `${JSON.stringify(genTx)}\n`, 0o644);
  return { file, genTx, operatorAddress: operator, nodeId };
}

/** Upstream's ValidateAccountInGenesis texts. */
function checkGenesisBalance(appState: JsonObject, address: string, amount: Coin): void {
  const bank = appState.bank as JsonObject | undefined;
  const listed = Array.isArray(bank?.balances) && bank.balances.some((b) => (b as JsonObject)?.address === address);
  if (!listed) throw new GenTxBuildError(`account ${address} does not have a balance in the genesis state`);
  const available = amountOf(genesisBalanceOf(appState, address), amount.denom);
  if (available < amount.amount) {
    throw new GenTxBuildError(
      `account ${address} has a balance in genesis, but it only has ${available}${amount.denom} available to stake, not ${amount.amount}${amount.denom}`,
    );
  }
}

function createValidatorMessage(
  flags: GenTxValidatorFlags & { amount: Coin },
  facts: { operator: string; consensusKey: Uint8Array; moniker: string },
): Any {
  const minSelf = flags.minSelfDelegation ?? "1";
  if (!/^[0-9]+$/.test(minSelf) || BigInt(minSelf) <= 0n) {
    throw new GenTxBuildError(`invalid --min-self-delegation "${minSelf}": expected a positive whole number`);
  }
  if (BigInt(minSelf) > flags.amount.amount) {
    throw new GenTxBuildError(
      `validator's self delegation must be greater than their minimum self delegation: ${flags.amount.amount} < ${minSelf}`,
    );
  }
  const msg = create(MsgCreateValidatorSchema, {
    description: {
      moniker: facts.moniker,
      identity: flags.identity ?? "",
      website: flags.website ?? "",
      securityContact: flags.securityContact ?? "",
      details: flags.details ?? "",
    },
    commission: {
      rate: decimalFlag(flags.commissionRate ?? "0.1", "--commission-rate"),
      maxRate: decimalFlag(flags.commissionMaxRate ?? "0.2", "--commission-max-rate"),
      maxChangeRate: decimalFlag(flags.commissionMaxChangeRate ?? "0.01", "--commission-max-change-rate"),
    },
    minSelfDelegation: minSelf,
    validatorAddress: facts.operator,
    pubkey: ed25519PubKeyAny(facts.consensusKey),
    value: { denom: flags.amount.denom, amount: flags.amount.amount.toString() },
  });
  // The message's own stateless checks (upstream's BuildCreateValidatorMsg runs them): e.g. a commission rate
  // above the max rate would otherwise be written, and only fail at InitChain.
  try {
    validateCreateValidator(msg);
  } catch (err) {
    throw new GenTxBuildError(`invalid validator: ${(err as Error).message}`, { cause: err });
  }
  return {
    $typeName: "google.protobuf.Any",
    typeUrl: `/${MsgCreateValidatorSchema.typeName}`,
    value: toWireBinary(MsgCreateValidatorSchema, msg),
  };
}

function decimalFlag(text: string, flag: string): string {
  try {
    return formatDecimal(parseDecimalInput(text, flag));
  } catch (err) {
    if (err instanceof DecimalError) {
      throw new GenTxBuildError(`invalid ${flag} "${text}": expected a decimal such as 0.1`, { cause: err });
    }
    throw err;
  }
}

/** The tx JSON of TxRaw bytes, as gentx files and `genutil.gen_txs` hold it. */
export function genTxJson(txBytes: Uint8Array, registry: Parameters<typeof toProtoJson>[2]): JsonValue {
  const tx = txFromTxRaw(txBytes);
  return toProtoJson(TxSchema, tx, registry);
}

/** The first non-internal IPv4 address of this machine (upstream's ExternalIP), else 127.0.0.1. */
export function externalIp(): string {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (address.family === "IPv4" && !address.internal) return address.address;
    }
  }
  return "127.0.0.1";
}
