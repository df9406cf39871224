// The default ante handler: upstream's decorator chain (x/auth/ante/ante.go), in upstream's order,
// with upstream's codes and texts. Each step is a small function; `createAnteHandler` runs them in
// sequence on the tx's branch, so a failing step leaves nothing behind.
import type { AnteHandler } from "../../app/ante.ts";
import { type Coin, coinsToString, isAnyGTE, isAnyNegative, isValidCoins } from "../../app/coins.ts";
import type { Context } from "../../app/context.ts";
import { isZeroDecCoins, requiredFees } from "../../app/dec-coins.ts";
import {
  ErrInsufficientFee,
  ErrInsufficientFunds,
  ErrInvalidAddress,
  ErrInvalidGasLimit,
  ErrInvalidPubKey,
  ErrInvalidRequest,
  ErrMemoTooLarge,
  ErrNoSignatures,
  ErrTooManySignatures,
  ErrTxTimeoutHeight,
  ErrUnauthorized,
  ErrUnknownAddress,
  ErrUnknownExtensionOptions,
  ErrWrongSequence,
} from "../../app/errors.ts";
import { decodeSignerAddress } from "../../app/signers.ts";
import type { DecodedTx, TxPubKey } from "../../app/tx-decode.ts";
import { fromHex, toBase64, verifySecp256k1 } from "../../crypto/index.ts";
import { SignMode } from "../../gen/chain/tx/signing/v1beta1/signing_pb.js";
import { type Account, type AccountPubKey, addressOfPubKey } from "./account.ts";
import { type AccountKeeper, FEE_COLLECTOR_NAME } from "./keeper.ts";
import { cachedOutcome, forgetOutcome, rememberOutcome, signatureKey } from "./sig-cache.ts";
import { encodeSignDoc } from "./sign-doc.ts";
import { singleJobsStayHere, type VerifyJob, verifyBatch, verifyOffThread } from "./verify-pool.ts";

/** What the fee step needs from the bank module. */
export interface FeeBankKeeper {
  sendCoinsFromAccountToModule(ctx: Context, from: Uint8Array, moduleName: string, amount: Coin[]): Promise<void>;
}

/** Dependencies of the default ante handler. */
export interface AnteHandlerOptions {
  accountKeeper: AccountKeeper;
  bankKeeper: FeeBankKeeper;
}

// Upstream's stand-in key for simulation when an account has none yet (a fixed, valid secp256k1 point).
const SIMULATION_PUBKEY: AccountPubKey = {
  algorithm: "secp256k1",
  key: fromHex("035ad6810a47f073553ff30d2fcc7e0d3b1c0b74b61a1aaa2582344037151e143a"),
};
// Length of the amino-encoded StdSignature{secp256k1 pubkey, 64-byte signature} upstream charges for
// each missing signature while simulating, plus its fixed 6-byte allowance.
const SIMULATED_SIGNATURE_BYTES = 106n + 6n;
const MAX_GAS_WANTED = (1n << 63n) - 1n;
const NOTHING_TO_PREPARE: Promise<void> = Promise.resolve();

type Step = (ctx: Context, tx: DecodedTx, env: StepEnv) => Promise<void>;

interface StepEnv {
  accountKeeper: AccountKeeper;
  bankKeeper: FeeBankKeeper;
}

/**
 * The default chain: extension options, validate basic, timeout height, memo, tx size gas, fee
 * deduction (with the min-gas-price check in CheckTx), set pubkey, signature count, signature gas,
 * signature verification (sequence, then signature), sequence increment.
 */
export function createAnteHandler(options: AnteHandlerOptions): AnteHandler {
  const steps: Step[] = [
    rejectExtensionOptions,
    validateBasic,
    checkTimeoutHeight,
    validateMemo,
    consumeTxSizeGas,
    deductFee,
    setPubKeys,
    validateSigCount,
    consumeSignatureGas,
    verifySignatures,
    incrementSequences,
  ];
  const env: StepEnv = { accountKeeper: options.accountKeeper, bankKeeper: options.bankKeeper };
  const handler: AnteHandler = async (ctx, tx) => {
    for (const step of steps) await step(ctx, tx, env);
  };
  handler.prepareBlock = (ctx, txs) => preverifySignatures(ctx, txs, env, verifyBatch);
  // Preparing a CheckTx only moves its signature checks to a worker thread. Where they would be verified on this
  // thread anyway (libsecp256k1), CheckTx verifies them itself: the preparation's account reads, context and
  // promises per tx would buy nothing (the outcome and the cache are the same either way).
  handler.prepareCheck = (ctx, tx) =>
    singleJobsStayHere() ? NOTHING_TO_PREPARE : preverifySignatures(ctx, [tx], env, verifyOffThread);
  handler.preparesCheck = () => !singleJobsStayHere();
  return handler;
}

async function rejectExtensionOptions(_ctx: Context, tx: DecodedTx): Promise<void> {
  // Upstream's RejectExtensionOptionsDecorator returns the bare registered error: the log is exactly
  // "unknown extension options", with no context.
  if (tx.body.extensionOptions.length > 0) throw ErrUnknownExtensionOptions.error();
}

async function validateBasic(ctx: Context, tx: DecodedTx): Promise<void> {
  if (ctx.isReCheckTx) return;
  const fee = tx.authInfo.fee;
  if (fee === undefined) throw new Error("missing fee");
  if (tx.gasLimit > MAX_GAS_WANTED) {
    throw ErrInvalidRequest.wrap(`invalid gas supplied; ${tx.gasLimit} > ${MAX_GAS_WANTED}`);
  }
  if (isAnyNegative(tx.fee)) throw ErrInsufficientFee.wrap(`invalid fee provided: ${coinsToString(tx.fee)}`);
  if (fee.payer !== "") {
    try {
      decodeSignerAddress(fee.payer, "fee payer");
    } catch (err) {
      throw ErrInvalidAddress.wrap(`Invalid fee payer address (${(err as Error).message})`);
    }
  }
  const signatures = tx.raw.signatures;
  if (signatures.length === 0) throw ErrNoSignatures.error();
  if (signatures.length !== tx.signers.length) {
    throw ErrUnauthorized.wrap(`wrong number of signers; expected ${tx.signers.length}, got ${signatures.length}`);
  }
}

async function checkTimeoutHeight(ctx: Context, tx: DecodedTx): Promise<void> {
  const timeout = tx.body.timeoutHeight;
  if (timeout > 0n && ctx.blockHeight > timeout) {
    throw ErrTxTimeoutHeight.wrap(`block height: ${ctx.blockHeight}, timeout height: ${timeout}`);
  }
}

// Like upstream, each step that needs the params reads them (and pays the read gas) itself.
async function validateMemo(ctx: Context, tx: DecodedTx, env: StepEnv): Promise<void> {
  const params = await env.accountKeeper.getParams(ctx);
  const length = BigInt(Buffer.byteLength(tx.body.memo, "utf8"));
  if (length > 0n && length > params.maxMemoCharacters) {
    throw ErrMemoTooLarge.wrap(
      `maximum number of characters is ${params.maxMemoCharacters} but received ${length} characters`,
    );
  }
}

async function consumeTxSizeGas(ctx: Context, tx: DecodedTx, env: StepEnv): Promise<void> {
  const params = await env.accountKeeper.getParams(ctx);
  ctx.gasMeter.consume(params.txSizeCostPerByte * BigInt(ctx.txBytes.length), "txSize");
  if (!ctx.isSimulate) return;
  // A simulated tx usually comes without signatures; charge their size as if they were there.
  for (let i = 0; i < tx.signers.length; i++) {
    const signature = tx.raw.signatures[i];
    if (signature !== undefined && signature.length > 0) continue;
    ctx.gasMeter.consume(params.txSizeCostPerByte * SIMULATED_SIGNATURE_BYTES, "txSize");
  }
}

async function deductFee(ctx: Context, tx: DecodedTx, env: StepEnv): Promise<void> {
  if (!ctx.isSimulate && ctx.blockHeight > 0n && tx.gasLimit === 0n) {
    throw ErrInvalidGasLimit.wrap("must provide positive gas");
  }
  if (!ctx.isSimulate && ctx.isCheckTx && !isZeroDecCoins(ctx.minGasPrices)) {
    const required = requiredFees(ctx.minGasPrices, tx.gasLimit);
    if (!isAnyGTE(tx.fee, required)) {
      throw ErrInsufficientFee.wrap(
        `insufficient fees; got: ${coinsToString(tx.fee)} required: ${coinsToString(required)}`,
      );
    }
  }
  if (tx.authInfo.fee !== undefined && tx.authInfo.fee.granter !== "") {
    throw ErrInvalidRequest.wrap("fee grants are not enabled");
  }
  const payer = tx.feePayer;
  const payerAccount = await env.accountKeeper.getAccount(ctx, payer);
  if (payerAccount === undefined) {
    throw ErrUnknownAddress.wrap(`fee payer address: ${env.accountKeeper.addressToString(payer)} does not exist`);
  }
  if (tx.fee.some((coin) => coin.amount !== 0n)) {
    if (!isValidCoins(tx.fee)) throw ErrInsufficientFee.wrap(`invalid fee amount: ${coinsToString(tx.fee)}`);
    try {
      await env.bankKeeper.sendCoinsFromAccountToModule(ctx, payer, FEE_COLLECTOR_NAME, tx.fee);
    } catch (err) {
      throw ErrInsufficientFunds.wrap((err as Error).message, { cause: err });
    }
  }
  if (ctx.events.recording) {
    ctx.events.emit("tx", { fee: coinsToString(tx.fee), fee_payer: env.accountKeeper.addressToString(payer) });
  }
}

async function setPubKeys(ctx: Context, tx: DecodedTx, env: StepEnv): Promise<void> {
  for (let i = 0; i < tx.pubKeys.length; i++) {
    let pubKey: AccountPubKey | undefined = supported(tx.pubKeys[i]);
    const carried = tx.pubKeys[i];
    if (carried?.algorithm === "other") throw ErrInvalidPubKey.wrap(`unrecognized public key type: ${carried.typeUrl}`);
    if (carried === undefined) {
      if (!ctx.isSimulate) continue;
      pubKey = SIMULATION_PUBKEY;
    }
    const signer = tx.signers[i];
    if (signer === undefined) break; // count mismatch is reported by signature verification
    if (!ctx.isSimulate) {
      if (pubKey === undefined || !equalBytes(addressOfPubKey(pubKey), signer)) {
        throw ErrInvalidPubKey.wrap(
          `pubKey does not match signer address ${tx.signerAddresses[i]} with signer index: ${i}`,
        );
      }
    }
    const account = await signerAccount(ctx, env, signer, tx.signerAddresses[i]);
    if (account.pubKey !== undefined || pubKey === undefined) continue;
    env.accountKeeper.setAccount(ctx, { ...account, pubKey });
  }
  // Index the tx by `tx.acc_seq='<addr>/<seq>'` and by each signature.
  if (!ctx.events.recording) return;
  for (let i = 0; i < tx.authInfo.signerInfos.length; i++) {
    const address = tx.signerAddresses[i] ?? "";
    ctx.events.emit("tx", { acc_seq: `${address}/${tx.authInfo.signerInfos[i].sequence}` });
    const signature = tx.raw.signatures[i];
    if (signature !== undefined) ctx.events.emit("tx", { signature: toBase64(signature) });
  }
}

async function validateSigCount(ctx: Context, tx: DecodedTx, env: StepEnv): Promise<void> {
  const params = await env.accountKeeper.getParams(ctx);
  const count = BigInt(tx.pubKeys.filter((pk) => pk !== undefined).length);
  if (count > params.txSigLimit) {
    throw ErrTooManySignatures.wrap(`signatures: ${count}, limit: ${params.txSigLimit}`);
  }
}

async function consumeSignatureGas(ctx: Context, tx: DecodedTx, env: StepEnv): Promise<void> {
  const params = await env.accountKeeper.getParams(ctx);
  for (let i = 0; i < tx.authInfo.signerInfos.length; i++) {
    const signer = tx.signers[i];
    if (signer === undefined) break;
    const account = await signerAccount(ctx, env, signer, tx.signerAddresses[i]);
    let pubKey = account.pubKey;
    if (pubKey === undefined) {
      if (!ctx.isSimulate) continue; // verifySignatures reports the missing key
      pubKey = SIMULATION_PUBKEY;
    }
    if (pubKey.algorithm === "secp256k1") {
      ctx.gasMeter.consume(params.sigVerifyCostSecp256k1, "ante verify: secp256k1");
    } else {
      ctx.gasMeter.consume(params.sigVerifyCostEd25519, "ante verify: ed25519");
      throw ErrInvalidPubKey.wrap("ED25519 public keys are unsupported");
    }
  }
}

async function verifySignatures(ctx: Context, tx: DecodedTx, env: StepEnv): Promise<void> {
  const signerInfos = tx.authInfo.signerInfos;
  if (signerInfos.length !== tx.signers.length) {
    throw ErrUnauthorized.wrap(`invalid number of signer;  expected: ${tx.signers.length}, got ${signerInfos.length}`);
  }
  for (let i = 0; i < signerInfos.length; i++) {
    const info = signerInfos[i];
    const account = await signerAccount(ctx, env, tx.signers[i], tx.signerAddresses[i]);
    if (!ctx.isSimulate && account.pubKey === undefined) throw ErrInvalidPubKey.wrap("pubkey on account is not set");
    if (info.sequence !== account.sequence) {
      throw ErrWrongSequence.wrap(`account sequence mismatch, expected ${account.sequence}, got ${info.sequence}`);
    }
    if (ctx.isSimulate || ctx.isReCheckTx || account.pubKey === undefined) continue;
    // Gentxs (height 0) are signed with account number 0, whatever number the account gets.
    const accountNumber = ctx.blockHeight === 0n ? 0n : account.accountNumber;
    const problem = checkSignature(ctx, tx, i, account.pubKey, accountNumber);
    if (problem !== undefined) {
      throw ErrUnauthorized.wrap(
        `signature verification failed; please verify account number (${accountNumber}) and chain-id (${ctx.chainId}): (${problem})`,
      );
    }
  }
}

async function incrementSequences(ctx: Context, tx: DecodedTx, env: StepEnv): Promise<void> {
  for (let i = 0; i < tx.signers.length; i++) {
    const account = await signerAccount(ctx, env, tx.signers[i], tx.signerAddresses[i]);
    env.accountKeeper.setAccount(ctx, { ...account, sequence: account.sequence + 1n });
  }
}

/** Returns undefined when signature `index` is valid, else why not. */
function checkSignature(
  ctx: Context,
  tx: DecodedTx,
  index: number,
  pubKey: AccountPubKey,
  accountNumber: bigint,
): string | undefined {
  const modeInfo = tx.authInfo.signerInfos[index].modeInfo;
  if (modeInfo?.sum.case !== "single") return "unsupported sign mode: only single-signer SIGN_MODE_DIRECT is supported";
  if (modeInfo.sum.value.mode !== SignMode.DIRECT) {
    return `unsupported sign mode ${SignMode[modeInfo.sum.value.mode] ?? modeInfo.sum.value.mode}: only SIGN_MODE_DIRECT is supported`;
  }
  if (pubKey.algorithm !== "secp256k1") return "unable to verify single signer signature";
  const signature = tx.raw.signatures[index];
  if (signature === undefined) return "unable to verify single signer signature";
  const { signBytes, key } = signatureCheckOf(tx, index, ctx.chainId, accountNumber, pubKey.key, signature);
  let valid = cachedOutcome(key);
  if (valid === undefined) {
    valid = verifySecp256k1(pubKey.key, signBytes, signature);
    if (ctx.mode !== "finalize") rememberOutcome(key, valid);
  } else if (ctx.mode === "finalize") {
    forgetOutcome(key);
  }
  return valid ? undefined : "unable to verify single signer signature";
}

/** SIGN_MODE_DIRECT sign bytes: SignDoc{body_bytes, auth_info_bytes, chain_id, account_number}. */
// A tx's signature is looked up in the cache up to three times (its preparation, CheckTx, the block), each time
// from the same decoded tx: its sign bytes and cache key (a ~350-char string) are built once per (signer,
// chain, account number, key) and kept with the decoded tx.
interface SignatureCheck {
  chainId: string;
  accountNumber: bigint;
  publicKey: Uint8Array;
  signBytes: Uint8Array;
  key: string;
}
const signatureChecks = new WeakMap<DecodedTx, (SignatureCheck | undefined)[]>();

function signatureCheckOf(
  tx: DecodedTx,
  index: number,
  chainId: string,
  accountNumber: bigint,
  publicKey: Uint8Array,
  signature: Uint8Array,
): SignatureCheck {
  let checks = signatureChecks.get(tx);
  if (checks === undefined) {
    checks = [];
    signatureChecks.set(tx, checks);
  }
  const known = checks[index];
  if (
    known !== undefined &&
    known.chainId === chainId &&
    known.accountNumber === accountNumber &&
    equalBytes(known.publicKey, publicKey)
  ) {
    return known;
  }
  const signBytes = directSignBytes(tx, chainId, accountNumber);
  const check = { chainId, accountNumber, publicKey, signBytes, key: signatureKey(publicKey, signBytes, signature) };
  checks[index] = check;
  return check;
}

function directSignBytes(tx: DecodedTx, chainId: string, accountNumber: bigint): Uint8Array {
  return encodeSignDoc(tx.raw.bodyBytes, tx.raw.authInfoBytes, chainId, accountNumber);
}

// Before a block's txs run (or a tx's CheckTx): verify every signature whose key and account number
// are already known from the starting state, in parallel, so the per-tx check finds the outcome
// cached. Keys or accounts that appear later are verified when their tx runs.
async function preverifySignatures(
  ctx: Context,
  txs: readonly DecodedTx[],
  env: StepEnv,
  verify: (jobs: readonly VerifyJob[]) => Promise<boolean[]>,
): Promise<void> {
  const jobs: VerifyJob[] = [];
  const keys: string[] = [];
  for (const tx of txs) {
    for (let i = 0; i < tx.signers.length && i < tx.raw.signatures.length; i++) {
      const modeInfo = tx.authInfo.signerInfos[i]?.modeInfo;
      if (modeInfo?.sum.case !== "single" || modeInfo.sum.value.mode !== SignMode.DIRECT) continue;
      // Checked already (in CheckTx, on this node) and its outcome still cached: nothing to warm, so no account
      // read. The tx's own check reads the account and looks up the key of that account's number and public
      // key; should they differ from what CheckTx saw, that lookup misses and verifies there.
      const known = signatureChecks.get(tx)?.[i];
      if (known !== undefined && known.chainId === ctx.chainId && cachedOutcome(known.key) !== undefined) continue;
      const account = await env.accountKeeper.getAccount(ctx, tx.signers[i]);
      if (account === undefined) continue;
      const pubKey = account.pubKey ?? supported(tx.pubKeys[i]);
      if (pubKey?.algorithm !== "secp256k1") continue;
      const accountNumber = ctx.blockHeight === 0n ? 0n : account.accountNumber;
      const { signBytes, key } = signatureCheckOf(tx, i, ctx.chainId, accountNumber, pubKey.key, tx.raw.signatures[i]);
      if (cachedOutcome(key) !== undefined) continue;
      keys.push(key);
      jobs.push({ publicKey: pubKey.key, message: signBytes, signature: tx.raw.signatures[i] });
    }
  }
  if (jobs.length === 0) return;
  const outcomes = await verify(jobs);
  for (let i = 0; i < keys.length; i++) rememberOutcome(keys[i], outcomes[i]);
}

async function signerAccount(ctx: Context, env: StepEnv, signer: Uint8Array, address: string): Promise<Account> {
  const account = await env.accountKeeper.getAccount(ctx, signer);
  if (account === undefined) throw ErrUnknownAddress.wrap(`account ${address} does not exist`);
  return account;
}

function supported(pubKey: TxPubKey | undefined): AccountPubKey | undefined {
  if (pubKey === undefined || pubKey.algorithm === "other") return undefined;
  return { algorithm: pubKey.algorithm, key: pubKey.key };
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}
