// The enable height kept per commit: read again whenever the latest commit is another (the next version, or the same
// version with another app hash: a rollback or a restored snapshot), never answered from the one before.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CommittedEnableHeight } from "./committed-enable-height.ts";

describe("CommittedEnableHeight", () => {
  it("reads once per commit and again at any other version or app hash", async () => {
    const cache = new CommittedEnableHeight();
    let reads = 0;
    let stored = 0n;
    const read = async () => {
      reads++;
      return stored;
    };
    const hashA = new Uint8Array(32).fill(1);
    assert.equal(await cache.at({ version: 5n, appHash: hashA }, read), 0n);
    stored = 9n; // what the commit of version 5 holds cannot change; a read here would be of another state
    assert.equal(await cache.at({ version: 5n, appHash: hashA.slice() }, read), 0n, "same commit: kept");
    assert.equal(reads, 1);
    assert.equal(await cache.at({ version: 6n, appHash: hashA }, read), 9n, "the next version: read again");
    stored = 3n;
    assert.equal(await cache.at({ version: 6n, appHash: new Uint8Array(32).fill(2) }, read), 3n, "another app hash");
    assert.equal(reads, 3);
  });

  it("is not fooled by the caller changing the app hash bytes it passed", async () => {
    const cache = new CommittedEnableHeight();
    const appHash = new Uint8Array(32).fill(1);
    await cache.at({ version: 1n, appHash }, async () => 1n);
    appHash[0] = 2;
    assert.equal(await cache.at({ version: 1n, appHash }, async () => 7n), 7n);
  });
});
