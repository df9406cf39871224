import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { KEEP_ALL } from "../../test/support/store/helpers.ts";
import { LeafHasher, MIN_PARALLEL_LEAVES } from "./leaf-hasher.ts";
import { openMultiStore } from "./multistore.ts";
import { type LeafNode, leafHashOfValue } from "./tree-node.ts";

interface Write {
  leaf: LeafNode;
  value: Uint8Array;
}

/** `count` leaves of random keys and values (lengths vary, empty values included). */
function writes(count: number, version: number, valueSize = (i: number) => (i * 37) % 300): Write[] {
  return Array.from({ length: count }, (_, i) => ({
    leaf: { kind: 0, key: new Uint8Array(randomBytes(1 + (i % 70))), version, writeNo: 1, hash: "" },
    value: new Uint8Array(randomBytes(valueSize(i))),
  }));
}

/** Runs one job through the hasher and checks every leaf against the one-thread hash. */
function hashAndCheck(hasher: LeafHasher, job: Write[]): void {
  hasher.begin(job.length);
  for (const w of job) hasher.add(w.leaf, w.value);
  hasher.finish();
  for (const w of job) assert.equal(w.leaf.hash, leafHashOfValue(w.leaf.key, w.value, w.leaf.version));
}

test("leaves hashed on two threads get the hashes one thread computes, job after job", async () => {
  const hasher = new LeafHasher(true);
  try {
    // Until the worker has taken part (it starts with the first large job), then a few more jobs.
    let extra = 3;
    for (let job = 1; extra > 0; job++) {
      hashAndCheck(hasher, writes(MIN_PARALLEL_LEAVES + ((job * 977) % 3000), job * 1000 + 1));
      if (hasher.workerChunks > 0) extra--;
      assert.ok(job < 300, "the worker never took a chunk");
      await sleep(1);
    }
    // A small job (this thread only), a large one with no sets, then a large one again.
    hashAndCheck(hasher, writes(10, 7));
    hasher.begin(5000);
    hasher.finish();
    hashAndCheck(hasher, writes(4000, 2 ** 40));
  } finally {
    await hasher.close();
  }
});

test("an idle worker stops, and the next large commit starts one again", async () => {
  const hasher = new LeafHasher(true, 50);
  try {
    hashAndCheck(hasher, writes(MIN_PARALLEL_LEAVES, 1));
    assert.equal(hasher.workerRunning, true);
    while (hasher.workerRunning) await sleep(10);
    hashAndCheck(hasher, writes(10, 2));
    assert.equal(hasher.workerRunning, false);
    hashAndCheck(hasher, writes(MIN_PARALLEL_LEAVES + 1, 3));
    assert.equal(hasher.workerRunning, true);
  } finally {
    await hasher.close();
  }
});

test("a job larger than the shared buffers hashes the rest on this thread", async () => {
  const hasher = new LeafHasher(true);
  try {
    // 4,200 values of 2.5 kB: past the 8 MiB of record space.
    hashAndCheck(
      hasher,
      writes(MIN_PARALLEL_LEAVES + 100, 3, () => 2_500),
    );
  } finally {
    await hasher.close();
  }
});

test("a full job says so, and a job begun after it is not full (a streamed stage ends the job there)", async () => {
  const hasher = new LeafHasher(true);
  try {
    const job = writes(MIN_PARALLEL_LEAVES + 100, 4, () => 2_500);
    hasher.begin(job.length * 2);
    let fullAt = -1;
    for (let i = 0; i < job.length; i++) {
      hasher.add(job[i].leaf, job[i].value);
      if (fullAt < 0 && hasher.full) fullAt = i;
    }
    // 8 MiB of record space hold ~3,340 such records: the first one past them is hashed here and the job is full.
    assert.ok(fullAt > 3000 && fullAt < job.length, `full at ${fullAt}`);
    assert.equal(job[fullAt].leaf.hash, leafHashOfValue(job[fullAt].leaf.key, job[fullAt].value, 4));
    hasher.finish();
    for (const w of job) assert.equal(w.leaf.hash, leafHashOfValue(w.leaf.key, w.value, 4));
    hasher.begin(job.length);
    assert.equal(hasher.full, false);
    hasher.finish();
    // A job on this thread alone (below the worker's size) is never full.
    const small = writes(100, 5);
    hasher.begin(small.length);
    for (const w of small) hasher.add(w.leaf, w.value);
    assert.equal(hasher.full, false);
    hasher.finish();
  } finally {
    await hasher.close();
  }
});

test("without a worker (and after close) the same hashes come from this thread alone", async () => {
  const alone = new LeafHasher(false);
  hashAndCheck(alone, writes(3000, 9));
  assert.equal(alone.workerChunks, 0);
  await alone.close();
  const closed = new LeafHasher(true);
  await closed.close();
  hashAndCheck(closed, writes(3000, 10));
  assert.equal(closed.workerChunks, 0);
});

test("a store commits the same app hashes with and without the leaf-hash worker", async () => {
  const options = { backend: "memory" as const, storeNames: ["a", "bank"], pruning: KEEP_ALL };
  const withWorker = await openMultiStore(options);
  const without = await openMultiStore({ ...options, leafHashWorker: false });
  try {
    const keys = Array.from({ length: 6000 }, (_, i) => new TextEncoder().encode(`key-${(i * 7919) % 6000}`));
    for (let block = 1; block <= 6; block++) {
      const values = keys.map(() => new Uint8Array(randomBytes(40)));
      const hashes: string[] = [];
      for (const store of [withWorker, without]) {
        const branch = store.branch();
        for (let i = 0; i < keys.length; i += block) branch.store("bank").set(keys[i], values[i]);
        for (let i = 0; i < 50; i++) branch.store("a").set(keys[i], values[i]);
        if (block > 2) for (let i = 1; i < keys.length; i += 5) branch.store("bank").delete(keys[i]);
        hashes.push(Buffer.from((await store.stage(branch)).appHash).toString("hex"));
        await store.commit();
      }
      assert.equal(hashes[0], hashes[1], `block ${block}`);
    }
  } finally {
    await withWorker.close();
    await without.close();
  }
});
