// Every declaration a public entry point (package.json `exports`) reaches carries a TSDoc comment: what a chain
// developer imports is documented where it is declared.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";

const ROOT = resolve(import.meta.dirname, "..", "..");

/** Declarations without a `/** … *\/` right above them, in every file the entry points re-export, transitively. */
function undocumented(): string[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { exports: Record<string, string> };
  const seen = new Set<string>();
  const missing: string[] = [];
  const visit = (path: string) => {
    if (seen.has(path) || !path.endsWith(".ts")) return;
    seen.add(path);
    const text = readFileSync(path, "utf8");
    for (const match of text.matchAll(/export (?:type )?(?:\*(?: as \w+)?|\{[^}]*\}) from "(\.[^"]+)"/g)) {
      visit(resolve(dirname(path), match[1]));
    }
    const lines = text.split("\n");
    lines.forEach((line, index) => {
      if (!/^export (async )?(function |class |interface |type (?![{*])|const |let |abstract class )/.test(line))
        return;
      if (!(lines[index - 1] ?? "").trim().endsWith("*/")) missing.push(`${relative(ROOT, path)}:${index + 1}`);
    });
  };
  for (const target of Object.values(manifest.exports)) {
    if (target.endsWith(".ts")) visit(join(ROOT, target));
  }
  return missing;
}

test("every declaration reachable from the package's exports has a TSDoc comment", () => {
  assert.deepEqual(undocumented(), []);
});
