// One accepted WebSocket connection (after the handshake): reassembles fragmented messages up to a size limit,
// answers pings, pings the client as CometBFT does (every 27 s; a client silent for 30 s is dropped), closes with
// the right code on a protocol error, and frees itself as soon as the client closes (FIN or error).
//
// Its unread output is bounded. Requests are handled one at a time, and the next one is read only while the bytes
// written but not yet taken by the kernel are under `maxPendingBytes` (and, when the server's total is over its
// budget, only once this connection's output has drained): the socket is paused meanwhile, so a client that sends
// requests and never reads its answers stops being read rather than being answered into memory. A reply is always
// written whole, so a connection holds at most the bound plus one reply. Events cannot wait: `offer` refuses a
// message that would take the output over the bound, and the owner then closes the connection.
import type { Duplex } from "node:stream";
import {
  CloseCode,
  closeCodeOf,
  closePayload,
  FrameParser,
  frameHeader,
  Opcode,
  WsProtocolError,
} from "./ws-frames.ts";
import type { WsOutputBudget } from "./ws-output-budget.ts";

/** Limits and timings of a connection. */
export interface WsConnectionOptions {
  /** Largest message (after reassembly) accepted from the client; CometBFT's default read limit is 1 MB. */
  maxMessageBytes: number;
  /** Unread output over which requests wait and events are refused. */
  maxPendingBytes: number;
  /** The server's total of unread output, shared by its connections. */
  budget: WsOutputBudget;
  /** How often the server pings (CometBFT: 27 s). */
  pingPeriodMs?: number;
  /** Silence after which the client counts as gone (CometBFT: 30 s). */
  readWaitMs?: number;
}

/** How long a closing connection waits for the client to answer the close frame before dropping it. */
const CLOSE_GRACE_MS = 1000;

/** A live connection. */
export class WsConnection {
  private readonly socket: Duplex;
  private readonly parser: FrameParser;
  private readonly options: WsConnectionOptions;
  private fragments: Buffer[] = [];
  private fragmentsSize = 0;
  private fragmentOpcode = 0;
  private closed = false;
  private lastRead = Date.now();
  private readonly timer: NodeJS.Timeout;
  private readonly closeListeners: (() => void)[] = [];
  /** Complete messages not yet handled (at most one socket chunk's worth: reading pauses while any wait). */
  private readonly inbox: string[] = [];
  private handling = false;
  private paused = false;
  private stalled = false;
  /** Bytes written whose write has not completed; counted in the shared budget until then or until closed. */
  private outstanding = 0;
  /** The most `outstanding` has been since the last {@link takePeak}. */
  private peak = 0;
  private flushWaiters: (() => void)[] = [];
  /** Handles each complete text (or binary, read as UTF-8) message; the next waits for it to settle. */
  onMessage: (text: string) => Promise<void> | void = () => {};

  constructor(socket: Duplex, options: WsConnectionOptions, head?: Buffer) {
    this.socket = socket;
    this.options = options;
    this.parser = new FrameParser(options.maxMessageBytes);
    const pingPeriod = options.pingPeriodMs ?? 27_000;
    const readWait = options.readWaitMs ?? 30_000;
    let outstandingAtTick = 0;
    this.timer = setInterval(() => {
      // While reading is paused for unread output, output that drains counts as the client being alive.
      if (this.paused && this.outstanding < outstandingAtTick) this.lastRead = Date.now();
      outstandingAtTick = this.outstanding;
      if (Date.now() - this.lastRead > readWait) this.destroy();
      else this.writeFrame(Opcode.ping, []);
    }, pingPeriod);
    this.timer.unref();
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    // The HTTP server keeps sockets half-open: a client's FIN would otherwise leave this one (and its slot under
    // rpc.max_open_connections) held until the ping timer noticed.
    socket.on("end", () => this.destroy());
    socket.on("error", () => this.destroy());
    socket.on("close", () => this.destroy());
    // Bytes that came with the handshake (a client may send its first frame at once): read after the owner has set
    // `onMessage`, which it can only do once this constructor has returned.
    if (head !== undefined && head.length > 0) process.nextTick(() => this.receive(head));
  }

  /** True once the connection is closing or closed. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Bytes written to the socket but not yet taken by the kernel (a client that does not read makes this grow). */
  get pendingBytes(): number {
    return Math.max(this.outstanding, this.socket.writableLength);
  }

  /** True while the next request waits for this connection's unread output to drain (reading is paused). */
  get waitingForOutput(): boolean {
    return this.stalled;
  }

  /** The most unread output this connection held at once since the last call (what tests check the bound against). */
  takePeak(): number {
    const peak = this.peak;
    this.peak = this.outstanding;
    return peak;
  }

  /** Calls `fn` once when the connection ends, for whatever reason. */
  onClose(fn: () => void): void {
    if (this.closed) fn();
    else this.closeListeners.push(fn);
  }

  /** Sends one text message (a reply: always written; the next request waits instead); ignored once closed. */
  sendText(text: string): void {
    this.writeFrame(Opcode.text, [Buffer.from(text, "utf8")]);
  }

  /**
   * Sends one text message made of `parts` (shared buffers are written, not copied) unless it would take the unread
   * output over the bound; a message larger than the bound still goes to a connection whose output is empty.
   * Returns false, writing nothing, when refused or closed.
   */
  offer(parts: readonly Buffer[]): boolean {
    if (this.closed) return false;
    let size = 0;
    for (const p of parts) size += p.length;
    if (this.outstanding > 0 && this.outstanding + size > this.options.maxPendingBytes) return false;
    this.writeFrame(Opcode.text, parts);
    return true;
  }

  /** Sends a close frame with `code` and ends the connection. */
  close(code: number = CloseCode.normal, reason = ""): void {
    if (this.closed) return;
    this.writeFrame(Opcode.close, [closePayload(code, reason)]);
    this.finish();
    this.socket.end();
    // A client that never answers the close frame must not keep the socket (and a closing server) open.
    setTimeout(() => this.socket.destroy(), CLOSE_GRACE_MS).unref();
  }

  private writeFrame(opcode: number, parts: readonly Buffer[]): void {
    if (this.closed || this.socket.destroyed) return;
    let length = 0;
    for (const p of parts) length += p.length;
    const header = frameHeader(opcode, length);
    const total = header.length + length;
    this.outstanding += total;
    if (this.outstanding > this.peak) this.peak = this.outstanding;
    this.options.budget.take(total);
    const done = () => this.written(total);
    this.socket.cork();
    this.socket.write(header, parts.length === 0 ? done : undefined);
    for (let i = 0; i < parts.length; i++) this.socket.write(parts[i], i === parts.length - 1 ? done : undefined);
    this.socket.uncork();
  }

  private written(bytes: number): void {
    if (this.closed) return; // finish() released everything at once
    this.outstanding -= bytes;
    this.options.budget.release(bytes);
    if (this.outstanding === 0) {
      for (const w of this.flushWaiters.splice(0)) w();
      this.updateFlow();
    }
  }

  /** Resolves once everything written so far has been taken by the kernel, or the connection closed. */
  private flushed(): Promise<void> {
    if (this.outstanding === 0 || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.flushWaiters.push(resolve));
  }

  /** Whether the next request must wait for this connection's output to drain. */
  private mustWait(): boolean {
    if (this.outstanding === 0) return false;
    const budget = this.options.budget;
    return this.outstanding >= this.options.maxPendingBytes || budget.used >= budget.limit;
  }

  /** Reads from the socket only while nothing waits to be handled and the output is within its bounds. */
  private updateFlow(): void {
    if (this.closed) return;
    const stop = this.inbox.length > 0 || this.mustWait();
    if (stop && !this.paused) {
      this.paused = true;
      this.socket.pause();
    } else if (!stop && this.paused) {
      this.paused = false;
      this.socket.resume();
    }
  }

  private async pump(): Promise<void> {
    if (this.handling) return;
    this.handling = true;
    try {
      while (!this.closed) {
        if (this.mustWait()) {
          this.stalled = true;
          await this.flushed();
          this.stalled = false;
          continue;
        }
        const text = this.inbox.shift();
        if (text === undefined) break;
        await this.onMessage(text);
      }
    } catch {
      this.close(CloseCode.internalError);
    } finally {
      this.handling = false;
      this.updateFlow();
    }
  }

  private destroy(): void {
    this.finish();
    this.socket.destroy();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    // Nothing more will be written, and what is unwritten is dropped with the socket: out of the budget now.
    this.options.budget.release(this.outstanding);
    this.outstanding = 0;
    this.inbox.length = 0;
    this.fragments = [];
    for (const w of this.flushWaiters.splice(0)) w();
    for (const fn of this.closeListeners.splice(0)) fn();
  }

  private receive(chunk: Buffer): void {
    if (this.closed) return;
    this.lastRead = Date.now();
    try {
      for (const frame of this.parser.push(chunk)) {
        this.frame(frame.fin, frame.opcode, frame.payload);
        if (this.closed) return;
      }
    } catch (error) {
      if (error instanceof WsProtocolError) this.close(error.code, error.message);
      else throw error;
      return;
    }
    this.updateFlow();
    if (this.inbox.length > 0) void this.pump();
  }

  private frame(fin: boolean, opcode: number, payload: Buffer): void {
    switch (opcode) {
      case Opcode.ping:
        // A client that does not read gets no pongs piled up (CometBFT drops pongs it cannot send, too).
        if (!this.mustWait()) this.writeFrame(Opcode.pong, [payload]);
        return;
      case Opcode.pong:
        return;
      case Opcode.close: {
        // Echo a valid code (RFC 6455 §5.5.1); an invalid one throws and is answered with 1002.
        const code = closeCodeOf(payload);
        this.close(code === 1005 ? CloseCode.normal : code);
        return;
      }
      case Opcode.continuation:
        if (this.fragments.length === 0) throw new WsProtocolError("continuation frame without a first fragment");
        this.addFragment(payload);
        break;
      default:
        if (this.fragments.length > 0) throw new WsProtocolError("new message before the last one was finished");
        this.fragmentOpcode = opcode;
        this.addFragment(payload);
    }
    if (!fin) return;
    const message = this.fragments.length === 1 ? this.fragments[0] : Buffer.concat(this.fragments);
    this.fragments = [];
    this.fragmentsSize = 0;
    if (this.fragmentOpcode === Opcode.text || this.fragmentOpcode === Opcode.binary) {
      this.inbox.push(message.toString("utf8"));
    }
  }

  private addFragment(payload: Buffer): void {
    this.fragmentsSize += payload.length;
    if (this.fragmentsSize > this.options.maxMessageBytes) {
      throw new WsProtocolError(`message larger than ${this.options.maxMessageBytes} bytes`, CloseCode.tooBig);
    }
    this.fragments.push(payload);
  }
}
