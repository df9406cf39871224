// An AbciApp that reports each call to observers (metrics) and otherwise forwards it unchanged. The node wraps
// the App in it only when some metrics are on, so a node without metrics runs the App itself: no wrapper, no cost.
// Every method the App has is forwarded — the optional ones too (vote extensions, the CheckTx precheck and its
// warm-up): a method the wrapper dropped would silently change what the node does with metrics on (without
// ExtendVote the node extends its precommits with nothing and never signals upgrade readiness; without
// VerifyVoteExtension an ABCI node rejects every non-empty extension).
// Observers get plain values (a method name, seconds, the response) and must be cheap: CheckTx runs per tx, so a
// call costs one performance.now pair and one async frame, no closure or result object of its own.
import { performance } from "node:perf_hooks";
import type {
  RequestFinalizeBlock,
  RequestQuery,
  ResponseCheckTx,
  ResponseFinalizeBlock,
  ResponseQuery,
} from "../gen/tendermint/abci/types_pb.js";
import { CheckTxType } from "../gen/tendermint/abci/types_pb.js";
import type { AbciApp } from "./abci-app.ts";

/** The ABCI method names as CometBFT's metrics label them. */
export type AbciMethodName =
  | "info"
  | "init_chain"
  | "check_tx"
  | "prepare_proposal"
  | "process_proposal"
  | "finalize_block"
  | "commit"
  | "query"
  | "extend_vote"
  | "verify_vote_extension";

/** What an observer may want to hear; every member is optional. */
export interface AbciObserver {
  /** Each call's duration, errors included. */
  timing?(method: AbciMethodName, seconds: number): void;
  /** Each CheckTx answer: new txs (`recheck` false, including those refused before the app lock) and rechecks. */
  checkTx?(response: ResponseCheckTx, recheck: boolean): void;
  /** Each block's answer, beside the request whose txs its `txResults` follow one by one. */
  finalizeBlock?(response: ResponseFinalizeBlock, request: RequestFinalizeBlock): void;
  query?(request: RequestQuery, response: ResponseQuery, seconds: number): void;
  /** A call that threw (e.g. FinalizeBlock's upgrade halt). */
  failed?(method: AbciMethodName, error: unknown): void;
}

/** After a call answered: its request, its answer and its seconds. */
type Answered<Req, Res> = (request: Req, response: Res, seconds: number) => void;

/**
 * `app` with every observer told about each call; `app` itself when there are none.
 *
 * @example const driven = observeAbci(app, [consensusMetrics.abciObserver]); // hand `driven` to the engine
 */
export function observeAbci(app: AbciApp, observers: readonly AbciObserver[]): AbciApp {
  if (observers.length === 0) return app;
  const timers = observers.filter((o) => o.timing !== undefined);
  const checks = observers.filter((o) => o.checkTx !== undefined);
  const finals = observers.filter((o) => o.finalizeBlock !== undefined);
  const queries = observers.filter((o) => o.query !== undefined);
  const fails = observers.filter((o) => o.failed !== undefined);

  const elapsed = (method: AbciMethodName, start: number): number => {
    const seconds = (performance.now() - start) / 1000;
    for (const o of timers) o.timing?.(method, seconds);
    return seconds;
  };
  /** `call` (a method of `app`) timed as `method`, then `answered`. */
  const timed =
    <Req, Res, Opt>(
      method: AbciMethodName,
      call: (request: Req, options?: Opt) => Promise<Res>,
      answered?: Answered<Req, Res>,
    ) =>
    async (request: Req, options?: Opt): Promise<Res> => {
      const start = performance.now();
      let response: Res;
      try {
        response = await call(request, options);
      } catch (error) {
        elapsed(method, start);
        for (const o of fails) o.failed?.(method, error);
        throw error;
      }
      const seconds = elapsed(method, start);
      answered?.(request, response, seconds);
      return response;
    };
  const observed: AbciApp = {
    info: timed("info", (r) => app.info(r)),
    initChain: timed("init_chain", (r) => app.initChain(r)),
    checkTx: timed(
      "check_tx",
      (r, options) => app.checkTx(r, options),
      (request, response) => {
        const recheck = request.type === CheckTxType.RECHECK;
        for (const o of checks) o.checkTx?.(response, recheck);
      },
    ),
    prepareProposal: timed("prepare_proposal", (r) => app.prepareProposal(r)),
    processProposal: timed("process_proposal", (r) => app.processProposal(r)),
    finalizeBlock: timed(
      "finalize_block",
      (r) => app.finalizeBlock(r),
      (request, response) => {
        for (const o of finals) o.finalizeBlock?.(response, request);
      },
    ),
    commit: timed("commit", (r) => app.commit(r)),
    query: timed(
      "query",
      (r) => app.query(r),
      (request, response, seconds) => {
        for (const o of queries) o.query?.(request, response, seconds);
      },
    ),
  };
  if (app.extendVote !== undefined) observed.extendVote = timed("extend_vote", app.extendVote.bind(app));
  if (app.verifyVoteExtension !== undefined) {
    observed.verifyVoteExtension = timed("verify_vote_extension", app.verifyVoteExtension.bind(app));
  }
  if (app.precheckTx !== undefined) {
    const precheck = app.precheckTx.bind(app);
    observed.precheckTx = (tx) => {
      const refused = precheck(tx);
      if (refused !== undefined) for (const o of checks) o.checkTx?.(refused, false);
      return refused;
    };
  }
  if (app.prepareCheckTx !== undefined) observed.prepareCheckTx = app.prepareCheckTx.bind(app);
  return observed;
}
