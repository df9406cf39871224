// RFC 6455 framing for the consensus RPC's WebSocket: the handshake accept key, a streaming frame parser (client
// frames must be masked, control frames short and unfragmented), the check of a client's close code, and the header
// of server frames (never masked). Written here rather than taken from the `ws` package: the server needs only this much of the protocol,
// and the release's single executable stays free of one more dependency (docs/ARCHITECTURE.md).
import { createHash } from "node:crypto";

const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/** Opcodes of RFC 6455 §5.2. */
export const Opcode = { continuation: 0x0, text: 0x1, binary: 0x2, close: 0x8, ping: 0x9, pong: 0xa } as const;

/** Close codes of RFC 6455 §7.4.1 that the server sends. */
export const CloseCode = {
  normal: 1000,
  goingAway: 1001,
  protocolError: 1002,
  policyViolation: 1008,
  tooBig: 1009,
  internalError: 1011,
} as const;

/** One decoded frame (payload already unmasked). */
export interface Frame {
  fin: boolean;
  opcode: number;
  payload: Buffer;
}

/** A protocol violation; `code` is the close code to send before dropping the connection. */
export class WsProtocolError extends Error {
  override name = "WsProtocolError";
  readonly code: number;
  constructor(message: string, code: number = CloseCode.protocolError) {
    super(message);
    this.code = code;
  }
}

/** `Sec-WebSocket-Accept` for a client's `Sec-WebSocket-Key`. */
export function acceptKey(clientKey: string): string {
  return createHash("sha1").update(`${clientKey}${GUID}`).digest("base64");
}

/**
 * Accumulates bytes and yields whole frames. `maxPayload` bounds one frame (and is checked from the header, before
 * the payload arrives, so an oversized frame never gets buffered).
 */
export class FrameParser {
  private buffered: Buffer = Buffer.alloc(0);
  private readonly maxPayload: number;

  constructor(maxPayload: number) {
    this.maxPayload = maxPayload;
  }

  /** Bytes held while waiting for the rest of a frame (at most one frame header and `maxPayload`). */
  get bufferedBytes(): number {
    return this.buffered.length;
  }

  /** Adds bytes; returns every frame now complete. Throws {@link WsProtocolError} on a bad frame. */
  push(chunk: Buffer): Frame[] {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const frames: Frame[] = [];
    for (;;) {
      const frame = this.next();
      if (frame === undefined) break;
      frames.push(frame);
    }
    return frames;
  }

  private next(): Frame | undefined {
    const b = this.buffered;
    if (b.length < 2) return undefined;
    const fin = (b[0] & 0x80) !== 0;
    if ((b[0] & 0x70) !== 0) throw new WsProtocolError("reserved bits set without a negotiated extension");
    const opcode = b[0] & 0x0f;
    const masked = (b[1] & 0x80) !== 0;
    if (!masked) throw new WsProtocolError("client frames must be masked (RFC 6455 §5.1)");
    let length = b[1] & 0x7f;
    let offset = 2;
    if (length === 126) {
      if (b.length < 4) return undefined;
      length = b.readUInt16BE(2);
      offset = 4;
    } else if (length === 127) {
      if (b.length < 10) return undefined;
      const big = b.readBigUInt64BE(2);
      if (big > BigInt(this.maxPayload)) throw new WsProtocolError("frame too large", CloseCode.tooBig);
      length = Number(big);
      offset = 10;
    }
    const control = opcode >= 0x8;
    if (control && (!fin || length > 125)) throw new WsProtocolError("control frames must be final and ≤ 125 bytes");
    if (![0x0, 0x1, 0x2, 0x8, 0x9, 0xa].includes(opcode)) throw new WsProtocolError(`unknown opcode ${opcode}`);
    if (length > this.maxPayload) throw new WsProtocolError("frame too large", CloseCode.tooBig);
    if (b.length < offset + 4 + length) return undefined;
    const mask = b.subarray(offset, offset + 4);
    const payload = Buffer.from(b.subarray(offset + 4, offset + 4 + length));
    for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i & 3];
    this.buffered = b.subarray(offset + 4 + length);
    return { fin, opcode, payload };
  }
}

/**
 * The code a client's close frame carries, checked as RFC 6455 §5.5.1 and §7.4 require: no payload means no code
 * (1005, answered with 1000); a one-byte payload, a code no endpoint may send (below 1000, 1004–1006, 1015, the
 * unassigned 1016–2999, 5000 and above) or a reason that is not UTF-8 is a protocol error (answered with 1002, not
 * echoed: an echo would itself be an invalid close frame).
 */
export function closeCodeOf(payload: Buffer): number {
  if (payload.length === 0) return 1005;
  if (payload.length === 1) throw new WsProtocolError("close frame with a one-byte payload");
  const code = payload.readUInt16BE(0);
  const sendable =
    (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999);
  if (!sendable) throw new WsProtocolError(`invalid close code ${code}`);
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(payload.subarray(2));
  } catch {
    throw new WsProtocolError("close reason is not UTF-8");
  }
  return code;
}

/** The header of one unmasked, final server frame carrying `length` payload bytes. */
export function frameHeader(opcode: number, length: number): Buffer {
  const n = length;
  let header: Buffer;
  if (n < 126) {
    header = Buffer.from([0x80 | opcode, n]);
  } else if (n < 0x10000) {
    header = Buffer.alloc(4);
    header[0] = 0x80 | opcode;
    header[1] = 126;
    header.writeUInt16BE(n, 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = 0x80 | opcode;
    header[1] = 127;
    header.writeBigUInt64BE(BigInt(n), 2);
  }
  return header;
}

/** The payload of a close frame: the code and an optional short reason. */
export function closePayload(code: number, reason = ""): Buffer {
  const text = Buffer.from(reason.slice(0, 100), "utf8");
  const out = Buffer.alloc(2 + text.length);
  out.writeUInt16BE(code, 0);
  text.copy(out, 2);
  return out;
}
