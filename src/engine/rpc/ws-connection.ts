// One accepted WebSocket connection (after the handshake): reassembles fragmented messages up to a size limit,
// answers pings, pings the client as CometBFT does (every 27 s; a client silent for 30 s is dropped) and closes
// with the right code on a protocol error. Text messages go to `onMessage`; the owner sends with `sendText`.
import type { Duplex } from "node:stream";
import { CloseCode, closePayload, encodeFrame, FrameParser, Opcode, WsProtocolError } from "./ws-frames.ts";

/** Limits and timings of a connection. */
export interface WsConnectionOptions {
  /** Largest message (after reassembly) accepted from the client; CometBFT's default read limit is 1 MB. */
  maxMessageBytes: number;
  /** How often the server pings (CometBFT: 27 s). */
  pingPeriodMs?: number;
  /** Silence after which the client counts as gone (CometBFT: 30 s). */
  readWaitMs?: number;
}

/** A live connection. */
export class WsConnection {
  private readonly socket: Duplex;
  private readonly parser: FrameParser;
  private readonly maxMessageBytes: number;
  private fragments: Buffer[] = [];
  private fragmentsSize = 0;
  private fragmentOpcode = 0;
  private closed = false;
  private lastRead = Date.now();
  private readonly timer: NodeJS.Timeout;
  private readonly closeListeners: (() => void)[] = [];
  /** Receives each complete text (or binary, read as UTF-8) message. */
  onMessage: (text: string) => void = () => {};

  constructor(socket: Duplex, options: WsConnectionOptions, head?: Buffer) {
    this.socket = socket;
    this.maxMessageBytes = options.maxMessageBytes;
    this.parser = new FrameParser(options.maxMessageBytes);
    const pingPeriod = options.pingPeriodMs ?? 27_000;
    const readWait = options.readWaitMs ?? 30_000;
    this.timer = setInterval(() => {
      if (Date.now() - this.lastRead > readWait) this.destroy();
      else this.write(Opcode.ping, Buffer.alloc(0));
    }, pingPeriod);
    this.timer.unref();
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    socket.on("error", () => this.destroy());
    socket.on("close", () => this.destroy());
    if (head !== undefined && head.length > 0) this.receive(head);
  }

  /** True once the connection is closing or closed. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Bytes written but not yet taken by the kernel (a client that does not read makes this grow). */
  get pendingBytes(): number {
    return this.socket.writableLength;
  }

  /** Calls `fn` once when the connection ends, for whatever reason. */
  onClose(fn: () => void): void {
    if (this.closed) fn();
    else this.closeListeners.push(fn);
  }

  /** Sends one text message; ignored once closed. */
  sendText(text: string): void {
    this.write(Opcode.text, Buffer.from(text, "utf8"));
  }

  /** Sends a close frame with `code` and ends the connection. */
  close(code: number = CloseCode.normal, reason = ""): void {
    if (this.closed) return;
    this.write(Opcode.close, closePayload(code, reason));
    this.finish();
    this.socket.end();
    // A client that never answers the close frame must not keep the socket (and a closing server) open.
    setTimeout(() => this.socket.destroy(), 1000);
  }

  private write(opcode: number, payload: Buffer): void {
    if (this.closed || this.socket.destroyed) return;
    this.socket.write(encodeFrame(opcode, payload));
  }

  private destroy(): void {
    this.finish();
    this.socket.destroy();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
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
    }
  }

  private frame(fin: boolean, opcode: number, payload: Buffer): void {
    switch (opcode) {
      case Opcode.ping:
        this.write(Opcode.pong, payload);
        return;
      case Opcode.pong:
        return;
      case Opcode.close: {
        // Echo the client's code (RFC 6455 §5.5.1), then end.
        const code = payload.length >= 2 ? payload.readUInt16BE(0) : CloseCode.normal;
        this.close(code === 1005 || code === 1006 ? CloseCode.normal : code);
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
    const message = Buffer.concat(this.fragments);
    this.fragments = [];
    this.fragmentsSize = 0;
    if (this.fragmentOpcode === Opcode.text || this.fragmentOpcode === Opcode.binary) {
      this.onMessage(message.toString("utf8"));
    }
  }

  private addFragment(payload: Buffer): void {
    this.fragmentsSize += payload.length;
    if (this.fragmentsSize > this.maxMessageBytes) {
      throw new WsProtocolError(`message larger than ${this.maxMessageBytes} bytes`, CloseCode.tooBig);
    }
    this.fragments.push(payload);
  }
}
