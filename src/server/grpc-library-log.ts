// @grpc/grpc-js prints its own error lines on stderr (console.error), e.g. `E No address added out of total 1
// resolved` just before the bind error that says the same. A node's stderr holds one line per mistake
// (docs/CONTRACT.md §12), so the library's lines go to the node's logger instead, at debug, where
// `--log_level debug` (with GRPC_VERBOSITY/GRPC_TRACE for more) still shows them.
import { format } from "node:util";
import { setLogger } from "@grpc/grpc-js";
import type { Logger } from "pino";

/** Sends every line @grpc/grpc-js logs to `logger` at debug (dropped without a logger). Process-wide. */
export function routeGrpcLibraryLog(logger: Logger | undefined): void {
  const write = (...args: unknown[]) => logger?.debug({ module: "grpc-js" }, format(...args));
  setLogger({ error: write, info: write, debug: write });
}
