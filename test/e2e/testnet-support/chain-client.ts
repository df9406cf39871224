// Talking to a running testnet the way its users do: CometBFT's RPC for blocks and broadcasting, chaind's REST
// gateway for state, CosmJS for signing, and the chaind CLI for transactions against a node's CometBFT.
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { DirectSecp256k1HdWallet, type EncodeObject, Registry } from "@cosmjs/proto-signing";
import { SigningStargateClient } from "@cosmjs/stargate";
import { Comet38Client } from "@cosmjs/tendermint-rpc";
import { MsgSend } from "cosmjs-types/cosmos/bank/v1beta1/tx";
import { VoteOption } from "cosmjs-types/cosmos/gov/v1/gov";
import { MsgVote } from "cosmjs-types/cosmos/gov/v1/tx";
import { TxRaw } from "cosmjs-types/cosmos/tx/v1beta1/tx";
import { rpcResult, type Testnet, type TestnetNode, waitUntil } from "../../../scripts/testnet/index.ts";

const PROJECT_ROOT = join(import.meta.dirname, "..", "..", "..");
const CHAIND_ENTRY = join(PROJECT_ROOT, "chain", "cmd", "chaind.mjs");

/** The fields of a block header the tests compare across nodes. */
export interface HeaderFields {
  height: number;
  appHash: string;
  lastResultsHash: string;
  validatorsHash: string;
  appVersion: string;
}

/** Header `height` as `node`'s CometBFT serves it. */
export async function headerAt(node: TestnetNode, height: number): Promise<HeaderFields> {
  const result = await rpcResult(node, `/header?height=${height}`);
  const header = result.header as {
    height: string;
    app_hash: string;
    last_results_hash: string;
    validators_hash: string;
    version: { app?: string };
  };
  return {
    height: Number(header.height),
    appHash: header.app_hash,
    lastResultsHash: header.last_results_hash,
    validatorsHash: header.validators_hash,
    appVersion: header.version.app ?? "0",
  };
}

/**
 * Compares headers `from..to` across `nodes`: returns one line per height where any node differs from the first
 * (empty when they all agree).
 */
export async function headerDifferences(nodes: TestnetNode[], from: number, to: number): Promise<string[]> {
  const differences: string[] = [];
  for (let height = from; height <= to; height++) {
    const headers = await Promise.all(nodes.map((n) => headerAt(n, height)));
    const first = JSON.stringify(headers[0]);
    headers.forEach((header, i) => {
      if (JSON.stringify(header) !== first) {
        differences.push(
          `height ${height}: ${nodes[0].moniker} ${first} vs ${nodes[i].moniker} ${JSON.stringify(header)}`,
        );
      }
    });
  }
  return differences;
}

/** GETs a REST path on `node`'s gateway; resolves with the status and the parsed body. */
export async function restGet(node: TestnetNode, path: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${node.apiUrl}${path}`, { signal: AbortSignal.timeout(30_000) });
  return { status: response.status, body: await response.json() };
}

/** The `denom` balance of `address` as `node`'s REST gateway reports it, as a bigint. */
export async function restBalance(node: TestnetNode, address: string, denom = "stake"): Promise<bigint> {
  const { status, body } = await restGet(node, `/chain/bank/v1beta1/balances/${address}`);
  if (status !== 200) throw new Error(`${node.moniker} REST balances of ${address}: ${status} ${JSON.stringify(body)}`);
  const balances = (body as { balances: { denom: string; amount: string }[] }).balances;
  return BigInt(balances.find((b) => b.denom === denom)?.amount ?? "0");
}

/** Account number and sequence over REST. */
export async function restAccount(
  node: TestnetNode,
  address: string,
): Promise<{ accountNumber: bigint; sequence: number }> {
  const { status, body } = await restGet(node, `/chain/auth/v1beta1/accounts/${address}`);
  if (status !== 200) throw new Error(`${node.moniker} REST account ${address}: ${status} ${JSON.stringify(body)}`);
  const account = (body as { account: { account_number: string; sequence: string } }).account;
  return { accountNumber: BigInt(account.account_number), sequence: Number(account.sequence) };
}

/** A CosmJS wallet (prefix "chain") with its address. */
export interface CosmjsSigner {
  wallet: DirectSecp256k1HdWallet;
  address: string;
}

/** A fresh CosmJS wallet with the chain's prefix. */
export async function newCosmjsSigner(): Promise<CosmjsSigner> {
  const wallet = await DirectSecp256k1HdWallet.generate(24, { prefix: "chain" });
  const [account] = await wallet.getAccounts();
  return { wallet, address: account.address };
}

/** The signer of a testnet validator: its keyring mnemonic in a CosmJS wallet (same HD path, m/44'/118'/0'/0/0). */
export async function validatorSigner(node: TestnetNode): Promise<CosmjsSigner> {
  const wallet = await DirectSecp256k1HdWallet.fromMnemonic(node.mnemonic, { prefix: "chain" });
  const [account] = await wallet.getAccounts();
  if (account.address !== node.address) {
    throw new Error(`CosmJS derives ${account.address} from ${node.keyName}'s mnemonic, the keyring ${node.address}`);
  }
  return { wallet, address: account.address };
}

// Our type URLs over CosmJS's own codecs: field numbers are upstream's, so the bytes are the same.
const REGISTRY = new Registry([
  ["/chain.bank.v1beta1.MsgSend", MsgSend],
  ["/chain.gov.v1.MsgVote", MsgVote],
]);

/** What a broadcast tx ended as. */
export interface IncludedTx {
  hash: string;
  height: number;
  code: number;
  log: string;
}

/** A tx signed with CosmJS, to be broadcast through `node`'s CometBFT. */
export interface SignedTx {
  node: TestnetNode;
  bytes: Uint8Array;
}

/**
 * Signs `messages` with CosmJS, the account number and sequence read over REST from `node`. `sequenceOffset`
 * signs for a later sequence: a tx meant to follow that many txs the signer has yet to send.
 */
export async function cosmjsSign(
  net: Testnet,
  node: TestnetNode,
  signer: CosmjsSigner,
  messages: EncodeObject[],
  options: { memo?: string; sequenceOffset?: number } = {},
): Promise<SignedTx> {
  const client = await SigningStargateClient.offline(signer.wallet, { registry: REGISTRY });
  const { accountNumber, sequence } = await restAccount(node, signer.address);
  const signed = await client.sign(
    signer.address,
    messages,
    { amount: [{ denom: "stake", amount: "5000" }], gas: "200000" },
    options.memo ?? "",
    { accountNumber, sequence: sequence + (options.sequenceOffset ?? 0), chainId: net.chainId },
  );
  return { node, bytes: TxRaw.encode(signed).finish() };
}

/** Broadcasts a signed tx through its node's CometBFT RPC with `broadcast_tx_sync` and waits until it is indexed. */
export async function broadcastSigned(tx: SignedTx): Promise<IncludedTx> {
  const comet = await Comet38Client.connect(tx.node.rpcUrl);
  try {
    const broadcast = await comet.broadcastTxSync({ tx: tx.bytes });
    if (broadcast.code !== 0) throw new Error(`CheckTx refused the tx: code ${broadcast.code} ${broadcast.log}`);
    const hash = Buffer.from(broadcast.hash).toString("hex").toUpperCase();
    const included = await waitUntil(
      `tx ${hash} in a block`,
      async () => (await comet.txSearch({ query: `tx.hash='${hash}'` })).txs[0],
      { timeoutMs: 180_000 },
    );
    return { hash, height: included.height, code: included.result.code, log: included.result.log ?? "" };
  } finally {
    comet.disconnect();
  }
}

/** Signs `messages` with CosmJS (see cosmjsSign) and broadcasts them through `node` (see broadcastSigned). */
export async function cosmjsBroadcast(
  net: Testnet,
  node: TestnetNode,
  signer: CosmjsSigner,
  messages: EncodeObject[],
  memo = "",
): Promise<IncludedTx> {
  return broadcastSigned(await cosmjsSign(net, node, signer, messages, { memo }));
}

/** A CosmJS-signed bank send of `amount` stake, broadcast through `node`'s CometBFT (see cosmjsBroadcast). */
export function cosmjsBankSend(
  net: Testnet,
  node: TestnetNode,
  signer: CosmjsSigner,
  to: string,
  amount: bigint,
): Promise<IncludedTx> {
  const send = MsgSend.fromPartial({
    fromAddress: signer.address,
    toAddress: to,
    amount: [{ denom: "stake", amount: amount.toString() }],
  });
  return cosmjsBroadcast(
    net,
    node,
    signer,
    [{ typeUrl: "/chain.bank.v1beta1.MsgSend", value: send }],
    "sent by CosmJS",
  );
}

/**
 * `node`'s validator's yes vote on `proposalId`, signed with CosmJS (see cosmjsSign, `sequenceOffset` included) for
 * broadcasting through the node's own CometBFT.
 */
export async function signVoteYes(
  net: Testnet,
  node: TestnetNode,
  proposalId: bigint,
  options: { sequenceOffset?: number } = {},
): Promise<SignedTx> {
  const signer = await validatorSigner(node);
  const vote = MsgVote.fromPartial({ proposalId, voter: signer.address, option: VoteOption.VOTE_OPTION_YES });
  return cosmjsSign(net, node, signer, [{ typeUrl: "/chain.gov.v1.MsgVote", value: vote }], options);
}

/** Runs the chaind CLI; resolves with stdout and stderr, or rejects with both in the message. */
export async function chaindCli(args: string[]): Promise<{ stdout: string; stderr: string }> {
  try {
    return await promisify(execFile)(process.execPath, [CHAIND_ENTRY, ...args], {
      cwd: PROJECT_ROOT,
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; code?: unknown };
    throw new Error(`chaind ${args.join(" ")} failed (exit ${String(e.code)}):\n${e.stderr ?? ""}${e.stdout ?? ""}`, {
      cause: error,
    });
  }
}

/**
 * Signs `tx <args>` with `node`'s validator key from its test keyring and broadcasts it through the node's CometBFT
 * RPC (`--node`), waiting for inclusion. Resolves with the CLI's JSON result.
 */
export async function cliTx(net: Testnet, node: TestnetNode, args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await chaindCli([
    "tx",
    ...args,
    "--from",
    node.keyName,
    "--keyring-backend",
    "test",
    "--home",
    node.home,
    "--chain-id",
    net.chainId,
    "--node",
    `tcp://127.0.0.1:${node.ports.rpc}`,
    "--fees",
    "5000stake",
    "--gas",
    "400000",
    "--yes",
    "--output",
    "json",
  ]);
  return JSON.parse(stdout) as Record<string, unknown>;
}

/** Waits for the tx `hash` to be in a block on `node`; resolves with its height and result code. */
export async function waitForTx(
  node: TestnetNode,
  hash: string,
): Promise<{ height: number; code: number; log: string }> {
  return waitUntil(
    `tx ${hash} on ${node.moniker}`,
    async () => {
      const result = await rpcResult(node, `/tx?hash=0x${hash}`);
      const txResult = result.tx_result as { code: number; log: string };
      return { height: Number(result.height), code: txResult.code, log: txResult.log };
    },
    { timeoutMs: 60_000 },
  );
}

/** The voting power of each validator in CometBFT's set at the latest height, by consensus address (upper hex). */
export async function cometValidatorPowers(node: TestnetNode): Promise<Map<string, bigint>> {
  const result = await rpcResult(node, "/validators?per_page=100");
  const validators = result.validators as { address: string; voting_power: string }[];
  return new Map(validators.map((v) => [v.address, BigInt(v.voting_power)]));
}

/** The node's validator consensus address (upper hex), from its priv_validator_key.json. */
export async function consensusAddress(node: TestnetNode): Promise<string> {
  const text = await readFile(join(node.home, "config", "priv_validator_key.json"), "utf8");
  return (JSON.parse(text) as { address: string }).address;
}
