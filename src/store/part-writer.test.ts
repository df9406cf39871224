// PartWriter: rows in parts of a bounded size, each written while the next fills, at most two parts alive.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { KVBackend, KVBatch } from "./kv-backend.ts";
import { PartWriter } from "./part-writer.ts";

interface FakeWrite {
  rows: string[];
  sync: boolean;
  done: () => void;
  fail: (err: Error) => void;
}

/** A backend whose batches record their rows and whose part writes finish when the test says so. */
function fakeBackend(withParts: boolean) {
  const writes: FakeWrite[] = [];
  let batches = 0;
  let closed = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const backend = {
    batch: (): KVBatch => {
      batches++;
      let rows: string[] = [];
      const write = (sync: boolean) =>
        new Promise<void>((resolve, reject) => {
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          const taken = rows;
          rows = [];
          writes.push({
            rows: taken,
            sync,
            done: () => {
              inFlight--;
              resolve();
            },
            fail: (err) => {
              inFlight--;
              reject(err);
            },
          });
        });
      return {
        put: (key, value) => rows.push(`${key[0]}=${value[0]}`),
        del: () => assert.fail("no deletes"),
        write,
        close: async () => {
          closed++;
        },
        writePart: withParts ? write : undefined,
      };
    },
  } as unknown as KVBackend;
  return {
    backend,
    writes,
    batches: () => batches,
    closed: () => closed,
    maxInFlight: () => maxInFlight,
  };
}

const row = (n: number) => [new Uint8Array([n]), new Uint8Array([n])] as const;

/** Lets pending promise callbacks run. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Waits until the fake has seen `n` writes. */
async function writesSeen(fake: { writes: FakeWrite[] }, n: number): Promise<void> {
  for (let i = 0; i < 100 && fake.writes.length < n; i++) await turn();
  assert.equal(fake.writes.length, n);
}

test("parts of the given size, in order, each written while the next fills; at most two alive", async () => {
  const fake = fakeBackend(true);
  // Rows of 2 bytes, parts of 4.
  const parts = new PartWriter(fake.backend, 4, true);
  parts.put(...row(0));
  assert.equal(parts.full, false);
  parts.put(...row(1));
  assert.equal(parts.full, true);
  await parts.rotate();
  await writesSeen(fake, 1);
  assert.deepEqual(fake.writes[0].rows, ["0=0", "1=1"]);
  assert.equal(fake.writes[0].sync, true);
  // The next part fills while the first is written; its own write waits for the first's.
  parts.put(...row(2));
  parts.put(...row(3));
  const second = parts.rotate();
  await turn();
  assert.equal(fake.writes.length, 1, "two parts alive at most");
  fake.writes[0].done();
  await second;
  await writesSeen(fake, 2);
  assert.deepEqual(fake.writes[1].rows, ["2=2", "3=3"]);
  parts.put(...row(4));
  const finished = parts.finish();
  await turn();
  assert.equal(fake.writes.length, 2, "the last part waits for the one before it");
  fake.writes[1].done();
  await writesSeen(fake, 3);
  assert.deepEqual(fake.writes[2].rows, ["4=4"]);
  fake.writes[2].done();
  await finished;
  assert.equal(fake.batches(), 2, "two native batches, taking turns");
  assert.equal(fake.maxInFlight(), 1);
  assert.equal(fake.closed(), 2, "both released at the end");
  assert.equal(parts.partsStarted, 3);
});

test("a failed part is reported by the next rotate or finish; abandon never rejects", async () => {
  const fake = fakeBackend(true);
  const parts = new PartWriter(fake.backend, 2, false);
  parts.put(...row(1));
  await parts.rotate();
  fake.writes[0].fail(new Error("disk full"));
  parts.put(...row(2));
  await assert.rejects(parts.rotate(), /disk full/);
  await parts.abandon();
  assert.equal(fake.closed(), 2);

  const other = fakeBackend(true);
  const second = new PartWriter(other.backend, 2, false);
  second.put(...row(1));
  await second.rotate();
  const abandoned = second.abandon();
  other.writes[0].fail(new Error("disk full"));
  await abandoned;
});

test("a backend without writePart writes each part as a batch of its own", async () => {
  const fake = fakeBackend(false);
  const parts = new PartWriter(fake.backend, 2, true);
  for (let n = 0; n < 3; n++) {
    parts.put(...row(n));
    await parts.rotate();
    await writesSeen(fake, n + 1);
    fake.writes[n].done();
  }
  await parts.finish();
  assert.deepEqual(
    fake.writes.map((w) => w.rows),
    [["0=0"], ["1=1"], ["2=2"]],
  );
  assert.equal(fake.batches(), 4, "a batch a part, and the empty one left at the end");
  assert.equal(fake.closed(), 1, "the written ones ended with their write; the empty one is closed");
});
