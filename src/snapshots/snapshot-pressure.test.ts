// The snapshot manager and restores from chunks under pressure (round 3 session 27's review): back-to-back commits
// with keep-recent 1, a stop mid-snapshot, damaged chunks, a height snapshotted twice, a failed prune of old ones.
import assert from "node:assert/strict";
import { readdir, readFile, rm, symlink, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { pino } from "pino";
import { pollUntil, tempDir } from "../../test/support/node/chaind.ts";
import { toHex } from "../bytes/hex.ts";
import { type MultiStore, openMultiStore } from "../store/index.ts";
import { createSnapshot } from "./create-snapshot.ts";
import { installState } from "./install-state.ts";
import { SnapshotManager } from "./snapshot-manager.ts";
import { type SnapshotInfo, SnapshotStore } from "./snapshot-store.ts";
import { decodeChunks } from "./stream-format.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const NAMES = ["acc", "bank"];

async function commit(store: MultiStore, v: number, keys = 30): Promise<void> {
  const block = store.branch();
  for (let i = 0; i < keys; i++) block.store("bank").set(bytes(`k${(v * 7 + i) % 97}`), bytes(`${v}:${i}`));
  if (v % 2 === 0) block.store("bank").delete(bytes(`k${(v * 3) % 97}`));
  block.store("acc").set(bytes(`a${v % 5}`), bytes(`${v}`));
  await store.stage(block);
  await store.commit();
}

function logLines() {
  const lines: string[] = [];
  return { lines, logger: pino({ level: "info" }, { write: (line: string) => void lines.push(line) }) };
}

test("a background snapshot of H survives two back-to-back commits with keep-recent 1 (its hold is taken at its first read, in time here)", async () => {
  const dir = await tempDir("chaind-review-snap-hold-");
  const store = await openMultiStore({
    path: join(dir.path, "app.db"),
    storeNames: NAMES,
    pruning: { strategy: "custom", keepRecent: 1n, interval: 1n },
  });
  try {
    const { lines, logger } = logLines();
    const manager = new SnapshotManager({
      snapshots: new SnapshotStore(join(dir.path, "snapshots")),
      state: () => store,
      interval: 5n,
      keepRecent: 0,
      chunkSize: 256,
      logger,
    });
    for (let v = 1; v <= 5; v++) await commit(store, v);
    manager.afterCommit(5n); // "starts a snapshot of that height in the background"
    // Blocks keep coming (a node catching up commits back to back).
    await commit(store, 6);
    await commit(store, 7);
    await manager.idle();
    const failed = lines.filter((l) => l.includes("failed to create a snapshot"));
    assert.deepEqual(
      failed.map((l) => (JSON.parse(l) as { err: { message: string } }).err.message),
      [],
      "the snapshot of 5 failed",
    );
    assert.deepEqual(
      (await manager.snapshots.list()).map((s) => s.height),
      [5n],
    );
  } finally {
    await store.close();
    await dir.remove();
  }
});

test("stop() mid-snapshot releases the held height: pruning goes past it at the next commit; nothing is left on disk", async () => {
  const dir = await tempDir("chaind-review-snap-stop-");
  const store = await openMultiStore({
    path: join(dir.path, "app.db"),
    storeNames: NAMES,
    pruning: { strategy: "custom", keepRecent: 1n, interval: 1n },
  });
  try {
    const block = store.branch();
    for (let i = 0; i < 5000; i++) block.store("bank").set(bytes(`key-${i}`), bytes(`value-${i}`));
    await store.stage(block);
    await store.commit();
    const snapshotsDir = join(dir.path, "snapshots");
    const { lines, logger } = logLines();
    const manager = new SnapshotManager({
      snapshots: new SnapshotStore(snapshotsDir),
      state: () => store,
      interval: 1n,
      keepRecent: 0,
      duty: 0.01,
      logger,
    });
    manager.afterCommit(1n);
    await pollUntil(
      async () => ((await readdir(snapshotsDir).catch(() => [])).some((n) => n.startsWith(".tmp-")) ? true : undefined),
      { what: "the snapshot's temporary folder", timeoutMs: 20_000, intervalMs: 5 },
    );
    for (let v = 2; v <= 4; v++) await commit(store, v);
    assert.equal(store.earliestVersion(), 1n, "held while the snapshot reads");
    await manager.stop();
    await commit(store, 5);
    assert.equal(store.earliestVersion(), 4n, "released");
    assert.deepEqual(await readdir(snapshotsDir), []);
    assert.ok(lines.some((l) => l.includes("snapshot cancelled")));
  } finally {
    await store.close();
    await dir.remove();
  }
});

async function snapshotOf(dir: string): Promise<{ snapshots: SnapshotStore; info: SnapshotInfo; appHash: string }> {
  const store = await openMultiStore({
    path: join(dir, "source.db"),
    storeNames: NAMES,
    pruning: { strategy: "nothing", keepRecent: 0n, interval: 0n },
  });
  try {
    for (let v = 1; v <= 8; v++) await commit(store, v);
    const snapshots = new SnapshotStore(join(dir, "snapshots"));
    const info = await createSnapshot(store, snapshots, 8n, 128);
    return { snapshots, info, appHash: toHex(store.lastCommit().appHash) };
  } finally {
    await store.close();
  }
}

test("a restore from chunks with a corrupted, truncated or missing chunk fails with a clear error and leaves nothing half-valid", async () => {
  const dir = await tempDir("chaind-review-restore-");
  try {
    const { snapshots, info, appHash } = await snapshotOf(dir.path);
    assert.ok(info.chunks >= 4, `chunks: ${info.chunks}`);
    const db = join(dir.path, "application.db");
    // An existing (empty, fresh) application store stays as it was on every failure.
    await (await openMultiStore({ path: db, storeNames: NAMES })).close();
    const folder = snapshots.folder(8n, 1);
    const lastName = String(info.chunks - 1);
    const original = await readFile(join(folder, "2"));
    const originalLast = await readFile(join(folder, lastName));
    const damages: [string, () => Promise<void>, RegExp][] = [
      [
        "corrupted",
        () => writeFile(join(folder, "2"), Buffer.from(original).fill(7, 10, 20)),
        /chunk 2 .* does not match its hash/,
      ],
      ["truncated", () => truncate(join(folder, "2"), 100), /chunk 2 .* does not match its hash/],
      ["missing", () => rm(join(folder, "2")), /chunk 2 .* is missing/],
      ["last truncated", () => truncate(join(folder, lastName), 1), /does not match its hash/],
    ];
    for (const [what, damage, pattern] of damages) {
      await damage();
      await assert.rejects(
        installState({
          applicationDb: db,
          height: 8n,
          items: decodeChunks(snapshots.chunks(info)),
          storeNames: NAMES,
        }),
        pattern,
        what,
      );
      assert.deepEqual(
        (await readdir(dir.path)).filter((n) => n.startsWith("application.db")),
        ["application.db"],
        `${what}: a restoring or replaced folder is left`,
      );
      const store = await openMultiStore({ path: db, storeNames: NAMES });
      assert.equal(store.lastCommit().version, 0n, `${what}: the application store changed`);
      await store.close();
      await writeFile(join(folder, "2"), original);
      await writeFile(join(folder, lastName), originalLast);
    }
    // Undamaged again: the snapshot restores whole.
    const restored = await installState({
      applicationDb: db,
      height: 8n,
      items: decodeChunks(snapshots.chunks(info)),
      storeNames: NAMES,
    });
    assert.equal(toHex(restored.appHash), appHash);
  } finally {
    await dir.remove();
  }
});

test("the same height snapshotted twice: the second replaces the first, and an old-snapshot prune during a snapshot touches only finished ones", async () => {
  const dir = await tempDir("chaind-review-twice-");
  const store = await openMultiStore({
    path: join(dir.path, "app.db"),
    storeNames: NAMES,
    pruning: { strategy: "nothing", keepRecent: 0n, interval: 0n },
  });
  try {
    for (let v = 1; v <= 5; v++) await commit(store, v);
    {
      const block = store.branch(); // 6: many keys, so a paced snapshot of it takes a while
      for (let i = 0; i < 4000; i++) block.store("acc").set(bytes(`many-${i}`), bytes(`${i}`));
      await store.stage(block);
      await store.commit();
    }
    const snapshots = new SnapshotStore(join(dir.path, "snapshots"));
    const first = await createSnapshot(store, snapshots, 4n, 256);
    const second = await createSnapshot(store, snapshots, 4n, 256);
    assert.equal(toHex(second.hash), toHex(first.hash));
    await createSnapshot(store, snapshots, 5n, 256);
    // A paced snapshot of 6 in progress while old ones are pruned to 1.
    const controller = new AbortController();
    const slow = createSnapshot(store, snapshots, 6n, 256, { duty: 0.2, signal: controller.signal });
    await pollUntil(
      async () => ((await readdir(snapshots.dir)).some((n) => n.startsWith(".tmp-6-")) ? true : undefined),
      { what: "the temporary folder of 6", timeoutMs: 20_000, intervalMs: 5 },
    );
    const pruned = await snapshots.prune(1);
    assert.deepEqual(
      pruned.map((s) => s.height),
      [4n],
    );
    const six = await slow;
    assert.deepEqual(
      (await snapshots.list()).map((s) => s.height),
      [6n, 5n],
    );
    // Both complete snapshots restore.
    for (const info of [six, (await snapshots.get(5n, 1)) as SnapshotInfo]) {
      const db = join(dir.path, `restored-${info.height}`);
      const r = await installState({
        applicationDb: db,
        height: info.height,
        items: decodeChunks(snapshots.chunks(info)),
        storeNames: NAMES,
      });
      assert.equal(toHex(r.appHash), toHex((await store.view(info.height)).appHash as Uint8Array));
    }
  } finally {
    await store.close();
    await dir.remove();
  }
});

test("a failure to delete old snapshots is reported as that, not as a failed snapshot", async () => {
  const dir = await tempDir("chaind-review-prune-fail-");
  const store = await openMultiStore({
    path: join(dir.path, "app.db"),
    storeNames: NAMES,
    pruning: { strategy: "nothing", keepRecent: 0n, interval: 0n },
  });
  try {
    for (let v = 1; v <= 3; v++) await commit(store, v);
    const snapshots = new SnapshotStore(join(dir.path, "snapshots"));
    // An old snapshot whose height folder is a link (an operator moved it): listed, but never deleted through it.
    const elsewhere = new SnapshotStore(join(dir.path, "elsewhere"));
    await createSnapshot(store, elsewhere, 1n, 256);
    await createSnapshot(store, snapshots, 2n, 256);
    await symlink(join(elsewhere.dir, "1"), join(snapshots.dir, "1"));
    const { lines, logger } = logLines();
    const results: string[] = [];
    const manager = new SnapshotManager({
      snapshots,
      state: () => store,
      interval: 3n,
      keepRecent: 1,
      chunkSize: 256,
      logger,
      onSnapshot: (result) => results.push(result),
    });
    manager.afterCommit(3n);
    await manager.idle();
    assert.ok(await snapshots.get(3n, 1), "the snapshot of 3 exists");
    assert.deepEqual(
      {
        results,
        failedLogged: lines.some((l) => l.includes("failed to create a snapshot")),
        pruneFailureLogged: lines.some((l) => l.includes("failed to delete old snapshots")),
      },
      { results: ["ok"], failedLogged: false, pruneFailureLogged: true },
    );
  } finally {
    await store.close();
    await dir.remove();
  }
});
