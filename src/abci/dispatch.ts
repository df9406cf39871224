// Turns one decoded ABCI request into its response by calling the App. The methods the App interface
// does not carry are answered here: Echo and Flush (transport), vote extensions of an App without them (an empty
// extension, and only empty ones accepted), and the four state-sync methods: served by the snapshot handler
// (src/snapshots) when the node has one, answered as a node without snapshots when it has none.
import { create } from "@bufbuild/protobuf";
import type { AbciApp } from "../engine/abci-app.ts";
import {
  type Request,
  type Response,
  ResponseApplySnapshotChunk_Result,
  ResponseApplySnapshotChunkSchema,
  ResponseCheckTxSchema,
  ResponseEchoSchema,
  ResponseExceptionSchema,
  ResponseExtendVoteSchema,
  ResponseFlushSchema,
  ResponseListSnapshotsSchema,
  ResponseLoadSnapshotChunkSchema,
  ResponseOfferSnapshot_Result,
  ResponseOfferSnapshotSchema,
  ResponseQuerySchema,
  ResponseSchema,
  ResponseVerifyVoteExtension_VerifyStatus,
  ResponseVerifyVoteExtensionSchema,
} from "../gen/tendermint/abci/types_pb.js";
import type { AbciLogger } from "./logger.ts";
import type { AbciSnapshotHandler } from "./snapshot-handler.ts";

/** The request methods (the `Request.value` oneof cases). */
export type AbciMethod = NonNullable<Request["value"]["case"]>;

/**
 * The code and codespace an in-band answer carries when the App threw from CheckTx or Query. Upstream's
 * BaseApp recovers from panics in these two read-only paths into an error result instead of stopping the
 * node; a bug in a query handler must not take a validator down.
 */
export const INTERNAL_ERROR = { codespace: "undefined", code: 1 } as const;

/** Which of CometBFT's four connections carries a method (for logs: nothing on the wire says which is which). */
export function connectionKindOf(method: AbciMethod): "query" | "mempool" | "snapshot" | "consensus" | undefined {
  switch (method) {
    case "echo":
    case "flush":
      return undefined;
    case "info":
    case "query":
      return "query";
    case "checkTx":
      return "mempool";
    case "listSnapshots":
    case "offerSnapshot":
    case "loadSnapshotChunk":
    case "applySnapshotChunk":
      return "snapshot";
    default:
      return "consensus";
  }
}

/** How {@link answerRequest} reaches the App. */
export interface AnswerContext {
  app: AbciApp;
  /** Runs an App call; the server passes its cross-connection queue so calls never interleave. */
  exclusive: <T>(call: () => Promise<T>) => Promise<T>;
  logger: AbciLogger;
  /** State sync; without it the snapshot methods answer as a node without snapshots. */
  snapshots?: AbciSnapshotHandler;
}

/**
 * The response to `request`. Errors the App throws from consensus methods and Info propagate (the caller
 * answers them with an exception: fatal by protocol); errors from CheckTx and Query become in-band results
 * with {@link INTERNAL_ERROR}. A request with no method set throws a TypeError.
 */
export async function answerRequest(request: Request, context: AnswerContext): Promise<Response> {
  const { app, exclusive } = context;
  const r = request.value;
  switch (r.case) {
    case "echo":
      return respond({ case: "echo", value: create(ResponseEchoSchema, { message: r.value.message }) });
    case "flush":
      return respond({ case: "flush", value: create(ResponseFlushSchema) });
    case "info":
      return respond({ case: "info", value: await exclusive(() => app.info(r.value)) });
    case "initChain":
      return respond({ case: "initChain", value: await exclusive(() => app.initChain(r.value)) });
    case "prepareProposal":
      return respond({ case: "prepareProposal", value: await exclusive(() => app.prepareProposal(r.value)) });
    case "processProposal":
      return respond({ case: "processProposal", value: await exclusive(() => app.processProposal(r.value)) });
    case "finalizeBlock":
      return respond({ case: "finalizeBlock", value: await exclusive(() => app.finalizeBlock(r.value)) });
    case "commit":
      return respond({ case: "commit", value: await exclusive(() => app.commit(r.value)) });
    case "checkTx":
      try {
        return respond({ case: "checkTx", value: await exclusive(() => app.checkTx(r.value)) });
      } catch (error) {
        context.logger.error({ err: error }, "the application threw in CheckTx; answering with an error result");
        return respond({
          case: "checkTx",
          value: create(ResponseCheckTxSchema, { ...INTERNAL_ERROR, log: `internal error: ${messageOf(error)}` }),
        });
      }
    case "query":
      try {
        return respond({ case: "query", value: await exclusive(() => app.query(r.value)) });
      } catch (error) {
        context.logger.error(
          { err: error, path: r.value.path },
          "the application threw in Query; answering with an error result",
        );
        return respond({
          case: "query",
          value: create(ResponseQuerySchema, { ...INTERNAL_ERROR, log: `internal error: ${messageOf(error)}` }),
        });
      }
    case "extendVote": {
      const extend = app.extendVote?.bind(app);
      if (extend !== undefined) return respond({ case: "extendVote", value: await exclusive(() => extend(r.value)) });
      // An App without vote extensions: an empty extension is the only valid one.
      return respond({ case: "extendVote", value: create(ResponseExtendVoteSchema) });
    }
    case "verifyVoteExtension": {
      const verify = app.verifyVoteExtension?.bind(app);
      if (verify !== undefined) {
        return respond({ case: "verifyVoteExtension", value: await exclusive(() => verify(r.value)) });
      }
      const status =
        r.value.voteExtension.length === 0
          ? ResponseVerifyVoteExtension_VerifyStatus.ACCEPT
          : ResponseVerifyVoteExtension_VerifyStatus.REJECT;
      return respond({ case: "verifyVoteExtension", value: create(ResponseVerifyVoteExtensionSchema, { status }) });
    }
    // With a snapshot handler (src/snapshots) the four methods are served. Offer and Apply change the App's
    // state, so they run in the App's queue; List and Load read files only.
    case "listSnapshots":
    case "loadSnapshotChunk":
    case "offerSnapshot":
    case "applySnapshotChunk":
      if (context.snapshots !== undefined) return answerSnapshots(r, context.snapshots, exclusive);
      return answerWithoutSnapshots(r.case);
    default:
      throw new TypeError("the request sets no method; expected one of the ABCI 2.0 request types");
  }
}

async function answerSnapshots(
  r: Extract<
    Request["value"],
    { case: "listSnapshots" | "loadSnapshotChunk" | "offerSnapshot" | "applySnapshotChunk" }
  >,
  handler: AbciSnapshotHandler,
  exclusive: AnswerContext["exclusive"],
): Promise<Response> {
  switch (r.case) {
    case "listSnapshots":
      return respond({ case: "listSnapshots", value: await handler.listSnapshots(r.value) });
    case "loadSnapshotChunk":
      return respond({ case: "loadSnapshotChunk", value: await handler.loadSnapshotChunk(r.value) });
    case "offerSnapshot":
      return respond({ case: "offerSnapshot", value: await exclusive(() => handler.offerSnapshot(r.value)) });
    case "applySnapshotChunk":
      return respond({ case: "applySnapshotChunk", value: await exclusive(() => handler.applySnapshotChunk(r.value)) });
  }
}

// Without a handler: no snapshots to offer, and any offered snapshot aborts state sync (as the Cosmos SDK does
// without a snapshot manager) so the operator sees why rather than a silent retry loop.
function answerWithoutSnapshots(
  method: "listSnapshots" | "loadSnapshotChunk" | "offerSnapshot" | "applySnapshotChunk",
): Response {
  switch (method) {
    case "listSnapshots":
      return respond({ case: "listSnapshots", value: create(ResponseListSnapshotsSchema) });
    case "loadSnapshotChunk":
      return respond({ case: "loadSnapshotChunk", value: create(ResponseLoadSnapshotChunkSchema) });
    case "offerSnapshot":
      return respond({
        case: "offerSnapshot",
        value: create(ResponseOfferSnapshotSchema, { result: ResponseOfferSnapshot_Result.ABORT }),
      });
    case "applySnapshotChunk":
      return respond({
        case: "applySnapshotChunk",
        value: create(ResponseApplySnapshotChunkSchema, { result: ResponseApplySnapshotChunk_Result.ABORT }),
      });
  }
}

/** The ResponseException CometBFT expects before the connection closes. */
export function exceptionResponse(error: unknown): Response {
  return respond({ case: "exception", value: create(ResponseExceptionSchema, { error: messageOf(error) }) });
}

function respond(value: Response["value"]): Response {
  return create(ResponseSchema, { value });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
