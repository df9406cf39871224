// A JSON-RPC read over a plain TCP socket rather than fetch or node:http. fetch's first use loads undici, which
// costs a client command more start-up than everything else it does for `query bank balances` bar Node itself;
// node:http's client, though part of Node's start-up snapshot, still costs its first request ~7 ms of CPU more than
// writing the request on a socket (ClientRequest, the agent and the parser are compiled on first use: 13-17 against
// 6-9 ms measured for one request). One POST with `connection: close` is all a read needs. Only the successful path
// is taken here: on any failure or anything unexpected (a refused or cut connection, a malformed answer, an address
// this does not handle) the caller repeats the request through fetch, so what the user sees on an unreachable node is
// what it always was. Reads only (a repeated read is harmless); broadcasts always go through fetch.
// node:net is taken with process.getBuiltinModule, not an `import`, so nothing else comes with it.
const { connect } = process.getBuiltinModule("node:net");

/** `http://host:port` as the RPC client builds it (src/client/rpc/rpc-client.ts rpcBaseUrl); host may be `[v6]`. */
const PLAIN_HTTP = /^http:\/\/(\[[^\]]+\]|[^/:\s[\]]+):(\d{1,5})$/;

/** An HTTP answer read by {@link postForAnswer}: its status, its Content-Type (when given) and its body. */
export interface PostAnswer {
  status: number;
  contentType: string | undefined;
  text: string;
}

/** The body of the answer to POSTing `body` to `url`, or undefined when the caller should use fetch instead. */
export async function postForText(url: string, body: string): Promise<string | undefined> {
  return (await postForAnswer(url, body))?.text;
}

/**
 * The answer to POSTing `body` to `url` (status and Content-Type too, which name what answered when the body is not
 * JSON-RPC), or undefined when the caller should use fetch instead.
 */
export function postForAnswer(url: string, body: string): Promise<PostAnswer | undefined> {
  const address = PLAIN_HTTP.exec(url);
  if (address === null) return Promise.resolve(undefined);
  const host = address[1] as string;
  const port = Number(address[2]);
  if (port < 1 || port > 65535) return Promise.resolve(undefined);
  const payload = Buffer.from(body, "utf8");
  const head =
    `POST / HTTP/1.1\r\nhost: ${host}:${port}\r\ncontent-type: application/json\r\n` +
    `content-length: ${payload.length}\r\nconnection: close\r\n\r\n`;
  return new Promise<PostAnswer | undefined>((resolve) => {
    const socket = connect({ host: host.startsWith("[") ? host.slice(1, -1) : host, port });
    const chunks: Buffer[] = [];
    let settled = false;
    const settle = (answer: PostAnswer | undefined) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(answer);
    };
    socket.on("error", () => settle(undefined));
    let received = 0;
    // The answer's size in bytes once its head is in: null when the head gives no Content-Length (then: the end).
    let whole: number | null | undefined;
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      // A server that keeps the connection open despite `connection: close` is answered once the body is whole
      // (only the head is looked at until then: a long answer arrives in many pieces).
      if (whole === undefined) whole = answerSize(chunks.length === 1 ? chunk : Buffer.concat(chunks));
      if (typeof whole === "number" && received >= whole) settle(readAnswer(Buffer.concat(chunks), true));
    });
    socket.on("end", () => settle(readAnswer(Buffer.concat(chunks), true)));
    socket.on("close", () => settle(undefined));
    // Written, not ended: a server may take our half-close for a client gone away (Go's net/http cancels then).
    socket.write(Buffer.concat([Buffer.from(head, "latin1"), payload]));
  });
}

/**
 * The body of an HTTP/1.x answer held whole in `bytes` (Content-Length, chunked, or up to the end of the stream when
 * `ended` and neither is given), or undefined when it is not whole yet or not an answer this reads.
 */
export function parseAnswer(bytes: Buffer, ended: boolean): string | undefined {
  return readAnswer(bytes, ended)?.text;
}

/** {@link parseAnswer} with the answer's status and Content-Type. */
export function readAnswer(bytes: Buffer, ended: boolean): PostAnswer | undefined {
  const headEnd = bytes.indexOf("\r\n\r\n");
  if (headEnd < 0) return undefined;
  const lines = bytes.subarray(0, headEnd).toString("latin1").split("\r\n");
  const statusLine = /^HTTP\/1\.[01] (\d{3})( |$)/.exec(lines[0] as string);
  if (statusLine === null) return undefined;
  const status = Number(statusLine[1]);
  let contentType: string | undefined;
  let length: number | undefined;
  let chunked = false;
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon < 0) return undefined;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === "content-length") {
      if (!/^\d+$/.test(value) || length !== undefined) return undefined;
      length = Number(value);
    } else if (name === "transfer-encoding") {
      if (value.toLowerCase() !== "chunked") return undefined;
      chunked = true;
    } else if (name === "content-type") {
      contentType = value;
    }
  }
  const text = answerBody(bytes.subarray(headEnd + 4), chunked, length, ended);
  return text === undefined ? undefined : { status, contentType, text };
}

/** The body after the head: chunked, `length` bytes, or up to the end of the stream; undefined while not whole. */
function answerBody(rest: Buffer, chunked: boolean, length: number | undefined, ended: boolean): string | undefined {
  if (chunked) return dechunk(rest);
  if (length !== undefined) return rest.length >= length ? rest.subarray(0, length).toString("utf8") : undefined;
  return ended ? rest.toString("utf8") : undefined;
}

/** Head plus Content-Length of the answer starting `bytes`; null when its head gives none, undefined before it ends. */
function answerSize(bytes: Buffer): number | null | undefined {
  const headEnd = bytes.indexOf("\r\n\r\n");
  if (headEnd < 0) return undefined;
  const length = /\r\ncontent-length:[ \t]*(\d+)[ \t]*(\r\n|$)/i.exec(bytes.subarray(0, headEnd).toString("latin1"));
  return length === null ? null : headEnd + 4 + Number(length[1]);
}

/** A chunked body's content once its last chunk has arrived; undefined before that or when malformed. */
function dechunk(bytes: Buffer): string | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf("\r\n", at);
    if (lineEnd < 0) return undefined;
    const size = /^([0-9a-fA-F]+)(;.*)?$/.exec(bytes.subarray(at, lineEnd).toString("latin1"));
    if (size === null) return undefined;
    const length = Number.parseInt(size[1] as string, 16);
    const start = lineEnd + 2;
    if (length === 0) return Buffer.concat(parts).toString("utf8");
    if (bytes.length < start + length + 2) return undefined;
    parts.push(bytes.subarray(start, start + length));
    at = start + length + 2;
  }
}
