// The ABCI 2.0 socket server a real CometBFT v0.38 drives (`chaind start --abci`). CometBFT dials in with
// four connections (query, snapshot, mempool, consensus — nothing on the wire says which is which); on each
// one requests are answered strictly one at a time and in order, and every App call of every connection
// goes through one shared queue. A ResponseException is fatal by protocol (CometBFT stops itself), so it
// is sent only when the App fails for real: a halt request (the upgrade halt) or an unexpected error in a
// consensus method. Either one also ends this server, and `done` tells the process which exit code to use.
import { existsSync } from "node:fs";
import { lstat, unlink } from "node:fs/promises";
import { connect, createServer, type Server, type Socket } from "node:net";
import { dirname } from "node:path";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { type ListenAddress, parseListenAddress } from "../config/listen-address.ts";
import { type AbciApp, isHaltRequest } from "../engine/abci-app.ts";
import {
  CheckTxType,
  type Request,
  RequestSchema,
  type Response,
  type ResponseCheckTx,
  ResponseSchema,
} from "../gen/tendermint/abci/types_pb.js";
import { type AbciMethod, answerRequest, connectionKindOf, exceptionResponse } from "./dispatch.ts";
import { AbciServerError } from "./errors.ts";
import { DEFAULT_MAX_FRAME_BYTES, encodeFrame, FrameDecoder } from "./framing.ts";
import { type AbciLogger, silentAbciLogger } from "./logger.ts";
import { SerialQueue } from "./serial-queue.ts";
import type { AbciSnapshotHandler } from "./snapshot-handler.ts";

/** Options of {@link AbciServer.listen}. */
export interface AbciServerOptions {
  /** The application; the same object the embedded engine would drive. */
  app: AbciApp;
  /**
   * Where to listen: `tcp://host:port` (port 0 picks a free one), `unix:///path/to.sock`, or a bare
   * `host:port` (tcp), as config.toml's `proxy_app` is written.
   */
  address: string | ListenAddress;
  logger?: AbciLogger;
  /** Frames announcing more bytes than this close their connection (default 256 MiB). */
  maxFrameBytes?: number;
  /** Serves state sync (ListSnapshots, LoadSnapshotChunk, OfferSnapshot, ApplySnapshotChunk); see src/snapshots. */
  snapshots?: AbciSnapshotHandler;
}

/** Why the server stopped, and the exit status the process should end with. */
export type AbciServerExit =
  /** {@link AbciServer.close} was called. */
  | { reason: "closed"; exitCode: 0 }
  /** The App threw a halt request (an error with a numeric `exitCode`), e.g. the upgrade halt at height H. */
  | { reason: "app-halt"; exitCode: number; method: AbciMethod; height: bigint | undefined; error: Error }
  /** The App threw an unexpected error from Info or a consensus method. */
  | { reason: "app-failure"; exitCode: 1; method: AbciMethod; error: Error };

/** What started for a request when it arrived (see AbciServer.startEarly). */
interface EarlyWork {
  /** The decoded request (undefined when it does not decode: its turn reports that). */
  request?: Request;
  /** The precheck's answer to a CheckTx it refused: sent in the request's turn without calling CheckTx. */
  refused?: ResponseCheckTx;
  /** The App's preparation of a CheckTx, awaited in the request's turn before the App's lock is taken. */
  prepared?: Promise<void>;
}

interface Connection {
  id: number;
  socket: Socket;
  decoder: FrameDecoder;
  /** Requests of this connection run one after another on this chain, so responses keep request order. */
  chain: Promise<void>;
  /** No further request of this connection is answered (malformed input, exception sent, or stopping). */
  closing: boolean;
  /** The byte stream could not be framed; nothing more is read from it. */
  unreadable: boolean;
  kind: string | undefined;
}

// How long stopping waits for closing sockets to flush before destroying them.
const FORCE_CLOSE_MS = 2000;

// Thrown into App calls still queued when the server stops: they must not touch the App any more.
class ServerStoppedError extends Error {
  override name = "ServerStoppedError";
}

/**
 * A listening ABCI server. Create it with {@link AbciServer.listen}; await {@link AbciServer.done} to learn
 * when and why it stopped.
 *
 * @example
 * const server = await AbciServer.listen({ app, address: nodeConfig.proxyApp, logger });
 * const exit = await server.done; // resolves on close(), an upgrade halt or an App failure
 * process.exitCode = exit.exitCode;
 */
export class AbciServer {
  /** Resolves once the server has stopped: every connection closed and the App no longer called. */
  readonly done: Promise<AbciServerExit>;
  private readonly app: AbciApp;
  private readonly snapshots: AbciSnapshotHandler | undefined;
  private readonly logger: AbciLogger;
  private readonly maxFrameBytes: number;
  private readonly server: Server;
  private readonly listenAddress: ListenAddress;
  private readonly appQueue = new SerialQueue();
  private readonly connections = new Set<Connection>();
  private nextConnectionId = 1;
  private boundAddress = "";
  private stopping: Promise<AbciServerExit> | undefined;
  private resolveDone!: (exit: AbciServerExit) => void;

  private constructor(options: AbciServerOptions, listenAddress: ListenAddress) {
    this.app = options.app;
    this.snapshots = options.snapshots;
    this.logger = options.logger ?? silentAbciLogger;
    this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    this.listenAddress = listenAddress;
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
    this.server = createServer((socket) => this.accept(socket));
  }

  /** Starts listening; resolves once the socket is bound. Throws {@link AbciServerError} when it cannot. */
  static async listen(options: AbciServerOptions): Promise<AbciServer> {
    const address =
      typeof options.address === "string"
        ? parseListenAddress(options.address, { schemeOptional: true })
        : options.address;
    if (address === undefined) {
      throw new AbciServerError(
        "invalid ABCI listen address",
        `expected "tcp://<host>:<port>" or "unix:///<path>", got ${JSON.stringify(options.address)}`,
      );
    }
    const server = new AbciServer(options, address);
    await server.bind();
    return server;
  }

  /** The bound address, `tcp://host:port` with the real port, or `unix:///path`. */
  get address(): string {
    return this.boundAddress;
  }

  /** How many client connections are open (CometBFT keeps four). */
  get connectionCount(): number {
    return this.connections.size;
  }

  /** Stops accepting, closes every connection after its pending responses, waits for App calls in flight. */
  close(): Promise<AbciServerExit> {
    return this.stop({ reason: "closed", exitCode: 0 });
  }

  private async bind(): Promise<void> {
    const address = this.listenAddress;
    if (address.protocol === "unix") await removeStaleUnixSocket(address.path);
    await new Promise<void>((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException) => {
        const reason =
          error.code === "EADDRINUSE"
            ? "the address is already in use"
            : address.protocol === "unix" && !existsSync(dirname(address.path))
              ? `the directory ${dirname(address.path)} does not exist`
              : error.message;
        reject(new AbciServerError(`cannot listen on ${address.address}`, reason, { cause: error }));
      };
      this.server.once("error", onError);
      const ready = () => {
        this.server.off("error", onError);
        resolve();
      };
      if (address.protocol === "unix") this.server.listen(address.path, ready);
      else this.server.listen({ host: address.host, port: address.port }, ready);
    });
    this.server.on("error", (error) => this.logger.error({ err: error }, "ABCI server error"));
    const bound = this.server.address();
    if (address.protocol === "unix" || bound === null || typeof bound === "string") {
      this.boundAddress = address.protocol === "unix" ? `unix://${address.path}` : String(bound);
    } else {
      const host = bound.family === "IPv6" ? `[${bound.address}]` : bound.address;
      this.boundAddress = `tcp://${host}:${bound.port}`;
    }
    this.logger.info({ address: this.boundAddress }, "ABCI server listening");
  }

  private accept(socket: Socket): void {
    if (this.stopping !== undefined) {
      socket.destroy();
      return;
    }
    const connection: Connection = {
      id: this.nextConnectionId++,
      socket,
      decoder: new FrameDecoder(this.maxFrameBytes),
      chain: Promise.resolve(),
      closing: false,
      unreadable: false,
      kind: undefined,
    };
    this.connections.add(connection);
    // Responses are written one by one as they are ready; Nagle would hold each small one back.
    if (this.listenAddress.protocol === "tcp") socket.setNoDelay(true);
    this.logger.info({ connection: connection.id }, "ABCI connection opened");
    socket.on("data", (chunk: Buffer) => this.receive(connection, chunk));
    socket.on("error", (error) => {
      this.logger.warn({ connection: connection.id, err: error }, "ABCI connection error");
    });
    socket.on("close", () => {
      this.connections.delete(connection);
      this.logger.info({ connection: connection.id, kind: connection.kind }, "ABCI connection closed");
    });
  }

  private receive(connection: Connection, chunk: Uint8Array): void {
    if (connection.closing || connection.unreadable) return;
    const { frames, error } = connection.decoder.push(chunk);
    for (const frame of frames) {
      const early = this.startEarly(frame);
      this.enqueue(connection, () => this.handleFrame(connection, frame, early));
    }
    if (error !== undefined) {
      this.logger.error({ connection: connection.id, err: error }, "malformed ABCI frame; closing the connection");
      connection.unreadable = true;
      connection.socket.pause();
      // Earlier requests are still answered, in order, before the connection ends.
      this.enqueue(connection, async () => this.endConnection(connection));
    }
  }

  private enqueue(connection: Connection, task: () => Promise<void>): void {
    connection.chain = connection.chain.then(task).catch((error: unknown) => {
      // handleFrame catches everything it expects; reaching here is a bug, and leaving a request
      // unanswered would hang CometBFT, so the connection is closed instead.
      this.logger.error({ connection: connection.id, err: error }, "internal error in the ABCI server");
      this.endConnection(connection);
    });
  }

  /**
   * What can start for a request as soon as it arrives, before its turn on the connection: for CheckTx(NEW) the
   * App's state-free precheck (garbage is answered without the App's lock, so a flood of it never delays a
   * block) and else its preparation (signature checks on a worker thread), which the request awaits in its
   * turn without holding the App's lock. CometBFT pipelines CheckTx on the mempool connection, so several
   * txs are verified while earlier ones run; answers keep the order of requests.
   */
  private startEarly(frame: Uint8Array): EarlyWork {
    let request: Request;
    try {
      request = fromBinary(RequestSchema, frame);
    } catch {
      return {}; // answered (and logged) in its turn
    }
    const r = request.value;
    if (r.case !== "checkTx" || r.value.type !== CheckTxType.NEW || this.stopping !== undefined) return { request };
    try {
      const refused = this.app.precheckTx?.(r.value.tx);
      if (refused !== undefined) return { request, refused };
      return { request, prepared: this.app.prepareCheckTx?.(r.value.tx)?.catch(() => undefined) };
    } catch {
      return { request }; // CheckTx in its turn says what is wrong
    }
  }

  private async handleFrame(connection: Connection, frame: Uint8Array, early: EarlyWork): Promise<void> {
    if (connection.closing) return;
    if (early.refused !== undefined) {
      connection.kind ??= "mempool";
      this.write(connection, create(ResponseSchema, { value: { case: "checkTx", value: early.refused } }));
      return;
    }
    await early.prepared;
    if (connection.closing) return;
    let request: Request;
    try {
      request = early.request ?? fromBinary(RequestSchema, frame);
    } catch (error) {
      this.logger.error(
        { connection: connection.id, err: error, bytes: frame.length },
        "undecodable ABCI request; closing the connection",
      );
      this.endConnection(connection);
      return;
    }
    const method = request.value.case;
    if (method === undefined) {
      this.logger.error(
        { connection: connection.id, bytes: frame.length },
        "ABCI request of an unknown type; closing the connection",
      );
      this.write(connection, exceptionResponse("unknown request type: expected one of the ABCI 2.0 requests"));
      this.endConnection(connection);
      return;
    }
    connection.kind ??= connectionKindOf(method);
    if (request.value.case === "info") {
      const { version, abciVersion } = request.value.value;
      this.logger.info({ connection: connection.id, cometbft: version, abci: abciVersion }, "ABCI Info");
    }
    let response: Response;
    try {
      response = await answerRequest(request, {
        app: this.app,
        exclusive: (call) => this.runApp(call),
        logger: this.logger,
        snapshots: this.snapshots,
      });
    } catch (error) {
      if (error instanceof ServerStoppedError) return;
      this.fail(connection, request, method, error);
      return;
    }
    this.write(connection, response);
  }

  // An App error in Info or a consensus method: answer with an exception (CometBFT stops itself on it), close the
  // connection, and stop the server so the process can exit with the right status. Nothing is committed:
  // the App threw before Commit, and no further App call is made.
  private fail(connection: Connection, request: Request, method: AbciMethod, thrown: unknown): void {
    const error = thrown instanceof Error ? thrown : new Error(String(thrown));
    this.write(connection, exceptionResponse(error));
    this.endConnection(connection);
    if (isHaltRequest(error)) {
      const height = request.value.case === "finalizeBlock" ? request.value.value.height : undefined;
      this.logger.error(
        { method, height: height?.toString(), exitCode: error.exitCode, err: error },
        "the application halted; nothing of this height is committed, stopping",
      );
      void this.stop({ reason: "app-halt", exitCode: error.exitCode, method, height, error });
    } else {
      this.logger.error({ method, err: error }, "the application failed; stopping");
      void this.stop({ reason: "app-failure", exitCode: 1, method, error });
    }
  }

  private runApp<T>(call: () => Promise<T>): Promise<T> {
    return this.appQueue.run(async () => {
      if (this.stopping !== undefined) throw new ServerStoppedError("the ABCI server is stopping");
      return call();
    });
  }

  private write(connection: Connection, response: Response): void {
    if (connection.socket.destroyed || connection.socket.writableEnded) return;
    connection.socket.write(encodeFrame(toBinary(ResponseSchema, response)));
  }

  private endConnection(connection: Connection): void {
    connection.closing = true;
    const socket = connection.socket;
    if (socket.destroyed) return;
    // Pending writes go out first; then the socket is destroyed without waiting for the peer's FIN.
    socket.end(() => socket.destroy());
  }

  private stop(exit: AbciServerExit): Promise<AbciServerExit> {
    if (this.stopping !== undefined) return this.stopping;
    this.stopping = (async () => {
      const listenerClosed = new Promise<void>((resolve) => this.server.close(() => resolve()));
      // Requests still queued are dropped (their App calls are refused): CometBFT treats the closed
      // connection as fatal either way, and on restart its handshake redoes whatever was not committed.
      for (const connection of this.connections) this.endConnection(connection);
      // A peer that stops reading would keep its socket's final write (and so the close) pending forever.
      const force = setTimeout(() => {
        for (const connection of this.connections) connection.socket.destroy();
      }, FORCE_CLOSE_MS);
      force.unref();
      await Promise.all([...this.connections].map((c) => c.chain));
      // Wait for an App call in flight (queued ones are refused by runApp).
      await this.appQueue.run(async () => undefined);
      await listenerClosed;
      clearTimeout(force);
      this.resolveDone(exit);
      return exit;
    })();
    return this.stopping;
  }
}

// A unix socket file left by a process killed with SIGKILL blocks listen(). Remove it, but only when it is a
// socket nobody answers on: a live server or a regular file in the way is an operator error to report.
async function removeStaleUnixSocket(path: string): Promise<void> {
  let isSocket: boolean;
  try {
    isSocket = (await lstat(path)).isSocket();
  } catch {
    return;
  }
  if (!isSocket) {
    throw new AbciServerError(`cannot listen on unix://${path}`, "the path exists and is not a socket");
  }
  const alive = await new Promise<boolean>((resolve) => {
    const probe = connect(path);
    probe.once("connect", () => {
      probe.destroy();
      resolve(true);
    });
    probe.once("error", () => resolve(false));
  });
  if (alive) throw new AbciServerError(`cannot listen on unix://${path}`, "another process is serving this socket");
  await unlink(path);
}
