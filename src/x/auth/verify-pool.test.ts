// The signature worker pool: large batches are verified (on worker threads where the machine has more than one
// core) with one correct answer per job, and the workers stop by themselves once idle, starting again on demand.
import assert from "node:assert/strict";
import { availableParallelism } from "node:os";
import { after, describe, test } from "node:test";
import { signSecp256k1 } from "../../client/crypto/index.ts";
import { testKey } from "../../testing/app.ts";
import { activeVerifyWorkers, closeVerifyPool, setVerifyPoolIdleMs, verifyBatch } from "./verify-pool.ts";

after(() => closeVerifyPool());

async function until(what: string, probe: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("verify pool", () => {
  test("answers every job of a large batch and stops its workers once idle", async () => {
    setVerifyPoolIdleMs(200);
    const key = testKey("verify-pool");
    const message = new TextEncoder().encode("sign me");
    const good = signSecp256k1(key.privateKey, message);
    const bad = new Uint8Array(good);
    bad[10] ^= 1;
    const jobs = Array.from({ length: 40 }, (_, i) => ({
      publicKey: key.publicKey,
      message,
      signature: i % 3 === 0 ? bad : good,
    }));
    const expected = jobs.map((_, i) => i % 3 !== 0);
    assert.deepEqual(await verifyBatch(jobs), expected);
    const parallel = availableParallelism() > 1;
    if (parallel) assert.ok(activeVerifyWorkers() > 0, "a large batch starts the workers");
    await until("the idle workers to stop", () => activeVerifyWorkers() === 0);
    // And they start again for the next large batch.
    assert.deepEqual(await verifyBatch(jobs), expected);
    if (parallel) assert.ok(activeVerifyWorkers() > 0);
  });
});
