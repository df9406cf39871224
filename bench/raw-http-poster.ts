// A minimal HTTP/1.1 keep-alive client for the e2e bench's senders: one connection, one request in flight, each
// request's bytes built up front. The bench measures the node, so its client should cost as little CPU as it
// can on the same 2 cores: node:http's client spends ~0.25 ms of CPU per request on header objects, events and
// streams; this one writes one buffer and scans the answer for its Content-Length. Answers must carry a
// Content-Length (the node's RPC server always sends one); anything else is an error.
import { connect, type Socket } from "node:net";

const HEADER_END = Buffer.from("\r\n\r\n");

/** POSTs JSON bodies to one URL over one keep-alive connection, one at a time. */
export class RawHttpPoster {
  private readonly socket: Socket;
  private readonly head: string;
  private buffered: Buffer = Buffer.alloc(0);
  private waiting: { resolve: (body: string) => void; reject: (err: Error) => void } | undefined;
  private failure: Error | undefined;

  private constructor(socket: Socket, url: URL) {
    this.socket = socket;
    this.head = `POST ${url.pathname || "/"} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nConnection: keep-alive\r\nContent-Length: `;
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    socket.on("error", (err) => this.fail(err));
    socket.on("close", () => this.fail(new Error("the node closed the connection")));
  }

  /** Opens the connection to `url` (http only). */
  static open(url: URL): Promise<RawHttpPoster> {
    if (url.protocol !== "http:") return Promise.reject(new Error(`only http URLs: ${url.href}`));
    return new Promise((resolve, reject) => {
      const socket = connect(Number(url.port || 80), url.hostname);
      socket.once("connect", () => resolve(new RawHttpPoster(socket, url)));
      socket.once("error", reject);
    });
  }

  /** The request bytes for `body`, to build before the clock starts. */
  request(body: string): Buffer {
    return Buffer.from(`${this.head}${Buffer.byteLength(body)}\r\n\r\n${body}`);
  }

  /** Sends a request built by {@link request}; resolves to the answer's body (status 200 only). */
  send(request: Buffer): Promise<string> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.waiting !== undefined) return Promise.reject(new Error("one request at a time"));
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.write(request);
    });
  }

  close(): void {
    this.socket.removeAllListeners("close");
    this.socket.destroy();
  }

  private receive(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const end = this.buffered.indexOf(HEADER_END);
    if (end < 0) return;
    const head = this.buffered.toString("latin1", 0, end);
    const length = /\r\ncontent-length: *(\d+)/i.exec(head)?.[1];
    if (!head.startsWith("HTTP/1.1 200") || length === undefined) {
      this.fail(
        new Error(`unexpected answer: ${head.split("\r\n")[0]}${length === undefined ? " (no Content-Length)" : ""}`),
      );
      return;
    }
    const total = end + HEADER_END.length + Number(length);
    if (this.buffered.length < total) return;
    const body = this.buffered.toString("utf8", end + HEADER_END.length, total);
    this.buffered = this.buffered.subarray(total);
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.resolve(body);
  }

  private fail(err: Error): void {
    this.failure ??= err;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(err);
  }
}
