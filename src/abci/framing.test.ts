import assert from "node:assert/strict";
import { test } from "node:test";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import fc from "fast-check";
import { RequestSchema, ResponseSchema } from "../gen/tendermint/abci/types_pb.js";
import { AbciFrameError } from "./errors.ts";
import { encodeFrame, FrameDecoder } from "./framing.ts";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const fromHex = (text: string) => new Uint8Array(Buffer.from(text.replaceAll(" ", ""), "hex"));

test("frames match the reference wire bytes", () => {
  const flush = toBinary(RequestSchema, create(RequestSchema, { value: { case: "flush", value: {} } }));
  assert.equal(hex(encodeFrame(flush)), "021200");
  const flushResponse = toBinary(ResponseSchema, create(ResponseSchema, { value: { case: "flush", value: {} } }));
  assert.equal(hex(encodeFrame(flushResponse)), "021a00");
  const echo = toBinary(RequestSchema, create(RequestSchema, { value: { case: "echo", value: { message: "hello" } } }));
  assert.equal(hex(encodeFrame(echo)), "090a070a0568656c6c6f");
  const info = create(RequestSchema, {
    value: { case: "info", value: { version: "0.38.25", blockVersion: 11n, p2pVersion: 8n, abciVersion: "2.0.0" } },
  });
  assert.equal(hex(encodeFrame(toBinary(RequestSchema, info))), "161a140a07302e33382e3235100b18082205322e302e30");
});

test("several frames in one chunk come out in order", () => {
  const decoder = new FrameDecoder();
  const { frames, error } = decoder.push(fromHex("021200 021a00 00 03616263"));
  assert.equal(error, undefined);
  assert.deepEqual(frames.map(hex), ["1200", "1a00", "", "616263"]);
  assert.equal(decoder.pendingBytes, 0);
});

test("frames and the byte fields decoded from them are plain Uint8Arrays when the socket gives Buffers", () => {
  // Buffer#slice is a view: a Query's data decoded from a Buffer frame was changed in place by the store's
  // prefix-end computation, so /store/<name>/subspace behind CometBFT answered nothing and echoed a wrong key.
  const query = create(RequestSchema, {
    value: { case: "query", value: { path: "/store/bank/subspace", data: new Uint8Array([2, 20, 7]) } },
  });
  const wire = Buffer.from(encodeFrame(toBinary(RequestSchema, query)));
  for (const chunks of [[wire], [wire.subarray(0, 5), wire.subarray(5)]]) {
    const decoder = new FrameDecoder();
    const frames = chunks.flatMap((chunk) => decoder.push(chunk).frames);
    assert.equal(frames.length, 1);
    assert.equal(Buffer.isBuffer(frames[0]), false);
    const decoded = fromBinary(RequestSchema, frames[0]!);
    assert.equal(decoded.value.case, "query");
    const data = (decoded.value.value as { data: Uint8Array }).data;
    assert.equal(Buffer.isBuffer(data), false);
    const copy = data.slice(0, 3);
    copy[2]!++;
    assert.deepEqual([...data], [2, 20, 7], "a slice of the request's bytes is a copy");
  }
});

test("a frame split at every byte, varint included, is reassembled", () => {
  const body = new Uint8Array(300).map((_, i) => i % 251);
  const wire = encodeFrame(body); // 2-byte varint prefix
  const decoder = new FrameDecoder();
  const out: Uint8Array[] = [];
  for (let i = 0; i < wire.length; i++) {
    const { frames, error } = decoder.push(wire.subarray(i, i + 1));
    assert.equal(error, undefined);
    if (i < wire.length - 1) assert.equal(frames.length, 0, `no frame before the last byte (at ${i})`);
    out.push(...frames);
  }
  assert.deepEqual(out, [body]);
});

test("a large frame across many chunks, with the next frame's start in its last chunk", () => {
  const big = new Uint8Array(5 * 1024 * 1024).fill(7);
  const wire = Buffer.concat([encodeFrame(big), encodeFrame(fromHex("1200"))]);
  const decoder = new FrameDecoder();
  const out: Uint8Array[] = [];
  for (let at = 0; at < wire.length; at += 65536) out.push(...decoder.push(wire.subarray(at, at + 65536)).frames);
  assert.equal(out.length, 2);
  assert.equal(out[0]!.length, big.length);
  assert.ok(out[0]!.every((b) => b === 7));
  assert.equal(hex(out[1]!), "1200");
});

test("an oversize length is rejected before its body arrives, naming the size and the limit", () => {
  const decoder = new FrameDecoder(1000);
  const { frames, error } = decoder.push(Uint8Array.from([0x02, 0x12, 0x00, 0xe9, 0x07]));
  assert.deepEqual(frames.map(hex), ["1200"], "the frame before the bad prefix is still delivered");
  assert.ok(error instanceof AbciFrameError);
  assert.match(
    error.message,
    /frame too large: the length prefix announces 1001 bytes, more than the limit of 1000 bytes/,
  );
  // The stream cannot resynchronise: every later push reports the same failure.
  assert.equal(decoder.push(fromHex("021200")).error, error);
  assert.equal(decoder.push(fromHex("021200")).frames.length, 0);
});

test("a length prefix longer than 10 bytes is malformed", () => {
  const { error } = new FrameDecoder().push(new Uint8Array(12).fill(0xff));
  assert.ok(error instanceof AbciFrameError);
  assert.match(error.message, /malformed frame length: varint .*; expected an unsigned varint length prefix/);
});

test("any chunking of any frames yields the same frames", () => {
  fc.assert(
    fc.property(
      fc.array(fc.uint8Array({ maxLength: 400 }), { maxLength: 12 }),
      fc.array(fc.integer({ min: 1, max: 97 }), { minLength: 1, maxLength: 20 }),
      (bodies, cuts) => {
        const wire = Buffer.concat(bodies.map(encodeFrame));
        const decoder = new FrameDecoder();
        const out: Uint8Array[] = [];
        let at = 0;
        for (let i = 0; at < wire.length; i++) {
          const size = cuts[i % cuts.length]!;
          const { frames, error } = decoder.push(wire.subarray(at, at + size));
          assert.equal(error, undefined);
          out.push(...frames);
          at += size;
        }
        assert.deepEqual(out.map(hex), bodies.map(hex));
        assert.equal(decoder.pendingBytes, 0);
      },
    ),
  );
});
