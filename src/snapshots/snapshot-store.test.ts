// The snapshot store's own defence (docs/CONTRACT.md §13: nothing outside data/snapshots is touched): whatever its
// callers pass, it builds paths only from a uint64 height above 0 and a uint32 format, and only inside its folder.
import assert from "node:assert/strict";
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "../../test/support/node/chaind.ts";
import { SnapshotError } from "./errors.ts";
import { SnapshotStore } from "./snapshot-store.ts";

async function* chunks(): AsyncGenerator<Uint8Array> {
  yield new TextEncoder().encode("a chunk");
}

test("the store refuses heights and formats that are not valid integers, and never leaves its folder", async () => {
  const dir = await tempDir("chaind-snapshot-store-");
  try {
    const store = new SnapshotStore(join(dir.path, "snapshots"));
    const outside = `../../${"../".repeat(20)}${dir.path.slice(1)}/victim`;
    const bad: [bigint, unknown][] = [
      [0n, 1],
      [-5n, 1],
      [2n ** 64n, 1],
      [10n ** 26n, 1],
      [1n, -1],
      [1n, 1.5],
      [1n, 2 ** 32],
      [1n, Number.NaN],
      [1n, "1"],
      [1n, outside],
    ];
    for (const [height, format] of bad) {
      assert.throws(() => store.folder(height, format as number), SnapshotError);
      await assert.rejects(store.save(height, format as number, chunks()), SnapshotError);
      assert.equal(await store.loadChunk(height, format as number, 0), undefined);
    }
    assert.throws(() => store.sidecar(1n, 1, "../escape"), SnapshotError);
    assert.deepEqual(await readdir(dir.path), [], "something was created");

    // Folders whose names are not canonical numbers are not snapshots.
    await store.save(5n, 1, chunks());
    for (const name of ["007", "-5", "5e0"]) {
      await mkdir(join(store.dir, name, "1"), { recursive: true });
      await writeFile(join(store.dir, name, "1", "snapshot.json"), "{}");
    }
    assert.deepEqual(
      (await store.list()).map((s) => `${s.height}/${s.format}`),
      ["5/1"],
    );
  } finally {
    await dir.remove();
  }
});

test("chunks() yields each chunk checked (read ahead of the reader) and stops at a damaged or missing one", async () => {
  const dir = await tempDir("chaind-snapshot-store-");
  try {
    const store = new SnapshotStore(join(dir.path, "snapshots"));
    const texts = ["first chunk", "second chunk", "third chunk"];
    async function* three(): AsyncGenerator<Uint8Array> {
      for (const t of texts) yield new TextEncoder().encode(t);
    }
    const info = await store.save(7n, 1, three());
    const read = async () => {
      const seen: string[] = [];
      try {
        for await (const chunk of store.chunks(info)) seen.push(new TextDecoder().decode(chunk));
        return { seen };
      } catch (err) {
        return { seen, error: (err as Error).message };
      }
    };
    assert.deepEqual(await read(), { seen: texts });
    await writeFile(join(store.folder(7n, 1), "1"), "second chunK");
    assert.deepEqual(await read(), { seen: [texts[0]], error: "chunk 1 of snapshot 7/1 does not match its hash" });
    await writeFile(join(store.folder(7n, 1), "1"), texts[1]);
    await rm(join(store.folder(7n, 1), "2"));
    assert.deepEqual(await read(), { seen: texts.slice(0, 2), error: "chunk 2 of snapshot 7/1 is missing" });
  } finally {
    await dir.remove();
  }
});
