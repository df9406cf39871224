// What a client command's start loads by its static imports, read from the sources: no ES import of the built-ins
// whose ES facade loads more than the command uses. Importing a built-in as an ES module builds its facade, which
// reads every export once: node:fs's lazy exports (the streams, `promises`, `Dir`, the watchers) then load 34 more
// built-in modules, node:util's (parseArgs, MIMEType, the diff, `aborted`) 33 with worker_threads among them, none of
// which a query uses (docs/PERFORMANCE.md, "Start-up at the CLI and at the upgrade"). Such modules take them with
// `process.getBuiltinModule` instead. A timing would say this late and noisily; the import itself does not.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * The files `chaind query bank balances` starts from: the source tree's launcher and what it imports dynamically at
 * its top, the runner, the command tree, `query` and bank's CLI.
 */
const QUERY_ENTRIES = [
  "chain/cmd/chaind.mjs",
  "chain/cmd/dependency-bundle.ts",
  "chain/cmd/resolve-shortcut.ts",
  "chain/cmd/chaind.ts",
  "chain/manifest.ts",
  "src/cli/index.ts",
  "src/cli/main.ts",
  "src/cli/commands/client-commands.ts",
  "src/x/bank/client/cli.ts",
];

/** Built-ins a client command's path must not import as ES modules. */
const HEAVY_FACADES: ReadonlySet<string> = new Set([
  "node:fs",
  "fs",
  "node:fs/promises",
  "fs/promises",
  "node:util",
  "util",
]);

// `import … from "x"`, `export … from "x"` and `import "x"`; `import type` and `export type` load nothing.
const STATIC_IMPORT = /^(import|export)\s+(?!type\s)(?:[^;"']*?\sfrom\s*)?["']([^"']+)["']/gm;

/** Every file reached from `entries` by static value imports (relative ones followed), with what it imports. */
function staticImports(entries: readonly string[], root: string = ROOT): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const visit = (file: string): void => {
    if (found.has(file)) return;
    const specifiers = [...readFileSync(join(root, file), "utf8").matchAll(STATIC_IMPORT)].map((m) => m[2] as string);
    found.set(file, specifiers);
    for (const specifier of specifiers) {
      if (specifier.startsWith(".")) visit(relative(root, resolve(root, dirname(file), specifier)));
    }
  };
  for (const entry of entries) visit(entry);
  return found;
}

test("the reader follows static value imports and skips type-only ones", () => {
  const graph = staticImports(["src/cli/main.ts"]);
  assert.ok(graph.has("src/cli/report-error.ts"), "main.ts imports report-error.ts");
  assert.ok(graph.has("src/cli/directory-paths.ts"), "main.ts imports directory-paths.ts");
  assert.ok(graph.get("src/cli/main.ts")?.includes("commander") === false, "main.ts imports commander's types only");
  assert.ok(!graph.has("src/cli/io.ts"), "io.ts is imported for its types only");
});

test("nothing on a query's path imports node:fs, node:fs/promises or node:util as an ES module", () => {
  const offenders = [...staticImports(QUERY_ENTRIES)]
    .filter(([, specifiers]) => specifiers.some((specifier) => HEAVY_FACADES.has(specifier)))
    .map(([file]) => file);
  assert.deepEqual(offenders, [], "take node:fs with process.getBuiltinModule in these");
});
