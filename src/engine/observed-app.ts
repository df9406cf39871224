// An AbciApp that reports each call to observers (metrics) and otherwise forwards it unchanged. The node wraps
// the App in it only when some metrics are on, so a node without metrics runs the App itself: no wrapper, no cost.
// Observers get plain values (a method name, seconds, the response) and must be cheap: CheckTx runs per tx.
import { performance } from "node:perf_hooks";
import type {
  RequestCheckTx,
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
  | "query";

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
  const timed = async <T>(method: AbciMethodName, run: () => Promise<T>): Promise<{ value: T; seconds: number }> => {
    const start = performance.now();
    try {
      const value = await run();
      const seconds = (performance.now() - start) / 1000;
      for (const o of timers) o.timing?.(method, seconds);
      return { value, seconds };
    } catch (error) {
      const seconds = (performance.now() - start) / 1000;
      for (const o of timers) o.timing?.(method, seconds);
      for (const o of observers) o.failed?.(method, error);
      throw error;
    }
  };
  const observed: AbciApp = {
    info: async (req) => (await timed("info", () => app.info(req))).value,
    initChain: async (req) => (await timed("init_chain", () => app.initChain(req))).value,
    checkTx: async (req: RequestCheckTx, options) => {
      const { value } = await timed("check_tx", () => app.checkTx(req, options));
      const recheck = req.type === CheckTxType.RECHECK;
      for (const o of checks) o.checkTx?.(value, recheck);
      return value;
    },
    prepareProposal: async (req) => (await timed("prepare_proposal", () => app.prepareProposal(req))).value,
    processProposal: async (req) => (await timed("process_proposal", () => app.processProposal(req))).value,
    finalizeBlock: async (req) => {
      const { value } = await timed("finalize_block", () => app.finalizeBlock(req));
      for (const o of finals) o.finalizeBlock?.(value, req);
      return value;
    },
    commit: async (req) => (await timed("commit", () => app.commit(req))).value,
    query: async (req) => {
      const { value, seconds } = await timed("query", () => app.query(req));
      for (const o of queries) o.query?.(req, value, seconds);
      return value;
    },
  };
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
