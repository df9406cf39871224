import assert from "node:assert/strict";
import { test } from "node:test";
import { gzipSync } from "node:zlib";
import { packPayload, unpackPayload } from "./payload.ts";

test("payload: files come back as they went in, in order, with their modes", () => {
  const files = [
    { path: "package.json", mode: 0o644, data: new TextEncoder().encode('{"type":"module"}') },
    { path: "prebuilds/linux-x64/addon.node", mode: 0o755, data: new Uint8Array([0, 1, 2, 255]) },
    { path: "empty.txt", mode: 0o600, data: new Uint8Array(0) },
  ];
  const back = unpackPayload(packPayload(files));
  assert.deepEqual(
    back.map((file) => ({ ...file, data: [...file.data] })),
    files.map((file) => ({ ...file, data: [...file.data] })),
  );
});

test("payload: unsafe paths are refused both ways, and garbage is not taken for a payload", () => {
  for (const path of ["/etc/passwd", "../x", "a/../../x"]) {
    assert.throws(() => packPayload([{ path, mode: 0o644, data: new Uint8Array(0) }]), /not a relative path/);
  }
  assert.throws(() => unpackPayload(gzipSync(Buffer.from("something else"))), /not a chaind payload/);
  const truncated = gzipSync(Buffer.concat([Buffer.from("CHAINDP1"), Buffer.from([0, 5, 0x61])]));
  assert.throws(() => unpackPayload(truncated), /truncated payload/);
});
