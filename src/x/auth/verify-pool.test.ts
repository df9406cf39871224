// The signature worker pool: large batches are verified (on worker threads where the machine has more than one
// core) with one correct answer per job, and the workers stop by themselves once idle, starting again on demand.
import assert from "node:assert/strict";
import { availableParallelism } from "node:os";
import { after, describe, test } from "node:test";
import { Worker } from "node:worker_threads";
import { signSecp256k1 } from "../../crypto/index.ts";
import { nativeSecp256k1Verify } from "../../crypto/native-secp256k1.ts";
import { testKey } from "../../testing/app.ts";
import {
  activeVerifyWorkers,
  closeVerifyPool,
  setSingleJobsOnWorkers,
  setVerifyPoolIdleMs,
  sharedJobsVerifiedHere,
  verifyBatch,
  verifyOffThread,
} from "./verify-pool.ts";
import { packJobs, unpackJobs } from "./verify-wire.ts";

after(() => {
  setSingleJobsOnWorkers(undefined);
  return closeVerifyPool();
});

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

  test("verifies one tx's signatures given as views into larger buffers, with the right answers", async () => {
    const key = testKey("verify-pool-off-thread");
    const message = new TextEncoder().encode("a sign doc");
    const good = signSecp256k1(key.privateKey, message);
    // As in a node: the signature, key and message are views into larger buffers (a request body, a stored value).
    const within = (bytes: Uint8Array) => {
      const big = new Uint8Array(4096).fill(7);
      big.set(bytes, 100);
      return big.subarray(100, 100 + bytes.length);
    };
    const bad = within(good);
    bad[5] ^= 1;
    const job = { publicKey: within(key.publicKey), message: within(message), signature: within(good) };
    assert.deepEqual(await verifyOffThread([job, { ...job, signature: bad }]), [true, false]);
    assert.deepEqual(await verifyOffThread([]), []);
    const other = testKey("verify-pool-other-key");
    assert.deepEqual(await verifyOffThread([{ ...job, publicKey: other.publicKey }]), [false]);
  });

  test("with libsecp256k1, one tx's signatures are verified on this thread, even in a steady stream", async () => {
    assert.ok(nativeSecp256k1Verify() !== undefined, "the libsecp256k1 addon loads here");
    const key = testKey("verify-pool-native");
    const message = new TextEncoder().encode("one tx");
    const job = { publicKey: key.publicKey, message, signature: signSecp256k1(key.privateKey, message) };
    await until("the idle workers to stop", () => activeVerifyWorkers() === 0);
    for (let calls = 0; calls < 2_000; calls++) assert.deepEqual(await verifyOffThread([job]), [true]);
    assert.equal(activeVerifyWorkers(), 0, "no worker started");
    assert.deepEqual(await verifyOffThread([job, { ...job, message: new Uint8Array(3) }]), [true, false]);
  });

  // The tests below are of the workers' path for CheckTx's jobs, which a node takes where OpenSSL verifies.
  test("a tx now and then is verified on this thread; a steady stream of txs starts the workers", async () => {
    setSingleJobsOnWorkers(true);
    const key = testKey("verify-pool-stream");
    const message = new TextEncoder().encode("one tx");
    const job = { publicKey: key.publicKey, message, signature: signSecp256k1(key.privateKey, message) };
    await until("the idle workers to stop", () => activeVerifyWorkers() === 0);
    assert.deepEqual(await verifyOffThread([job]), [true]);
    assert.equal(activeVerifyWorkers(), 0, "one tx does not start a worker");
    if (availableParallelism() === 1) return;
    for (let calls = 0; activeVerifyWorkers() === 0; calls++) {
      assert.ok(calls < 10_000, "a stream of txs starts the workers");
      assert.deepEqual(await verifyOffThread([job]), [true]);
    }
    assert.deepEqual(await verifyOffThread([job, { ...job, message: new Uint8Array(3) }]), [true, false]);
  });

  test("txs arriving in the same turn share one message to a worker, and each gets its own answers", async () => {
    const key = testKey("verify-pool-same-turn");
    const messages = Array.from({ length: 6 }, (_, i) => new TextEncoder().encode(`tx ${i}`));
    const jobs = messages.map((message) => ({
      publicKey: key.publicKey,
      message,
      signature: signSecp256k1(key.privateKey, message),
    }));
    // Start the stream (and with it the workers, where there is a second core).
    for (let calls = 0; availableParallelism() > 1 && activeVerifyWorkers() === 0; calls++) {
      assert.ok(calls < 10_000, "a stream of txs starts the workers");
      await verifyOffThread([jobs[0]]);
    }
    // Six txs in one turn, of one or two signatures, some of them wrong.
    const calls = [
      [jobs[0]],
      [jobs[1], { ...jobs[2], message: messages[3] }],
      [{ ...jobs[3], signature: new Uint8Array(64) }],
      [jobs[4], jobs[5]],
      [{ ...jobs[5], publicKey: new Uint8Array(33) }],
      [jobs[2]],
    ];
    const answers = await Promise.all(calls.map((call) => verifyOffThread(call)));
    assert.deepEqual(answers, [[true], [true, false], [false], [true, true], [false], [true]]);
  });

  test("while it waits for a worker, an idle main thread verifies jobs of the same batch itself", async () => {
    if (availableParallelism() === 1) return;
    const key = testKey("verify-pool-shared");
    const message = new TextEncoder().encode("shared batch");
    const good = signSecp256k1(key.privateKey, message);
    for (let calls = 0; activeVerifyWorkers() === 0; calls++) {
      assert.ok(calls < 10_000, "a stream of txs starts the workers");
      await verifyOffThread([{ publicKey: key.publicKey, message, signature: good }]);
    }
    // 400 single-signature txs in one turn: one shared batch. This thread has nothing else to do while the
    // worker verifies (~0.3 ms a job), so it claims jobs too; every answer is right whoever gave it.
    const before = sharedJobsVerifiedHere();
    const calls = Array.from({ length: 400 }, (_, i) => [
      { publicKey: key.publicKey, message, signature: i % 7 === 0 ? new Uint8Array(64) : good },
    ]);
    const answers = await Promise.all(calls.map((call) => verifyOffThread(call)));
    assert.deepEqual(
      answers,
      calls.map((_, i) => [i % 7 !== 0]),
    );
    assert.ok(sharedJobsVerifiedHere() > before, "the idle main thread took part of the batch");
  });

  test("a worker stopped while it holds jobs still gets every job answered (on this thread)", async () => {
    if (availableParallelism() === 1) return;
    const key = testKey("verify-pool-stopped");
    const message = new TextEncoder().encode("stop me");
    const good = signSecp256k1(key.privateKey, message);
    const jobs = Array.from({ length: 400 }, (_, i) => ({
      publicKey: key.publicKey,
      message,
      signature: i % 5 === 0 ? new Uint8Array(64) : good,
    }));
    const expected = jobs.map((_, i) => i % 5 !== 0);
    assert.deepEqual(await verifyBatch(jobs), expected); // the pool is running
    const answered = verifyOffThread(jobs);
    await new Promise((resolve) => setImmediate(resolve)); // the turn's jobs go to a worker in one message
    await closeVerifyPool(); // terminates it mid-way
    assert.deepEqual(
      await answered,
      jobs.map((_, i) => i % 5 !== 0),
    );
    assert.equal(activeVerifyWorkers(), 0);
    assert.deepEqual(await verifyBatch(jobs.slice(0, 20)), [
      false,
      ...Array(4).fill(true),
      false,
      ...Array(4).fill(true),
      false,
      ...Array(4).fill(true),
      false,
      ...Array(4).fill(true),
    ]);
  });

  test("packs jobs into one compact buffer and unpacks the same bytes", () => {
    const jobs = [
      { publicKey: new Uint8Array(33).fill(2), message: new Uint8Array(0), signature: new Uint8Array(64).fill(3) },
      { publicKey: new Uint8Array(0), message: new Uint8Array(70_000).fill(9), signature: new Uint8Array(1).fill(4) },
    ];
    const packed = packJobs(jobs);
    assert.equal(packed.byteLength, packed.buffer.byteLength, "nothing beyond the jobs travels");
    assert.deepEqual(
      unpackJobs(packed).map((j) => [j.publicKey, j.message, j.signature].map((b) => Buffer.from(b).toString("hex"))),
      jobs.map((j) => [j.publicKey, j.message, j.signature].map((b) => Buffer.from(b).toString("hex"))),
    );
  });

  test("posts a batch's jobs without transferring (detaching) any buffer", async (t) => {
    // One detached ArrayBuffer invalidates V8's ArrayBufferDetaching protector for the whole process, after
    // which every typed array access checks its buffer (a cache miss more on a cold key: verify-pool.ts).
    const transfers: unknown[] = [];
    const post = Worker.prototype.postMessage;
    t.mock.method(Worker.prototype, "postMessage", function (this: Worker, value: unknown, transferList?: unknown) {
      if (transferList !== undefined) transfers.push(transferList);
      return post.call(this, value, transferList as never);
    });
    const key = testKey("verify-pool-no-transfer");
    const message = new TextEncoder().encode("sign me too");
    const good = signSecp256k1(key.privateKey, message);
    const jobs = Array.from({ length: 40 }, () => ({ publicKey: key.publicKey, message, signature: good }));
    assert.deepEqual(await verifyBatch(jobs), Array(40).fill(true));
    assert.deepEqual(transfers, []);
  });
});
