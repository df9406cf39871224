// The resolution shortcut must load what Node's own resolver loads: the same files, each in the format its
// package scope gives it (checked here with an ES module tree holding a CommonJS folder), and a missing import
// must still fail. Each case runs in a child process, since the hook stays for the life of the process.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { pathToFileURL } from "node:url";

const dir = mkdtempSync(join(tmpdir(), "resolve-shortcut-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(join(dir, path, ".."), { recursive: true });
  writeFileSync(join(dir, path), text);
}

write("package.json", '{ "type": "module" }');
write(
  "main.ts",
  'import "./lib/f.js";\nimport { a } from "./lib/a.ts";\nimport { b } from "./lib/b.ts";\nimport c from "./cjs/c.js";\n',
);
write("lib/a.ts", 'export const a: string = "a";\n');
// b.ts reaches a directory (cjs/deep) whose own folder has no package.json but whose parent's makes it CommonJS,
// after f.js taught the hook that a .js file of the top scope is an ES module.
write(
  "lib/b.ts",
  'import { a } from "./a.ts";\nimport d from "../cjs/d.js";\nimport e from "../cjs/deep/e.js";\nexport const b = a + d + e;\n',
);
write("lib/f.js", "export const f = 1;\n");
write("cjs/package.json", '{ "type": "commonjs" }');
write("cjs/c.js", 'module.exports = require("./d.js") + "c";\n');
write("cjs/d.js", 'module.exports = "d";\n');
write("cjs/deep/e.js", 'module.exports = "e";\n');
write("entry.ts", 'const { a } = await import("./lib/a.ts");\nconst { b } = await import("./lib/b.ts");\n');
write("missing.ts", 'await import("./lib/a.ts");\nawait import("./lib/nowhere.ts");\n');

/** Runs `entry` in a child, with the shortcut installed or not; prints every load of a URL with its format. */
function run(entry: string, withShortcut = true): { status: number | null; stdout: string; stderr: string } {
  const shortcut = pathToFileURL(join(import.meta.dirname, "resolve-shortcut.ts")).href;
  const script = [
    'import { registerHooks } from "node:module";',
    `const { shortcutRelativeResolution } = await import(${JSON.stringify(shortcut)});`,
    withShortcut ? `shortcutRelativeResolution(${JSON.stringify(pathToFileURL(`${dir}/`).href)});` : "",
    "const seen = [];",
    'registerHooks({ load(url, context, next) { const r = next(url, context); seen.push(url + " " + r.format); return r; } });',
    'process.on("exit", () => console.log(seen.sort().join("\\n")));',
    `await import(${JSON.stringify(pathToFileURL(join(dir, entry)).href)});`,
  ].join("\n");
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

test("every file loads in the format of its package scope, as without the shortcut", () => {
  const shortcut = run("main.ts");
  assert.equal(shortcut.status, 0, shortcut.stderr);
  const url = (path: string) => pathToFileURL(join(dir, path)).href;
  const loads = shortcut.stdout.trim().split("\n");
  assert.deepEqual(loads, [
    `${url("cjs/c.js")} commonjs`,
    `${url("cjs/d.js")} commonjs`,
    `${url("cjs/d.js")} undefined`, // c.js's require(): Node's CommonJS loader reads the format itself
    `${url("cjs/deep/e.js")} commonjs`,
    `${url("lib/a.ts")} module-typescript`,
    `${url("lib/b.ts")} module-typescript`,
    `${url("lib/f.js")} module`,
    `${url("main.ts")} module-typescript`,
  ]);
  assert.deepEqual(loads, run("main.ts", false).stdout.trim().split("\n"));
});

test("dynamic imports take the shortcut too and load the same modules", () => {
  const shortcut = run("entry.ts");
  assert.equal(shortcut.status, 0, shortcut.stderr);
  assert.match(shortcut.stdout, /lib\/a\.ts module-typescript/);
  assert.equal(shortcut.stdout, run("entry.ts", false).stdout);
});

test("a missing relative import still fails, naming the file", () => {
  const shortcut = run("missing.ts");
  assert.notEqual(shortcut.status, 0);
  assert.match(shortcut.stderr, /nowhere\.ts/);
});
