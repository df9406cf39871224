// The ABCI 2.0 socket layer: the server a real CometBFT v0.38 drives, and a small client.

export { encodeUvarint, readUvarint, UvarintError } from "../bytes/varint.ts";
export { AbciClient, type AbciRequestInit, type AbciResponseOf } from "./client.ts";
export { type AbciMethod, INTERNAL_ERROR } from "./dispatch.ts";
export { AbciClientError, AbciExceptionError, AbciFrameError, AbciServerError } from "./errors.ts";
export { DEFAULT_MAX_FRAME_BYTES, encodeFrame, FrameDecoder, type FrameDecoderResult } from "./framing.ts";
export { type AbciLogger, silentAbciLogger } from "./logger.ts";
export { AbciServer, type AbciServerExit, type AbciServerOptions } from "./server.ts";
export type { AbciSnapshotHandler } from "./snapshot-handler.ts";
