// Errors of the ABCI socket layer. Each has a short message; `details` carries what was wrong and what was
// expected, and `cause` chains the underlying error.
import { UserError } from "../errors/user-error.ts";

/** A frame on the wire that cannot be a valid ABCI message: its connection is closed. */
export class AbciFrameError extends Error {
  override name = "AbciFrameError";
  readonly details: string;
  constructor(message: string, details: string, options?: { cause?: unknown }) {
    super(`${message}: ${details}`, options);
    this.details = details;
  }
}

/** The ABCI server could not start (bad address, port in use, live unix socket in the way). */
export class AbciServerError extends UserError {
  override name = "AbciServerError";
  readonly details: string;
  constructor(message: string, details: string, options?: { cause?: unknown }) {
    super(`${message}: ${details}`, options);
    this.details = details;
  }
}

/** A client-side failure: cannot connect, connection lost with requests pending, unexpected response. */
export class AbciClientError extends Error {
  override name = "AbciClientError";
  readonly details: string;
  constructor(message: string, details: string, options?: { cause?: unknown }) {
    super(`${message}: ${details}`, options);
    this.details = details;
  }
}

/** The server answered a request with a ResponseException (fatal by protocol: it closes the connection). */
export class AbciExceptionError extends Error {
  override name = "AbciExceptionError";
  /** The exception text the server sent. */
  readonly exception: string;
  /** The request method that got the exception. */
  readonly method: string;
  constructor(method: string, exception: string) {
    super(`the ABCI server answered ${method} with an exception: ${exception}`);
    this.method = method;
    this.exception = exception;
  }
}
