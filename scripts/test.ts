// Runs every *.test.ts under src/, chain/, examples/ and test/ with node's own test runner (Node 24 strips the
// types itself, so tests run from source). Extra arguments narrow the run: `npm test -- src/store`.
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const roots = process.argv.length > 2 ? process.argv.slice(2) : ["src", "chain", "examples", "test"];

function collect(path: string, out: string[]): void {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(path);
  } catch {
    return;
  }
  if (stat.isFile()) {
    if (path.endsWith(".test.ts")) out.push(path);
    return;
  }
  for (const name of readdirSync(path)) {
    if (name === "node_modules" || name === "gen") continue;
    collect(join(path, name), out);
  }
}

const files: string[] = [];
for (const root of roots) collect(root, files);
files.sort();
if (files.length === 0) {
  console.error(`no test files found under ${roots.join(", ")}`);
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  ["--test", "--test-concurrency=2", "--test-timeout=600000", ...files.map((f) => relative(".", f))],
  { stdio: "inherit" },
);
process.exit(result.status ?? 1);
