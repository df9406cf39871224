// The CLI's path from Msgs to a tx in a block, as upstream's client/tx does it: resolve the signer
// (`--from`), its account number and sequence (from the chain unless given), the chain id (`--chain-id`,
// else the node's network), the gas (`--gas N`, or `auto`: simulate and multiply by
// `--gas-adjustment`) and the fee (`--fees`, or `--gas-prices` × gas); then print the unsigned tx
// (`--generate-only`), or ask for confirmation (unless `--yes`), sign (SIGN_MODE_DIRECT), broadcast
// (`sync`/`async`) and, with `--wait`, poll the node's tx index until the tx is in a block.
//
// Output: what to print is returned (the unsigned tx JSON or the TxResponse). A tx that fails — in
// CheckTx or, with `--wait`, in its block — has its TxResponse printed on stdout and a CliError thrown
// whose message (stderr) names the hash, code, codespace and the node's log, so scripts see a non-zero
// exit status.

import { create, fromBinary, type JsonValue } from "@bufbuild/protobuf";
import type { Any } from "@bufbuild/protobuf/wkt";
import { type CoinError, parseCoins } from "../../app/coins.ts";
import { DEC_ONE, parseDecCoins } from "../../app/dec-coins.ts";
import { mempoolRefusal } from "../../app/tx-response.ts";
import { currentChainIdentity } from "../../config/chain-identity.ts";
import { currentBinaryName } from "../../config/home.ts";
import { addressToBech32 } from "../../crypto/index.ts";
import { BaseAccountSchema, ModuleAccountSchema } from "../../gen/chain/auth/v1beta1/auth_pb.js";
import { Query as AuthQuery } from "../../gen/chain/auth/v1beta1/query_pb.js";
import { type TxResponse, TxResponseSchema } from "../../gen/chain/base/abci/v1beta1/abci_pb.js";
import { TxSchema } from "../../gen/chain/tx/v1beta1/tx_pb.js";
import { KeyringError, type KeyringSigner } from "../keyring/index.ts";
import { grpcQuery } from "../rpc/grpc-query.ts";
import { RpcError } from "../rpc/rpc-client.ts";
import { subscribeTxInclusion } from "../rpc/tx-subscription.ts";
import { type CoinParameters, makeSimulationTxBytes, signTx, txHashHex } from "../tx/index.ts";
import type { ClientContext } from "./context.ts";
import { CliError } from "./errors.ts";
import type { TxFlags } from "./flags.ts";
import { formatValue, messageJson } from "./output.ts";
import { txFailureMessage, txResponseFromBroadcast, txResponseFromRpc } from "./tx-response.ts";

/** A signer's on-chain numbers. */
export interface SignerAccount {
  accountNumber: bigint;
  sequence: bigint;
}

/** The fee of a tx: coins and gas limit. */
export interface TxFee {
  amount: CoinParameters[];
  gasLimit: bigint;
  /** `--fee-payer` ("" = the first signer). */
  payer?: string;
}

/**
 * Runs a tx of `messages` signed by `--from` through the whole flow; resolves with what to print (the
 * TxResponse). With --generate-only (the unsigned tx, always JSON) and --dry-run (`gas estimate: N` on
 * stderr) it writes its output itself and resolves with null. Failed txs are printed, then thrown as CliError.
 *
 * @example ctx.print(await runTx(ctx, readTxFlags(command.optsWithGlobals()), [packAny(MsgSendSchema, msg)]))
 */
export async function runTx(ctx: ClientContext, flags: TxFlags, messages: Any[]): Promise<JsonValue> {
  if (messages.length === 0) throw new CliError("a tx needs at least one message");
  if (flags.generateOnly) {
    // A tx document is JSON whatever -o says (upstream prints it with its JSON encoder), so it can be signed.
    ctx.io.stdout.write(`${JSON.stringify(await generateUnsigned(ctx, flags, messages))}\n`);
    ctx.printNothing();
    return null;
  }
  if (flags.offline) {
    throw new CliError(
      `--offline cannot broadcast: add --generate-only to print the unsigned tx, then sign it with "${currentBinaryName()} tx sign <file> --offline" and send it with "${currentBinaryName()} tx broadcast <file>"`,
    );
  }

  const key = await keyOf(ctx, flags);
  const address = addressToBech32(key.address);
  const account = await resolveAccount(ctx, flags, address);
  if (flags.dryRun) {
    // Upstream's --dry-run: simulate, print the adjusted estimate on stderr, sign and send nothing.
    const simulated = await simulateGas(ctx, messages, flags, { pubKey: key.pubKey, sequence: account.sequence });
    ctx.io.stderr.write(`gas estimate: ${applyAdjustment(simulated, flags.gasAdjustment)}\n`);
    ctx.printNothing();
    return null;
  }
  if (flags.feePayer !== undefined && flags.feePayer !== address) {
    throw new CliError(
      `--fee-payer ${flags.feePayer} is not the signer ${address}: the fee payer must sign too; build the tx with --generate-only and sign it with both keys`,
    );
  }
  const chainId = await resolveChainId(ctx, flags.chainId);
  const fee = await resolveFee(ctx, flags, messages, { pubKey: key.pubKey, sequence: account.sequence });

  if (!flags.yes) await confirm(ctx, unsignedTxJson(ctx, messages, flags, fee));

  let signer: KeyringSigner;
  try {
    signer = await ctx.keyring(flags.keyringBackend).signer(flags.from ?? "");
  } catch (err) {
    if (err instanceof KeyringError) throw new CliError(err.message, { cause: err });
    throw err;
  }
  const signed = await signTx({
    messages,
    memo: flags.note,
    timeoutHeight: flags.timeoutHeight,
    fee,
    chainId,
    accountNumber: account.accountNumber,
    sequence: account.sequence,
    signer,
  });
  return broadcastTxBytes(ctx, flags, signed.txBytes);
}

/**
 * Broadcasts signed TxRaw bytes in `--broadcast-mode`, waits for inclusion with `--wait`, and resolves
 * with the TxResponse JSON; a failed tx is printed and thrown as CliError.
 */
export async function broadcastTxBytes(ctx: ClientContext, flags: TxFlags, txBytes: Uint8Array): Promise<JsonValue> {
  let result: Awaited<ReturnType<ClientContext["rpc"]["broadcastTxSync"]>>;
  try {
    result =
      flags.broadcastMode === "async"
        ? await ctx.rpc.broadcastTxAsync(txBytes)
        : await ctx.rpc.broadcastTxSync(txBytes);
  } catch (err) {
    // Upstream's CheckCometError: a refusal by the node's mempool (already in its cache, full, too large) is a
    // TxResponse with the sdk code for it (19, 20, 21), printed like any failed tx; other errors stay errors.
    const refusal = err instanceof RpcError ? mempoolRefusal(txHashHex(txBytes), err.message) : undefined;
    if (refusal === undefined) throw err;
    // The response's raw_log is empty, as upstream's; the node's own words say why on stderr.
    failTx(ctx, create(TxResponseSchema, refusal), (err as RpcError).message);
  }
  let response = txResponseFromBroadcast(result);
  if (response.code === 0 && flags.wait) response = await waitForTx(ctx, response.txhash, flags.waitTimeoutMs);
  if (response.code !== 0) failTx(ctx, response);
  return messageJson(TxResponseSchema, response, ctx.registry);
}

/** Prints a failed tx's response on stdout and throws the CliError that explains it (with `reason` when given). */
function failTx(ctx: ClientContext, response: TxResponse, reason?: string): never {
  ctx.io.stdout.write(formatValue(ctx.flags.output, messageJson(TxResponseSchema, response, ctx.registry)));
  const message = txFailureMessage(response);
  throw new CliError(reason === undefined ? message : `${message}: ${reason}`);
}

/**
 * Waits until the tx with `hash` is in a block, then returns its TxResponse (with the tx and block time).
 * It subscribes to the tx over the node's WebSocket (as upstream clients do) and reads the tx index when the
 * event arrives; without a WebSocket (refused, unix socket) it polls the index. Throws CliError after
 * `timeoutMs` (with `timeoutText` when given), or at once when the node does not index txs.
 */
export async function waitForTx(
  ctx: ClientContext,
  hash: string,
  timeoutMs: number,
  timeoutText?: string,
): Promise<TxResponse> {
  const deadline = Date.now() + timeoutMs;
  const waiter = await subscribeTxInclusion(ctx.flags.node, hash).catch(() => undefined);
  try {
    for (;;) {
      try {
        return await indexedTx(ctx, hash);
      } catch (err) {
        if (!(err instanceof RpcError) || !/not found/i.test(err.message)) throw err;
        if (Date.now() >= deadline) {
          throw new CliError(
            timeoutText ??
              `tx ${hash} was not included in a block within ${timeoutMs / 1000}s; it may still be in the mempool: check with "${currentBinaryName()} query tx ${hash}"`,
            { cause: err },
          );
        }
      }
      // With a subscription the event wakes us at once; the slow poll is only a safety net (a dropped socket).
      const pause = Math.max(0, Math.min(waiter === undefined ? 200 : 2000, deadline - Date.now()));
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        waiter?.included ?? new Promise(() => {}),
        new Promise((resolve) => {
          timer = setTimeout(resolve, pause);
        }),
      ]);
      clearTimeout(timer);
    }
  } finally {
    waiter?.close();
  }
}

/** The TxResponse of an indexed tx (RpcError `tx (<HASH>) not found` when the node has none). */
export async function indexedTx(ctx: ClientContext, hash: string): Promise<TxResponse> {
  const found = await ctx.rpc.tx(hash);
  return txResponseFromRpc(found, await blockTime(ctx, BigInt(found.height)));
}

/** The time of the block at `height` (RFC 3339), "" when the node no longer has it. */
export async function blockTime(ctx: ClientContext, height: bigint): Promise<string> {
  const { block_metas: metas } = await ctx.rpc.blockchain(height, height);
  return metas.find((meta) => meta.header.height === height.toString())?.header.time ?? "";
}

/** The signer's account number and sequence: the flags when both are given, else the chain's values. */
export async function resolveAccount(ctx: ClientContext, flags: TxFlags, address: string): Promise<SignerAccount> {
  if (flags.accountNumber !== undefined && flags.sequence !== undefined) {
    return { accountNumber: flags.accountNumber, sequence: flags.sequence };
  }
  const onChain = await lookupAccount(ctx, address);
  return {
    accountNumber: flags.accountNumber ?? onChain.accountNumber,
    sequence: flags.sequence ?? onChain.sequence,
  };
}

/** The account number and sequence of `address` on chain; an account not yet on chain is a CliError naming it. */
export async function lookupAccount(ctx: ClientContext, address: string): Promise<SignerAccount> {
  let account: Any | undefined;
  try {
    ({
      response: { account },
    } = await grpcQuery(ctx.queries, AuthQuery.method.account, { address }));
  } catch (err) {
    if (/not found/i.test((err as Error).message)) {
      throw new CliError(
        `account ${address} does not exist on chain: it must receive coins before it can sign (${(err as Error).message})`,
        { cause: err },
      );
    }
    throw err;
  }
  if (account === undefined) throw new CliError(`account ${address} does not exist on chain`);
  if (account.typeUrl.endsWith(".ModuleAccount")) {
    const base = fromBinary(ModuleAccountSchema, account.value).baseAccount;
    return { accountNumber: base?.accountNumber ?? 0n, sequence: base?.sequence ?? 0n };
  }
  const base = fromBinary(BaseAccountSchema, account.value);
  return { accountNumber: base.accountNumber, sequence: base.sequence };
}

/** The chain id: `--chain-id`, else the node's network. */
export async function resolveChainId(ctx: ClientContext, flag: string | undefined): Promise<string> {
  if (flag !== undefined && flag !== "") return flag;
  return (await ctx.rpc.status()).node_info.network;
}

/**
 * The gas limit (`--gas`, or simulated × `--gas-adjustment` with `auto`, printed to stderr as upstream
 * does) and the fee (`--fees`, or ⌈price × gas⌉ per denom of `--gas-prices`, or none).
 */
export async function resolveFee(
  ctx: ClientContext,
  flags: TxFlags,
  messages: Any[],
  signer: { pubKey: Uint8Array; sequence: bigint } | undefined,
): Promise<TxFee> {
  let gasLimit: bigint;
  if (flags.gas.auto) {
    if (signer === undefined) {
      throw new CliError("--gas auto needs the signer's public key: --from must name a key in the keyring");
    }
    const simulated = await simulateGas(ctx, messages, flags, signer);
    gasLimit = applyAdjustment(simulated, flags.gasAdjustment);
    ctx.io.stderr.write(`gas estimate: ${gasLimit}\n`);
  } else {
    gasLimit = flags.gas.limit;
  }
  return { amount: feeAmount(flags, gasLimit), gasLimit, payer: flags.feePayer ?? "" };
}

/**
 * gas × adjustment truncated, in doubles as upstream's client computes it (`uint64(gasAdjustment *
 * float64(gasUsed))`), so that the same simulation gives the same gas limit here and there (43637 × 1.5 → 65455).
 */
export function applyAdjustment(gas: bigint, adjustment: string): bigint {
  return BigInt(Math.trunc(Number(adjustment) * Number(gas)));
}

/** The fee coins from `--fees` or `--gas-prices` (⌈price × gas⌉ per denom). */
export function feeAmount(flags: Pick<TxFlags, "fees" | "gasPrices">, gasLimit: bigint): CoinParameters[] {
  if (flags.fees !== undefined && flags.fees !== "") {
    try {
      return parseCoins(flags.fees).map((coin) => ({ denom: coin.denom, amount: coin.amount }));
    } catch (err) {
      throw new CliError(
        `invalid --fees "${flags.fees}": ${(err as CoinError).message}; expected coins such as 2000${currentChainIdentity().denom}`,
        {
          cause: err,
        },
      );
    }
  }
  if (flags.gasPrices !== undefined && flags.gasPrices !== "") {
    let prices: ReturnType<typeof parseDecCoins>;
    try {
      prices = parseDecCoins(flags.gasPrices);
    } catch (err) {
      throw new CliError(
        `invalid --gas-prices "${flags.gasPrices}": ${(err as CoinError).message}; expected prices such as 0.025${currentChainIdentity().denom}`,
        { cause: err },
      );
    }
    return prices.map((price) => ({ denom: price.denom, amount: (price.amount * gasLimit + DEC_ONE - 1n) / DEC_ONE }));
  }
  return [];
}

async function simulateGas(
  ctx: ClientContext,
  messages: Any[],
  flags: TxFlags,
  signer: { pubKey: Uint8Array; sequence: bigint },
): Promise<bigint> {
  const txBytes = makeSimulationTxBytes({
    messages,
    memo: flags.note,
    timeoutHeight: flags.timeoutHeight,
    signers: [signer],
    // The fee as the tx will carry it (as upstream's CLI simulates): its transfer costs gas too. With
    // --gas-prices the gas is not known yet, so, as upstream, the simulated fee is zero.
    fee: { amount: feeAmount(flags, 0n), payer: flags.feePayer ?? "" },
  });
  const result = await ctx.rpc.abciQuery("/app/simulate", txBytes);
  if (result.code !== 0) throw new CliError(`failed to simulate the tx to estimate its gas: ${result.log}`);
  let json: { gas_info?: { gas_used?: string } };
  try {
    json = JSON.parse(new TextDecoder().decode(result.value));
  } catch (err) {
    throw new CliError(`the node's simulation answer is not JSON: ${(err as Error).message}`, { cause: err });
  }
  const used = json.gas_info?.gas_used;
  if (used === undefined || !/^\d+$/.test(used))
    throw new CliError("the node's simulation answer has no gas_info.gas_used");
  return BigInt(used);
}

/** The unsigned tx as JSON (no signer infos, no signatures), as --generate-only prints it. */
export function unsignedTxJson(ctx: ClientContext, messages: Any[], flags: TxFlags, fee: TxFee): JsonValue {
  const tx = create(TxSchema, {
    body: { messages, memo: flags.note, timeoutHeight: flags.timeoutHeight },
    authInfo: {
      signerInfos: [],
      fee: {
        amount: fee.amount.map((coin) => ({ denom: coin.denom, amount: coin.amount.toString() })),
        gasLimit: fee.gasLimit,
        payer: fee.payer ?? "",
      },
    },
    signatures: [],
  });
  return messageJson(TxSchema, tx, ctx.registry);
}

async function generateUnsigned(ctx: ClientContext, flags: TxFlags, messages: Any[]): Promise<JsonValue> {
  let signer: { pubKey: Uint8Array; sequence: bigint } | undefined;
  if (flags.gas.auto) {
    const key = await keyOf(ctx, flags);
    const account = await resolveAccount(ctx, flags, addressToBech32(key.address));
    signer = { pubKey: key.pubKey, sequence: account.sequence };
  }
  return unsignedTxJson(ctx, messages, flags, await resolveFee(ctx, flags, messages, signer));
}

async function keyOf(ctx: ClientContext, flags: TxFlags) {
  if (flags.from === undefined || flags.from === "") {
    throw new CliError("--from is required: the name or address of the signing key");
  }
  try {
    return await ctx.keyring(flags.keyringBackend).show(flags.from);
  } catch (err) {
    if (err instanceof KeyringError) throw new CliError(err.message, { cause: err });
    throw err;
  }
}

/** Shows the unsigned tx on stderr and asks `confirm transaction before signing and broadcasting [y/N]:`. */
async function confirm(ctx: ClientContext, unsigned: JsonValue): Promise<void> {
  ctx.io.stderr.write(`${JSON.stringify(unsigned)}\n\nconfirm transaction before signing and broadcasting [y/N]: `);
  const answer = await ctx.lines().readLine();
  ctx.io.stderr.write("\n");
  if (answer === undefined) {
    throw new CliError("canceled transaction: no answer on standard input (pass --yes to skip the confirmation)");
  }
  if (!/^(?:y|yes)$/i.test(answer.trim())) throw new CliError("canceled transaction");
}
