import assert from "node:assert/strict";
import { test } from "node:test";
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
  assert.throws(() => unpackPayload(Buffer.from("something else")), /not a chaind payload/);
  // The gzip-compressed format of releases before it is not taken for this one either.
  assert.throws(() => unpackPayload(Buffer.from("CHAINDP1")), /not a chaind payload/);
  const truncated = Buffer.concat([Buffer.from("CHAINDP2"), Buffer.from([0, 5, 0x61])]);
  assert.throws(() => unpackPayload(truncated), /truncated payload/);
  const shortFile = Buffer.concat([Buffer.from("CHAINDP2"), Buffer.from([0, 1, 0x61, 1, 0xa4, 0, 0, 0, 9, 0x62])]);
  assert.throws(() => unpackPayload(shortFile), /truncated payload at a/);
});
