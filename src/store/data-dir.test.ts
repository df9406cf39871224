import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { ClassicLevel } from "classic-level";
import { b, tempDir } from "../../test/support/store/helpers.ts";
import {
  DataDirectoryCorruptError,
  DataDirectoryLockedError,
  DataDirectoryMissingError,
  DataDirectoryUnavailableError,
} from "./errors.ts";
import { commitKey } from "./keys.ts";
import { levelOpenError } from "./kv-backend.ts";
import { openMultiStore } from "./multistore.ts";

const child = fileURLToPath(new URL("../../test/support/store/test-child.ts", import.meta.url));

async function readLine(proc: ChildProcess): Promise<string> {
  let text = "";
  for await (const chunk of proc.stdout as AsyncIterable<Buffer>) {
    text += chunk.toString();
    if (text.includes("\n")) return text.trim();
  }
  throw new Error(`child exited before printing a line (exit ${proc.exitCode})`);
}

describe("data directory errors", () => {
  test("a missing directory is an error when it must not be created, and names the path", async () => {
    const dir = await tempDir();
    try {
      const path = join(dir.path, "data", "application.db");
      await assert.rejects(openMultiStore({ path, storeNames: ["bank"], createIfMissing: false }), (err: unknown) => {
        assert.ok(err instanceof DataDirectoryMissingError);
        assert.equal(err.path, path);
        assert.match(err.message, /state store directory .*application\.db does not exist; initialise the node first/);
        return true;
      });
      // By default it is created.
      const store = await openMultiStore({ path, storeNames: ["bank"] });
      await store.close();
    } finally {
      await dir.remove();
    }
  });

  test("a directory locked by another process is reported as such", async () => {
    const dir = await tempDir();
    const holder = spawn(process.execPath, [child, "hold", dir.path], { stdio: ["pipe", "pipe", "inherit"] });
    try {
      assert.equal(await readLine(holder), "ready");
      await assert.rejects(openMultiStore({ path: dir.path, storeNames: ["bank"] }), (err: unknown) => {
        assert.ok(err instanceof DataDirectoryLockedError);
        assert.match(err.message, /is locked by another process; stop the other chaind/);
        assert.ok(err.message.includes(dir.path));
        return true;
      });
    } finally {
      holder.stdin?.end();
      if (holder.exitCode === null) await once(holder, "exit");
    }
    // Once the other process is gone, it opens.
    const store = await openMultiStore({ path: dir.path, storeNames: ["bank"] });
    await store.close();
    await dir.remove();
  });

  test("corrupt or foreign directories are refused with the reason", async () => {
    const dir = await tempDir();
    try {
      // LevelDB's own files damaged.
      const damaged = join(dir.path, "damaged");
      const ok = await openMultiStore({ path: damaged, storeNames: ["bank"] });
      const block = ok.branch();
      block.store("bank").set(b("a"), b("1"));
      await ok.stage(block);
      await ok.commit();
      await ok.close();
      writeFileSync(join(damaged, "CURRENT"), "MANIFEST-999999\n");
      await assert.rejects(openMultiStore({ path: damaged, storeNames: ["bank"] }), (err: unknown) => {
        assert.ok(err instanceof DataDirectoryCorruptError);
        assert.match(err.message, /state store .*damaged is corrupt or not a chaind state store \(.+\); restore it/);
        return true;
      });

      // Somebody else's LevelDB.
      const foreign = join(dir.path, "foreign");
      const db = new ClassicLevel(foreign);
      await db.put("hello", "world");
      await db.close();
      await assert.rejects(
        openMultiStore({ path: foreign, storeNames: ["bank"] }),
        /holds data but no chaind format marker/,
      );

      // A file where the directory should be.
      const file = join(dir.path, "file");
      writeFileSync(file, "x");
      await assert.rejects(
        openMultiStore({ path: file, storeNames: ["bank"] }),
        /the path is a file, expected a directory/,
      );

      // Our own metadata damaged.
      const partial = join(dir.path, "partial");
      const p = await openMultiStore({ path: partial, storeNames: ["bank"] });
      await p.stage(p.branch());
      await p.commit();
      await p.close();
      const raw = new ClassicLevel<Uint8Array, Uint8Array>(partial, { keyEncoding: "view", valueEncoding: "view" });
      await raw.del(commitKey(1));
      await raw.close();
      await assert.rejects(
        openMultiStore({ path: partial, storeNames: ["bank"] }),
        /the commit info of its latest version 1 is missing/,
      );
    } finally {
      await dir.remove();
    }
  });

  test("a file system that refuses LevelDB (full disk, no permission, read-only) is not called corruption", () => {
    // classic-level's open failure: LEVEL_DATABASE_NOT_OPEN wrapping LevelDB's own status text.
    const failure = (message: string, code = "LEVEL_IO_ERROR") =>
      Object.assign(new Error("Database failed to open"), {
        code: "LEVEL_DATABASE_NOT_OPEN",
        cause: Object.assign(new Error(message), { code }),
      });
    for (const reason of [
      "IO error: /h/data/application.db/000012.ldb: No space left on device",
      "IO error: /h/data/application.db/LOCK: Permission denied",
      "IO error: /h/data/application.db/MANIFEST-000004: Read-only file system",
      "IO error: /h/data/application.db/000005.ldb: Too many open files",
    ]) {
      const err = levelOpenError("/h/data/application.db", failure(reason));
      assert.ok(err instanceof DataDirectoryUnavailableError, reason);
      assert.equal(
        err.message,
        `state store /h/data/application.db cannot be opened: the file system refused it (${reason}); nothing says the store is damaged: free disk space, or fix the permissions or mount, then start again`,
      );
      assert.doesNotMatch(err.message, /corrupt|remove it/);
    }
    const corrupt = levelOpenError(
      "/h/db",
      failure("Corruption: no meta-nextfile entry in descriptor", "LEVEL_CORRUPTION"),
    );
    assert.ok(corrupt instanceof DataDirectoryCorruptError);
    assert.ok(levelOpenError("/h/db", failure("lock held", "LEVEL_LOCKED")) instanceof DataDirectoryLockedError);
  });
});
