// Sending a transaction the way a client would, for tests that drive a running chain: sign with a key of the
// home's test keyring at the account's current number and sequence (read over REST), broadcast over the
// consensus RPC in sync mode, and wait until the tx is in a committed block.
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import { openKeyring } from "../client/keyring/keyring.ts";
import { packAny } from "../client/tx/any.ts";
import { signTx } from "../client/tx/sign.ts";
import { pollUntil, rpcCall } from "./processes.ts";

/** Parameters of {@link broadcastAndWait}. */
export interface BroadcastAndWaitParameters<D extends DescMessage> {
  /** Consensus RPC base URL. */
  rpc: string;
  /** REST gateway base URL (for the signer's account number and sequence). */
  rest: string;
  /** The node home whose test keyring holds the signer. */
  home: string;
  chainId: string;
  /** Name of the signing key in the test keyring. */
  keyName: string;
  /** The signer's address (the account whose number and sequence sign the tx). */
  address: string;
  schema: D;
  message: MessageShape<D>;
  /** Gas limit (default 2,000,000; the test chains' minimum gas price is zero). */
  gasLimit?: bigint;
  /** How long to wait for inclusion (default 180 s). */
  timeoutMs?: number;
}

/** The committed result of a tx: its events as the consensus RPC's `tx` method reports them. */
export interface CommittedTx {
  events: { type: string; attributes: { key: string; value: string }[] }[];
}

/**
 * Signs one message, broadcasts it and resolves with its events once it is committed with code 0; rejects with the
 * node's code and log when CheckTx or DeliverTx refuses it.
 *
 * @example
 * await broadcastAndWait({ rpc, rest, home, chainId, keyName: "validator", address, schema: MsgVoteSchema, message });
 */
export async function broadcastAndWait<D extends DescMessage>(
  parameters: BroadcastAndWaitParameters<D>,
): Promise<CommittedTx> {
  const { rpc, rest, schema } = parameters;
  const response = await fetch(`${rest}/chain/auth/v1beta1/accounts/${parameters.address}`);
  if (!response.ok) throw new Error(`account ${parameters.address}: HTTP ${response.status} ${await response.text()}`);
  const { account } = (await response.json()) as { account: { account_number: string; sequence: string } };
  const signed = await signTx({
    messages: [packAny(schema, parameters.message)],
    fee: { amount: [], gasLimit: parameters.gasLimit ?? 2_000_000n },
    chainId: parameters.chainId,
    accountNumber: BigInt(account.account_number),
    sequence: BigInt(account.sequence),
    signer: await openKeyring({ home: parameters.home, backend: "test" }).signer(parameters.keyName),
  });
  const checked = await rpcCall<{ code: number; log: string }>(rpc, "broadcast_tx_sync", {
    tx: Buffer.from(signed.txBytes).toString("base64"),
  });
  if (checked.code !== 0)
    throw new Error(`${schema.typeName} refused by CheckTx (code ${checked.code}): ${checked.log}`);
  const result = await pollUntil(
    () =>
      rpcCall<{ tx_result: { code: number; log: string } & CommittedTx }>(rpc, "tx", {
        hash: Buffer.from(signed.txHash, "hex").toString("base64"),
      }),
    { what: `${schema.typeName} to be included`, timeoutMs: parameters.timeoutMs },
  );
  if (result.tx_result.code !== 0) {
    throw new Error(`${schema.typeName} failed in its block (code ${result.tx_result.code}): ${result.tx_result.log}`);
  }
  return { events: result.tx_result.events ?? [] };
}
