// A chain's binary that imports a non-lazy definition (defineChain runs at import, before runCli): a definition
// mistake is one line on stderr and exit 1, as every user mistake (docs/CONTRACT.md §12), not Node's stack.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, test } from "node:test";

const SRC = resolve(import.meta.dirname, "..");
const dir = mkdtempSync(join(tmpdir(), "define-chain-at-import-"));
after(() => rmSync(dir, { recursive: true, force: true }));

// Runs a binary whose entry point imports the CLI runner, then a definition module whose body is `definition`.
function runBinary(definition: string): { status: number | null; stderr: string } {
  writeFileSync(
    join(dir, "app.ts"),
    `import { defineChain } from ${JSON.stringify(join(SRC, "runtime", "index.ts"))};\n${definition}\n`,
  );
  writeFileSync(
    join(dir, "bind.ts"),
    `import { runCli } from ${JSON.stringify(join(SRC, "cli", "index.ts"))};\nimport { chain } from "./app.ts";\nawait runCli(chain);\n`,
  );
  const run = spawnSync(process.execPath, [join(dir, "bind.ts"), "version"], { encoding: "utf8", timeout: 60_000 });
  return { status: run.status, stderr: run.stderr };
}

test("a definition mistake thrown at import is one line and exit 1", () => {
  const { status, stderr } = runBinary(
    'export const chain = defineChain({ name: "bindd", releases: [{ name: "v1", version: "1.0.0" }, { name: "v1", version: "1.0.0" }] });',
  );
  assert.equal(stderr, 'Error: chain "bindd": release "v1" is listed twice\n');
  assert.equal(status, 1);
});

test("a bug thrown at import still shows its stack, after a definition mistake was caught", () => {
  const { status, stderr } = runBinary(
    [
      'try { defineChain({ name: "bindd", releases: [] }); } catch {}',
      'throw new TypeError("a bug in app.ts");',
      "export const chain = undefined;",
    ].join("\n"),
  );
  assert.match(stderr, /TypeError: a bug in app\.ts\n\s+at /);
  assert.equal(status, 1);
});
