// The checked-in gen/ is what the documented codegen command makes from proto/ (README: `buf generate`): a proto
// edited without regenerating, or a hand edit of gen/, fails here. buf and protoc-gen-es come from node_modules.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { tempDir } from "chaind/testing";

const HERE = import.meta.dirname;
const BIN = join(HERE, "..", "..", "node_modules", ".bin");

async function filesUnder(root: string, dir = root): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await filesUnder(root, path)));
    else found.push(relative(root, path));
  }
  return found.sort();
}

test("gen/ is exactly what `buf generate` makes from proto/", async () => {
  const out = await tempDir("guestbook-gen-");
  try {
    await promisify(execFile)(join(BIN, "buf"), ["generate", "--output", out.path], {
      cwd: HERE,
      env: { ...process.env, PATH: `${BIN}:${process.env.PATH ?? ""}` },
    });
    const fresh = join(out.path, "gen");
    const checkedIn = join(HERE, "gen");
    const names = await filesUnder(checkedIn);
    assert.deepEqual(await filesUnder(fresh), names);
    assert.ok(names.includes(join("guestbook", "v1", "tx_pb.js")), names.join(" "));
    for (const name of names) {
      assert.equal(
        await readFile(join(checkedIn, name), "utf8"),
        await readFile(join(fresh, name), "utf8"),
        `${name} differs from what buf generate makes: regenerate (README)`,
      );
    }
  } finally {
    await out.remove();
  }
});
