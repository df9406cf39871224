// The unpacker tells an archive that is not a snapshot from a file system that refused the unpacked files.
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { create as createTar } from "tar";
import { tempDir } from "../../test/support/node/chaind.ts";
import { SnapshotError } from "./errors.ts";
import { unpackSnapshotArchive } from "./unpack-archive.ts";

test("a write the file system refuses is named as such, not blamed on the archive", async () => {
  const dir = await tempDir("chaind-unpack-archive-");
  try {
    const files = join(dir.path, "files");
    await mkdir(files);
    await writeFile(join(files, "snapshot.json"), "{}");
    await writeFile(join(files, "0"), "a chunk");
    const archive = join(dir.path, "a.tar.gz");
    await createTar({ gzip: true, file: archive, cwd: files, portable: true }, ["snapshot.json", "0"]);
    const into = join(dir.path, "into");
    await mkdir(into);
    // The output side fails (here: a file already in the way; on a full disk: ENOSPC).
    await writeFile(join(into, "0"), "in the way");
    await assert.rejects(unpackSnapshotArchive(archive, into, "a.tar.gz"), (err: unknown) => {
      assert.ok(err instanceof SnapshotError);
      assert.match(
        err.message,
        /^cannot unpack a\.tar\.gz: the file system refused writing .*into\/0 \(EEXIST: file already exists, open '.*into\/0'\)$/,
      );
      assert.doesNotMatch(err.message, /is not a snapshot archive/);
      return true;
    });
  } finally {
    await dir.remove();
  }
});
