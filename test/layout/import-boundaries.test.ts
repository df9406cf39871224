// The layout's import rules hold over the whole tree (see import-boundaries.ts), and the checker itself catches
// each kind of violation.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { importViolations } from "./import-boundaries.ts";

const ROOT = resolve(import.meta.dirname, "..", "..");

test("no upward import: src/ never imports chain/ or examples/, which import only chaind/...; runtime code never imports test helpers", () => {
  assert.deepEqual(importViolations(ROOT), []);
});

test("the checker reports each kind of violation", async () => {
  const root = await mkdtemp(join(tmpdir(), "import-boundaries-"));
  try {
    const put = async (path: string, text: string) => {
      await mkdir(join(root, path, ".."), { recursive: true });
      await writeFile(join(root, path), text);
    };
    await put(
      "src/node/start.ts",
      'import { x } from "../../chain/app.ts";\nimport { t } from "../testing/index.ts";\n',
    );
    await put("src/testing/index.ts", "export const t = 1;\n");
    await put("src/app/self.ts", 'import { y } from "chaind/app";\n');
    await put("chain/app.ts", 'import { z } from "../src/app/index.ts";\nimport { ok } from "chaind/app";\n');
    await put("examples/a/app.ts", 'import { w } from "../b/app.ts";\n');
    await put("examples/b/app.ts", "export const w = 1;\n");
    const rules = importViolations(root).map((v) => `${v.file} ${v.specifier}`);
    assert.deepEqual(rules.sort(), [
      "chain/app.ts ../src/app/index.ts",
      "examples/a/app.ts ../b/app.ts",
      "src/app/self.ts chaind/app",
      "src/node/start.ts ../../chain/app.ts",
      "src/node/start.ts ../testing/index.ts",
    ]);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
