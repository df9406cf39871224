import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { ClassicLevel } from "classic-level";
import { b, tempDir } from "../../test/support/store/helpers.ts";
import { DataDirectoryCorruptError, DataDirectoryLockedError, DataDirectoryMissingError } from "./errors.ts";
import { commitKey } from "./keys.ts";
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
});
