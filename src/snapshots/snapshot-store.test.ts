// The snapshot store's own defence (docs/CONTRACT.md §13: nothing outside data/snapshots is touched): whatever its
// callers pass, it builds paths only from a uint64 height above 0 and a uint32 format, and only inside its folder.
import assert from "node:assert/strict";
import { mkdir, readdir, readFile, readlink, rm, symlink, writeFile } from "node:fs/promises";
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

/** name → content of every file under `at` (recursively; a link as `-> target`), for "left untouched". */
async function contents(at: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(at, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    const name = path.slice(at.length + 1);
    if (entry.isSymbolicLink()) out[name] = `-> ${await readlink(path)}`;
    else if (entry.isFile()) out[name] = await readFile(path, "utf8");
    else out[`${name}/`] = "";
  }
  return out;
}

test("save never deletes a folder at its height and format that is not a snapshot it wrote (docs/CONTRACT.md §13)", async () => {
  const dir = await tempDir("chaind-snapshot-store-");
  try {
    const store = new SnapshotStore(join(dir.path, "snapshots"));
    const ours = await store.save(5n, 1, chunks());
    const damaged = await store.save(9n, 1, chunks());
    const foreign: [string, () => Promise<void>, RegExp][] = [
      [
        "6/1",
        async () => {
          await mkdir(join(store.dir, "6", "1"), { recursive: true });
          await writeFile(join(store.dir, "6", "1", "notes.txt"), "the operator's");
        },
        /it holds no snapshot\.json/,
      ],
      [
        "7/1",
        async () => {
          await mkdir(join(store.dir, "7", "1"), { recursive: true });
        },
        /it holds no snapshot\.json/,
      ],
      [
        "8/1",
        async () => {
          await mkdir(join(store.dir, "8", "1"), { recursive: true });
          await writeFile(join(store.dir, "8", "1", "snapshot.json"), "{ not json");
          await writeFile(join(store.dir, "8", "1", "0"), "a chunk");
        },
        /its snapshot\.json is not a valid descriptor of snapshot 8\/1/,
      ],
      // Our descriptor, but a file of someone else's beside it: that file is not ours to delete.
      ["5/1", () => writeFile(join(store.dir, "5", "1", "notes.txt"), "the operator's"), /it also holds "notes\.txt"/],
      // A chunk file the descriptor does not list.
      ["9/1", () => writeFile(join(store.dir, "9", "1", "1"), "not listed"), /it also holds "1"/],
      [
        "10/1",
        async () => {
          await mkdir(join(store.dir, "10"), { recursive: true });
          await writeFile(join(store.dir, "10", "1"), "a file, not a folder");
        },
        /it is not a folder/,
      ],
      [
        "11/1",
        async () => {
          await mkdir(join(dir.path, "elsewhere"));
          await writeFile(join(dir.path, "elsewhere", "precious"), "keep me");
          await mkdir(join(store.dir, "11"), { recursive: true });
          await symlink(join(dir.path, "elsewhere"), join(store.dir, "11", "1"));
        },
        /it is not a folder/,
      ],
    ];
    for (const [, make] of foreign) await make();
    const before = await contents(dir.path);
    for (const [where, , why] of foreign) {
      const [height, format] = where.split("/").map(Number) as [number, number];
      await assert.rejects(store.save(BigInt(height), format, chunks()), (err: unknown) => {
        assert.ok(err instanceof SnapshotError, String(err));
        assert.ok(
          err.message.startsWith(`${join(store.dir, where)} already exists and is not a snapshot chaind wrote (`),
          err.message,
        );
        assert.match(err.message, why);
        assert.match(err.message, /left untouched: move it away or remove it first$/);
        return true;
      });
    }
    assert.deepEqual(await contents(dir.path), before, "a refused save changed a file (or left a temporary)");
    assert.deepEqual((await store.get(5n, 1))?.hash, ours.hash);

    // A snapshot it wrote is replaced as before, even one whose chunk went missing, and a temporary a kill left
    // beside its descriptor goes with it.
    await rm(join(store.dir, "5", "1", "notes.txt"));
    await writeFile(join(store.dir, "5", "1", "snapshot.json.tmp-123-abcdef"), "half written");
    await rm(join(store.dir, "9", "1", "1"));
    await rm(join(store.dir, "9", "1", "0"));
    async function* other(): AsyncGenerator<Uint8Array> {
      yield new TextEncoder().encode("another chunk");
    }
    const replaced = await store.save(5n, 1, other());
    assert.notDeepEqual(replaced.hash, ours.hash);
    assert.deepEqual((await readdir(store.folder(5n, 1))).sort(), ["0", "snapshot.json"]);
    assert.deepEqual((await store.save(9n, 1, chunks())).hash, damaged.hash);
    assert.deepEqual((await readdir(store.folder(9n, 1))).sort(), ["0", "snapshot.json"]);
  } finally {
    await dir.remove();
  }
});

test("save checks the folder again before it swaps the new snapshot in: one that appeared meanwhile is kept", async () => {
  const dir = await tempDir("chaind-snapshot-store-");
  try {
    const store = new SnapshotStore(join(dir.path, "snapshots"));
    async function* meanwhile(): AsyncGenerator<Uint8Array> {
      yield new TextEncoder().encode("a chunk");
      await mkdir(join(store.dir, "6", "1"), { recursive: true });
      await writeFile(join(store.dir, "6", "1", "notes.txt"), "the operator's");
    }
    await assert.rejects(store.save(6n, 1, meanwhile()), /snapshots\/6\/1 already exists and is not a snapshot/);
    assert.deepEqual(await contents(store.dir), { "6/": "", "6/1/": "", "6/1/notes.txt": "the operator's" });
  } finally {
    await dir.remove();
  }
});

test("a height or format folder that is a symbolic link out of the store is neither written through nor deleted through", async () => {
  const dir = await tempDir("chaind-snapshot-store-");
  try {
    const store = new SnapshotStore(join(dir.path, "snapshots"));
    const victim = join(dir.path, "victim");
    const source = new SnapshotStore(join(dir.path, "elsewhere"));
    // A whole snapshot outside the store, reached through a link at the height folder and one at the format folder.
    await source.save(3n, 1, chunks());
    await mkdir(store.dir, { recursive: true });
    await symlink(join(source.dir, "3"), join(store.dir, "3"));
    await mkdir(join(store.dir, "4"));
    await symlink(join(source.dir, "3", "1"), join(store.dir, "4", "1"));
    await mkdir(victim);
    await symlink(victim, join(store.dir, "6"));
    const before = await readdir(join(source.dir, "3", "1"));

    await assert.rejects(store.delete(3n, 1), /snapshots\/3 is a symbolic link; .* left untouched/);
    await assert.rejects(store.save(3n, 1, chunks()), /snapshots\/3 is a symbolic link/);
    // The format folder's link points at a folder whose descriptor says 3/1, so get() refuses it before delete does.
    await assert.rejects(store.save(4n, 1, chunks()), SnapshotError);
    await assert.rejects(store.save(6n, 1, chunks()), /snapshots\/6 is a symbolic link/);

    assert.deepEqual(await readdir(join(source.dir, "3", "1")), before);
    assert.deepEqual(await readdir(victim), [], "something was written through the link");
    assert.equal(await readlink(join(store.dir, "3")), join(source.dir, "3"));
    assert.equal(await readlink(join(store.dir, "6")), victim);
    assert.deepEqual(
      (await readdir(store.dir)).filter((name) => name.startsWith(".tmp")),
      [],
      "a work folder was left",
    );
  } finally {
    await dir.remove();
  }
});
