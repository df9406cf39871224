// Length-prefixed framing of ABCI messages: uvarint(length) ‖ protobuf bytes, as CometBFT v0.38 reads and
// writes them. A TCP chunk may hold several frames, a frame may span many chunks, and even the varint
// prefix may be split, so the decoder buffers chunks and only cuts a frame once all its bytes are in.
import { encodeUvarint, MAX_UVARINT_BYTES, readUvarint, UvarintError } from "../bytes/varint.ts";
import { AbciFrameError } from "./errors.ts";

/**
 * The default cap on one frame. CometBFT caps blocks at 100 MiB (`block.max_bytes`, default 21 MiB) and a
 * FinalizeBlock carries the txs of one block plus a little overhead; anything bigger is garbage or an attack.
 */
export const DEFAULT_MAX_FRAME_BYTES = 256 * 1024 * 1024;

/** Prefixes `message` with its uvarint length. */
export function encodeFrame(message: Uint8Array): Uint8Array {
  const prefix = encodeUvarint(message.length);
  const frame = new Uint8Array(prefix.length + message.length);
  frame.set(prefix, 0);
  frame.set(message, prefix.length);
  return frame;
}

/** What one {@link FrameDecoder.push} produced. */
export interface FrameDecoderResult {
  frames: Uint8Array[];
  error?: AbciFrameError;
}

/**
 * Incremental frame decoder. `push` takes each chunk as it arrives and returns the frames it completed.
 * After a malformed length the stream is unusable: framing cannot resynchronise.
 */
export class FrameDecoder {
  private readonly maxFrameBytes: number;
  // Chunks not yet consumed; joined only when a frame is complete, so a 20 MB frame arriving in 64 KiB
  // chunks costs one copy, not one per chunk.
  private chunks: Uint8Array[] = [];
  private buffered = 0;
  // The body length of the frame being collected, once its prefix has been read.
  private expected: number | undefined;
  private failure: AbciFrameError | undefined;

  constructor(maxFrameBytes = DEFAULT_MAX_FRAME_BYTES) {
    this.maxFrameBytes = maxFrameBytes;
  }

  /** Bytes received but not yet returned as part of a frame. */
  get pendingBytes(): number {
    return this.buffered;
  }

  /**
   * Adds a chunk; returns every frame body (without its prefix) completed by it, in order, as plain Uint8Arrays
   * (never Buffers). A malformed
   * length prefix comes back as `error`, after the frames that preceded it; once failed, every later push
   * returns the same error and no frames.
   */
  push(chunk: Uint8Array): FrameDecoderResult {
    if (this.failure !== undefined) return { frames: [], error: this.failure };
    if (chunk.length > 0) {
      // A socket hands out Buffers, and the protobuf decoder's byte fields are subarrays of the frame, so of the
      // same class. Buffer#slice is a view, not a copy as Uint8Array#slice is: a request's bytes (a Query's
      // data, a tx) reaching code that slices and then writes its copy would write into the request itself.
      // A plain Uint8Array view over the same memory (no copy) keeps every frame and field a Uint8Array.
      this.chunks.push(
        chunk instanceof Buffer ? new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength) : chunk,
      );
      this.buffered += chunk.length;
    }
    const frames: Uint8Array[] = [];
    for (;;) {
      if (this.expected === undefined) {
        let prefix: { value: number; length: number } | undefined;
        try {
          prefix = this.readPrefix();
        } catch (error) {
          this.failure = error as AbciFrameError;
          this.chunks = [];
          this.buffered = 0;
          return { frames, error: this.failure };
        }
        if (prefix === undefined) break;
        this.consume(prefix.length);
        this.expected = prefix.value;
      }
      if (this.buffered < this.expected) break;
      frames.push(this.take(this.expected));
      this.expected = undefined;
    }
    return { frames };
  }

  private readPrefix(): { value: number; length: number } | undefined {
    const head = this.peek(Math.min(MAX_UVARINT_BYTES, this.buffered));
    let decoded: { value: number; length: number } | undefined;
    try {
      decoded = readUvarint(head);
    } catch (error) {
      const reason = error instanceof UvarintError ? error.message : String(error);
      throw new AbciFrameError("malformed frame length", `${reason}; expected an unsigned varint length prefix`, {
        cause: error,
      });
    }
    if (decoded !== undefined && decoded.value > this.maxFrameBytes) {
      throw new AbciFrameError(
        "frame too large",
        `the length prefix announces ${decoded.value} bytes, more than the limit of ${this.maxFrameBytes} bytes`,
      );
    }
    return decoded;
  }

  // The first `n` buffered bytes, copied only when they straddle chunks.
  private peek(n: number): Uint8Array {
    const first = this.chunks[0];
    if (first === undefined || n === 0) return new Uint8Array(0);
    if (first.length >= n) return first.subarray(0, n);
    const out = new Uint8Array(n);
    let filled = 0;
    for (const chunk of this.chunks) {
      const part = chunk.subarray(0, n - filled);
      out.set(part, filled);
      filled += part.length;
      if (filled === n) break;
    }
    return out;
  }

  private take(n: number): Uint8Array {
    // A view into a received chunk is safe to hand out: chunks are never written to after arrival.
    const out = this.peek(n);
    this.consume(n);
    return out;
  }

  private consume(n: number): void {
    let rest = n;
    this.buffered -= n;
    while (rest > 0) {
      const first = this.chunks[0]!;
      if (first.length <= rest) {
        this.chunks.shift();
        rest -= first.length;
      } else {
        this.chunks[0] = first.subarray(rest);
        rest = 0;
      }
    }
  }
}
