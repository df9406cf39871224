import assert from "node:assert/strict";
import { test } from "node:test";
import type { EngineBootstrap } from "./bootstrap-state.ts";
import { decodeEngineBootstrap, encodeEngineBootstrap } from "./bootstrap-state.ts";

test("a bootstrap survives its JSON form, Buffers included", () => {
  const bootstrap = {
    state: { appHash: Buffer.from("ab", "hex"), lastBlockHeight: 7n, nested: [{ h: Buffer.from("cd", "hex") }] },
    seenCommit: { height: 7n, signatures: [] },
  } as unknown as EngineBootstrap;
  const back = decodeEngineBootstrap(encodeEngineBootstrap(bootstrap)) as unknown as {
    state: { appHash: Uint8Array; lastBlockHeight: bigint; nested: { h: Uint8Array }[] };
  };
  assert.deepEqual(back.state.appHash, Uint8Array.of(0xab));
  assert.equal(back.state.lastBlockHeight, 7n);
  assert.deepEqual(back.state.nested[0].h, Uint8Array.of(0xcd));
});
