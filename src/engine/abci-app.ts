// The application interface the embedded engine drives: the ABCI 2.0 method set with the generated
// tendermint.abci request/response messages, every method async. The App (src/app/base-app.ts) satisfies it;
// the ABCI socket server drives the same object for CometBFT.
import type {
  RequestCheckTx,
  RequestCommit,
  RequestExtendVote,
  RequestFinalizeBlock,
  RequestInfo,
  RequestInitChain,
  RequestPrepareProposal,
  RequestProcessProposal,
  RequestQuery,
  RequestVerifyVoteExtension,
  ResponseCheckTx,
  ResponseCommit,
  ResponseExtendVote,
  ResponseFinalizeBlock,
  ResponseInfo,
  ResponseInitChain,
  ResponsePrepareProposal,
  ResponseProcessProposal,
  ResponseQuery,
  ResponseVerifyVoteExtension,
} from "../gen/tendermint/abci/types_pb.js";

/** How a caller of CheckTx uses the answer. */
export interface CheckTxOptions {
  /**
   * False when the caller reads no events (broadcast_tx_sync/async, rechecks): the app may then leave
   * `events` empty and save building them. Default true (the ABCI server and broadcast_tx_commit return them).
   */
  events?: boolean;
}

/** What the engine needs from an application. */
export interface AbciApp {
  info(request: RequestInfo): Promise<ResponseInfo>;
  initChain(request: RequestInitChain): Promise<ResponseInitChain>;
  checkTx(request: RequestCheckTx, options?: CheckTxOptions): Promise<ResponseCheckTx>;
  prepareProposal(request: RequestPrepareProposal): Promise<ResponsePrepareProposal>;
  processProposal(request: RequestProcessProposal): Promise<ResponseProcessProposal>;
  finalizeBlock(request: RequestFinalizeBlock): Promise<ResponseFinalizeBlock>;
  commit(request: RequestCommit): Promise<ResponseCommit>;
  query(request: RequestQuery): Promise<ResponseQuery>;
  /**
   * Optional: ExtendVote (CometBFT v0.38, once `abci.vote_extensions_enable_height` is reached). Without it the
   * node extends its precommits with nothing.
   */
  extendVote?(request: RequestExtendVote): Promise<ResponseExtendVote>;
  /** Optional: VerifyVoteExtension. Without it only an empty extension is accepted. */
  verifyVoteExtension?(request: RequestVerifyVoteExtension): Promise<ResponseVerifyVoteExtension>;
  /**
   * Optional: CheckTx's state-free checks (size, decode), run WITHOUT the app lock before a tx queues
   * for CheckTx. Returns the CheckTx answer of a tx it refuses, undefined to go on to CheckTx. Must not
   * read or write app state. Apps driven over a socket simply lack it.
   */
  precheckTx?(tx: Uint8Array): ResponseCheckTx | undefined;
  /**
   * Optional: work for CheckTx that may start WITHOUT the app lock, as soon as a tx has passed
   * `precheckTx`, and overlap with other txs' CheckTx and with block execution (the default app
   * verifies the tx's signatures on a worker thread here). Only warms caches: it must not change
   * state, and it never rejects. CheckTx awaits it before it runs, keeping arrival order. Undefined when
   * there is nothing to prepare for this tx.
   */
  prepareCheckTx?(tx: Uint8Array): Promise<void> | undefined;
}

/**
 * An error that asks the node to stop (an upgrade halt, the downgrade guard, ...). The App throws it from
 * finalizeBlock; the engine then saves nothing of that height, commits nothing, and reports `exitCode`.
 */
export interface HaltRequest {
  exitCode: number;
}

/** True when `error` carries a numeric `exitCode` (duck-typed, so the App need not import engine code). */
export function isHaltRequest(error: unknown): error is HaltRequest & Error {
  return (
    typeof error === "object" &&
    error !== null &&
    "exitCode" in error &&
    typeof (error as { exitCode: unknown }).exitCode === "number"
  );
}
