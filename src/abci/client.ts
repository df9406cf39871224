// A small ABCI socket client: what CometBFT does on one of its four connections, for tests and debugging.
// Requests may be pipelined; responses are matched to requests strictly in order, as CometBFT matches them.
import { connect, type Socket } from "node:net";
import { create, fromBinary, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import { type ListenAddress, parseListenAddress } from "../config/listen-address.ts";
import { type Request, RequestSchema, type Response, ResponseSchema } from "../gen/tendermint/abci/types_pb.js";
import type { AbciMethod } from "./dispatch.ts";
import { AbciClientError, AbciExceptionError } from "./errors.ts";
import { encodeFrame, FrameDecoder } from "./framing.ts";

type RequestInit = Exclude<MessageInitShape<typeof RequestSchema>, Request>;

/** The init shape of a method's request message (every field optional), e.g. `{ message: "hi" }` for echo. */
export type AbciRequestInit<M extends AbciMethod> = Extract<NonNullable<RequestInit["value"]>, { case: M }>["value"];

/** The response message of a method, e.g. `ResponseEcho` for echo. */
export type AbciResponseOf<M extends AbciMethod> = Extract<Response["value"], { case: M }>["value"];

interface Pending {
  method: string;
  resolve: (response: Response) => void;
  reject: (error: Error) => void;
}

/**
 * One ABCI connection.
 *
 * @example
 * const client = await AbciClient.connect("tcp://127.0.0.1:26658");
 * const info = await client.call("info", { version: "0.38.25" });
 * await client.close();
 */
export class AbciClient {
  /** Resolves when the connection has closed, for whatever reason. */
  readonly closed: Promise<void>;
  private readonly socket: Socket;
  private readonly decoder = new FrameDecoder();
  private readonly pending: Pending[] = [];
  private failure: Error | undefined;

  private constructor(socket: Socket) {
    this.socket = socket;
    this.closed = new Promise((resolve) => socket.once("close", () => resolve()));
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    socket.on("error", (error) =>
      this.failAll(new AbciClientError("ABCI connection error", error.message, { cause: error })),
    );
    socket.on("close", () =>
      this.failAll(new AbciClientError("ABCI connection closed", "the server closed the connection before answering")),
    );
  }

  /** Connects to `tcp://host:port`, `unix:///path` or a bare `host:port`. */
  static async connect(address: string | ListenAddress): Promise<AbciClient> {
    const parsed = typeof address === "string" ? parseListenAddress(address, { schemeOptional: true }) : address;
    if (parsed === undefined) {
      throw new AbciClientError(
        "invalid ABCI address",
        `expected "tcp://<host>:<port>" or "unix:///<path>", got ${JSON.stringify(address)}`,
      );
    }
    const socket =
      parsed.protocol === "unix" ? connect(parsed.path) : connect({ host: parsed.host, port: parsed.port });
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", () => resolve());
      socket.once("error", (error) =>
        reject(new AbciClientError(`cannot connect to ${parsed.address}`, error.message, { cause: error })),
      );
    });
    if (parsed.protocol === "tcp") socket.setNoDelay(true);
    return new AbciClient(socket);
  }

  /** Requests sent and not answered yet. */
  get pendingCount(): number {
    return this.pending.length;
  }

  /**
   * Sends one request and resolves with its response message. An exception answer rejects with
   * {@link AbciExceptionError}; a response of another method rejects with {@link AbciClientError}.
   */
  async call<M extends AbciMethod>(
    method: M,
    value: AbciRequestInit<M> = {} as AbciRequestInit<M>,
  ): Promise<AbciResponseOf<M>> {
    const init = { value: { case: method, value } } as RequestInit;
    const response = await this.request(create(RequestSchema, init));
    if (response.value.case === "exception") throw new AbciExceptionError(method, response.value.value.error);
    if (response.value.case !== method) {
      const error = new AbciClientError(
        "unexpected ABCI response",
        `expected a ${method} response, got ${response.value.case ?? "an empty response"}`,
      );
      this.socket.destroy();
      throw error;
    }
    return response.value.value as AbciResponseOf<M>;
  }

  /** Sends a whole Request envelope and resolves with the raw Response envelope (exceptions included). */
  request(request: Request): Promise<Response> {
    const promise = this.expectResponse(request.value.case ?? "(none)");
    this.socket.write(encodeFrame(toBinary(RequestSchema, request)));
    return promise;
  }

  /**
   * Writes raw bytes (possibly a partial or malformed frame) and, if `expectResponses` > 0, returns promises
   * for that many responses. For tests of the server's framing.
   */
  writeRaw(bytes: Uint8Array, expectResponses = 0): Promise<Response>[] {
    const promises = Array.from({ length: expectResponses }, () => this.expectResponse("(raw)"));
    this.socket.write(bytes);
    return promises;
  }

  /** Closes the connection; pending requests reject. */
  async close(): Promise<void> {
    this.socket.end();
    this.socket.destroy();
    await this.closed;
  }

  private expectResponse(method: string): Promise<Response> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => this.pending.push({ method, resolve, reject }));
  }

  private receive(chunk: Uint8Array): void {
    const { frames, error } = this.decoder.push(chunk);
    for (const frame of frames) {
      const waiter = this.pending.shift();
      if (waiter === undefined) {
        this.failAll(new AbciClientError("unexpected ABCI response", "a response arrived with no request pending"));
        this.socket.destroy();
        return;
      }
      try {
        waiter.resolve(fromBinary(ResponseSchema, frame));
      } catch (cause) {
        waiter.reject(new AbciClientError("undecodable ABCI response", `to ${waiter.method}`, { cause }));
      }
    }
    if (error !== undefined) {
      this.failAll(error);
      this.socket.destroy();
    }
  }

  private failAll(error: Error): void {
    this.failure ??= error;
    for (const waiter of this.pending.splice(0)) waiter.reject(error);
  }
}
