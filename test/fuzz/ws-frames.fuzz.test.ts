// The WebSocket's input parsers under arbitrary input: the RFC 6455 frame parser (random byte streams, valid client
// frames mutated, any declared length), the close-frame check, and the JSON-RPC parameter readers. Each either
// gives its result or its own error (a WsProtocolError carrying a close code, an RpcError), never another
// exception; and the frame parser holds at most one frame header and one frame's payload, whatever it is fed.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import fc from "fast-check";
import { RpcCode, RpcErrorReply } from "../../src/engine/rpc/rpc-error.ts";
import { RPC_METHODS } from "../../src/engine/rpc/rpc-methods.ts";
import { argsFromJsonRpc, argsFromUri } from "../../src/engine/rpc/rpc-params.ts";
import {
  CloseCode,
  closeCodeOf,
  type Frame,
  FrameParser,
  Opcode,
  WsProtocolError,
} from "../../src/engine/rpc/ws-frames.ts";
import { fuzzParameters } from "./settings.ts";

const MAX_PAYLOAD = 4096;
/** The longest frame header: 2 bytes, an 8-byte length, a 4-byte mask. */
const MAX_HEADER = 14;

/** One masked client frame, as a browser or CosmJS's `ws` would send it. */
function clientFrame(fin: boolean, opcode: number, payload: Buffer, mask = randomBytes(4)): Buffer {
  const n = payload.length;
  const length = n < 126 ? Buffer.from([0x80 | n]) : Buffer.alloc(n < 0x10000 ? 3 : 9);
  if (n >= 126 && n < 0x10000) {
    length[0] = 0x80 | 126;
    length.writeUInt16BE(n, 1);
  } else if (n >= 0x10000) {
    length[0] = 0x80 | 127;
    length.writeBigUInt64BE(BigInt(n), 1);
  }
  const body = Buffer.from(payload);
  for (let i = 0; i < body.length; i++) body[i] ^= mask[i & 3];
  return Buffer.concat([Buffer.from([(fin ? 0x80 : 0) | opcode]), length, mask, body]);
}

/**
 * Feeds `bytes` to a fresh parser in chunks cut at `cuts`; returns the frames and the protocol error that ended the
 * stream, if any. Any other exception, or a parser holding more than one frame, fails the property.
 */
function feed(bytes: Buffer, cuts: number[]): { frames: Frame[]; error?: WsProtocolError } {
  const parser = new FrameParser(MAX_PAYLOAD);
  const frames: Frame[] = [];
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  let start = 0;
  for (const end of [...points, bytes.length]) {
    if (end < start) continue;
    try {
      frames.push(...parser.push(bytes.subarray(start, end)));
    } catch (error) {
      if (!(error instanceof WsProtocolError)) throw error;
      assert.ok(
        [CloseCode.protocolError, CloseCode.tooBig].includes(error.code as 1002 | 1009),
        `close code ${error.code}`,
      );
      return { frames, error };
    }
    assert.ok(parser.bufferedBytes < MAX_HEADER + MAX_PAYLOAD, `the parser holds ${parser.bufferedBytes} bytes`);
    start = end;
  }
  return { frames };
}

const validFrame = fc
  .record({
    opcode: fc.constantFrom(Opcode.continuation, Opcode.text, Opcode.binary, Opcode.close, Opcode.ping, Opcode.pong),
    fin: fc.boolean(),
    payload: fc.uint8Array({ maxLength: 300 }),
  })
  .map(({ opcode, fin, payload }) => {
    const control = opcode >= 0x8;
    return { opcode, fin: control ? true : fin, payload: Buffer.from(control ? payload.subarray(0, 125) : payload) };
  });

const cuts = fc.array(fc.nat(), { maxLength: 8 });

describe("WebSocket frame parser (fuzz)", () => {
  it("arbitrary bytes give frames or the parser's own protocol error, holding at most one frame", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2048 }), cuts, (bytes, at) => {
        feed(Buffer.from(bytes), at);
      }),
      fuzzParameters(300),
    );
  });

  it("valid client frames come back as sent, however the stream is cut", () => {
    fc.assert(
      fc.property(fc.array(validFrame, { maxLength: 6 }), cuts, (frames, at) => {
        const wire = Buffer.concat(frames.map((f) => clientFrame(f.fin, f.opcode, f.payload)));
        const out = feed(wire, at);
        assert.equal(out.error, undefined);
        assert.deepEqual(
          out.frames.map((f) => ({ opcode: f.opcode, fin: f.fin, payload: Buffer.from(f.payload) })),
          frames,
        );
      }),
      fuzzParameters(200),
    );
  });

  it("mutated valid frames (bytes flipped, cut, inserted) give frames or a protocol error", () => {
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant("flip" as const), at: fc.nat(), bits: fc.integer({ min: 1, max: 255 }) }),
      fc.record({ kind: fc.constant("cut" as const), at: fc.nat() }),
      fc.record({ kind: fc.constant("insert" as const), at: fc.nat(), bytes: fc.uint8Array({ maxLength: 12 }) }),
    );
    fc.assert(
      fc.property(
        fc.array(validFrame, { minLength: 1, maxLength: 4 }),
        fc.array(mutation, { maxLength: 4 }),
        cuts,
        (frames, mutations, at) => {
          let wire = Buffer.concat(frames.map((f) => clientFrame(f.fin, f.opcode, f.payload)));
          for (const m of mutations) {
            const i = m.at % (wire.length + 1);
            if (m.kind === "flip" && i < wire.length) wire[i] ^= m.bits;
            else if (m.kind === "cut") wire = wire.subarray(0, i);
            else if (m.kind === "insert") wire = Buffer.concat([wire.subarray(0, i), m.bytes, wire.subarray(i)]);
          }
          feed(wire, at);
        },
      ),
      fuzzParameters(300),
    );
  });

  it("a declared length over the limit (up to 2^64 - 1) is refused from the header alone, nothing allocated", () => {
    const declared = fc.oneof(
      fc.constant(2n ** 63n),
      fc.constant(2n ** 64n - 1n),
      fc.bigInt({ min: BigInt(MAX_PAYLOAD) + 1n, max: 2n ** 64n - 1n }),
    );
    fc.assert(
      fc.property(declared, fc.constantFrom(Opcode.text, Opcode.binary, Opcode.continuation), (length, opcode) => {
        const header = Buffer.alloc(10);
        header[0] = 0x80 | opcode;
        header[1] = 0x80 | 127;
        header.writeBigUInt64BE(length, 2);
        const parser = new FrameParser(MAX_PAYLOAD);
        // Only the header is sent: refusing it now proves no buffer of the declared size was ever made.
        assert.throws(
          () => parser.push(header),
          (e: unknown) => e instanceof WsProtocolError && e.code === 1009,
        );
      }),
      fuzzParameters(200),
    );
  });

  it("a close frame's payload gives a valid code or a 1002 protocol error, never an echo of an invalid code", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 125 }), (payload) => {
        let code: number;
        try {
          code = closeCodeOf(Buffer.from(payload));
        } catch (error) {
          assert.ok(error instanceof WsProtocolError && error.code === CloseCode.protocolError);
          return;
        }
        const valid = code === 1005 || (code >= 1000 && code <= 1014 && ![1004, 1005, 1006].includes(code));
        assert.ok(valid || (code >= 3000 && code <= 4999), `accepted close code ${code}`);
      }),
      fuzzParameters(300),
    );
  });
});

/** Runs `read`; passes when it returns or throws the RPC's own invalid-params error. */
function resultOrRpcError(read: () => unknown): void {
  try {
    read();
  } catch (error) {
    if (!(error instanceof RpcErrorReply)) throw error;
    assert.equal(error.code, RpcCode.invalidParams);
  }
}

describe("JSON-RPC parameters (fuzz)", () => {
  const methods = Object.entries(RPC_METHODS);
  const method = fc.constantFrom(...methods);

  it("any JSON params, named or positional, give arguments or an invalid-params error", () => {
    // Parsed from text, as the server receives them: keys such as __proto__ arrive as own properties.
    const params = fc.oneof(
      fc.json().map((text) => JSON.parse(text) as unknown),
      fc.dictionary(
        fc.oneof(
          fc.constantFrom("height", "tx", "hash", "query", "page", "per_page", "prove", "__proto__"),
          fc.string(),
        ),
        fc.jsonValue(),
      ),
      fc.array(fc.jsonValue(), { maxLength: 8 }),
    );
    fc.assert(
      fc.property(method, params, ([, m], p) => {
        resultOrRpcError(() => argsFromJsonRpc(m.params, p));
      }),
      fuzzParameters(500),
    );
  });

  it("any URI query string gives arguments or an invalid-params error", () => {
    fc.assert(
      fc.property(method, fc.string({ maxLength: 200 }), ([, m], query) => {
        resultOrRpcError(() => argsFromUri(m.params, new URLSearchParams(query)));
      }),
      fuzzParameters(300),
    );
  });
});
