import assert from "node:assert/strict";
import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { pino } from "pino";
import { pollUntil, tempDir } from "../../test/support/node/chaind.ts";
import { openMultiStore } from "../store/index.ts";
import { SnapshotManager } from "./snapshot-manager.ts";
import { SnapshotStore } from "./snapshot-store.ts";
import { decodeChunks, encodeChunks } from "./stream-format.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

test("snapshots every interval heights, keeping the newest snapshot-keep-recent", async () => {
  const dir = await tempDir("chaind-snapshot-manager-");
  const store = await openMultiStore({
    path: join(dir.path, "app.db"),
    storeNames: ["bank"],
    pruning: { strategy: "custom", keepRecent: 1n, interval: 1n },
  });
  try {
    const snapshots = new SnapshotStore(join(dir.path, "snapshots"));
    const manager = new SnapshotManager({
      snapshots,
      state: () => store,
      interval: 3n,
      keepRecent: 2,
      chunkSize: 64,
      logger: pino({ level: "silent" }),
    });
    for (let v = 1; v <= 10; v++) {
      const block = store.branch();
      for (let i = 0; i < 10; i++) block.store("bank").set(bytes(`k${i}`), bytes(`${v}`));
      await store.stage(block);
      await store.commit();
      manager.afterCommit(BigInt(v));
      await manager.idle();
    }
    assert.deepEqual(
      (await snapshots.list()).map((s) => s.height),
      [9n, 6n],
    );
    const nine = (await snapshots.get(9n, 1)) as NonNullable<Awaited<ReturnType<SnapshotStore["get"]>>>;
    assert.ok(nine.chunks > 1);
    // A damaged chunk file is caught when the snapshot is read back.
    await writeFile(join(snapshots.folder(9n, 1), "0"), "damaged");
    await assert.rejects(async () => {
      for await (const _ of snapshots.chunks(nine)) {
      }
    }, /chunk 0 of snapshot 9\/1 does not match its hash/);
    await snapshots.delete(9n, 1);
    assert.deepEqual(
      (await snapshots.list()).map((s) => s.height),
      [6n],
    );
  } finally {
    await store.close();
    await dir.remove();
  }
});

test("the stream format round-trips across any chunk size, and a truncated stream is refused", async () => {
  const items = [
    { kind: "store" as const, name: "bank" },
    { kind: "leaf" as const, key: bytes("a"), value: new Uint8Array(300).fill(7), version: 3 },
    { kind: "leaf" as const, key: bytes("b"), value: bytes(""), version: 200 },
    { kind: "inner" as const, version: 200, height: 1 },
    { kind: "store" as const, name: "empty" },
  ];
  async function* source() {
    yield items.slice(0, 2);
    yield items.slice(2);
  }
  for (const size of [1, 7, 64, 1 << 20]) {
    const chunks: Uint8Array[] = [];
    for await (const c of encodeChunks(source(), size)) chunks.push(c);
    const back = [];
    for await (const batch of decodeChunks(chunks)) back.push(...batch);
    assert.deepEqual(back, items, `chunk size ${size}`);
    if (size === 64) {
      await assert.rejects(async () => {
        for await (const _ of decodeChunks(chunks.slice(0, -1))) {
        }
      }, /ends inside an item/);
    }
  }
});

test("CHAIND_SNAPSHOT_CHUNK_BYTES: a size in range is used, anything else is ignored with a warning", async () => {
  const { chunkSizeFromEnv } = await import("./node-snapshots.ts");
  const warnings: string[] = [];
  const warn = (m: string) => warnings.push(m);
  assert.equal(chunkSizeFromEnv(warn, {}), undefined);
  assert.equal(chunkSizeFromEnv(warn, { CHAIND_SNAPSHOT_CHUNK_BYTES: "4096" }), 4096);
  assert.equal(chunkSizeFromEnv(warn, { CHAIND_SNAPSHOT_CHUNK_BYTES: "12" }), undefined);
  assert.equal(chunkSizeFromEnv(warn, { CHAIND_SNAPSHOT_CHUNK_BYTES: "4k" }), undefined);
  assert.equal(warnings.length, 2);
  assert.match(warnings[0], /CHAIND_SNAPSHOT_CHUNK_BYTES=12 ignored: expected a whole number of bytes from 1024/);
});

// A stopping node must not wait for a paced snapshot (minutes on a large state, longer than a supervisor's grace):
// stop() cancels it, removes its temporary folder and lets go of the state.
test("stop() cancels a snapshot in progress: no snapshot is listed and its temporary folder is gone", async () => {
  const dir = await tempDir("chaind-snapshot-cancel-");
  const store = await openMultiStore({ path: join(dir.path, "app.db"), storeNames: ["bank"] });
  try {
    const block = store.branch();
    // Many export batches (1,000 items each), so a snapshot paced at 1% duty takes far longer than the test.
    for (let i = 0; i < 20_000; i++) block.store("bank").set(bytes(`key-${i}`), bytes(`value-${i}`));
    await store.stage(block);
    await store.commit();
    const snapshotsDir = join(dir.path, "snapshots");
    const lines: string[] = [];
    const manager = new SnapshotManager({
      snapshots: new SnapshotStore(snapshotsDir),
      state: () => store,
      interval: 1n,
      keepRecent: 0,
      duty: 0.01,
      logger: pino({ level: "info" }, { write: (line: string) => void lines.push(line) }),
    });
    manager.afterCommit(1n);
    await pollUntil(
      async () => ((await readdir(snapshotsDir).catch(() => [])).some((n) => n.startsWith(".tmp-")) ? true : undefined),
      { what: "the snapshot's temporary folder" },
    );
    await manager.stop();
    assert.deepEqual(await readdir(snapshotsDir), [], "a snapshot or its temporary folder is left");
    assert.ok(
      lines.some((l) => l.includes("snapshot cancelled")),
      lines.join(""),
    );
    manager.afterCommit(2n); // a stopped manager starts no more
    await manager.idle();
    assert.deepEqual(await readdir(snapshotsDir), []);
  } finally {
    await store.close();
    await dir.remove();
  }
});
