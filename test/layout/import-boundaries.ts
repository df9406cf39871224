// The import rules of the layout (docs/ARCHITECTURE.md, "Layout rules"), as data a test and a reader can check:
// - src/ (the framework) never imports chain/ or examples/ (the chains built on it), nor `chaind/...` (itself);
// - chain/ and examples/ reach the framework only through the package's exports (`chaind/...`), never by a
//   relative path into src/;
// - runtime code under src/ (what `npm run build` ships) never imports the testing kit or a test helper (test/).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

/** One import that breaks a rule. */
export interface ImportViolation {
  file: string;
  specifier: string;
  rule: string;
}

/**
 * Test code: the tests, the public testing kit (`src/testing/`, `chaind/testing`) and the private helpers, which live
 * under `test/` (`test/support/<area>/`, `test/e2e/support/`), never under src/. Runtime code imports none of it.
 */
export function isTestHelper(path: string): boolean {
  const p = path.split(sep).join("/");
  return p.endsWith(".test.ts") || p.startsWith("src/testing/") || p.startsWith("test/") || isPrivateHelperInSrc(p);
}

/** A private helper filed under src/ (none is: they live under test/support/; this rule keeps it so). */
export function isPrivateHelperInSrc(path: string): boolean {
  const p = path.split(sep).join("/");
  return p.startsWith("src/") && !p.startsWith("src/testing/") && /(^|\/)(testing|test-support)(\.ts$|\/)/.test(p);
}

function tsFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir))) {
    const path = join(dir, name);
    if (name === "node_modules" || name === "gen") continue;
    if (statSync(join(root, path)).isDirectory()) out.push(...tsFiles(root, path));
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

/** The module specifiers a TypeScript file imports or re-exports (static and dynamic); comments are ignored. */
export function specifiersOf(source: string): string[] {
  const text = source
    .split("\n")
    .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line))
    .join("\n");
  const found: string[] = [];
  const patterns = [
    /\bfrom\s+["']([^"']+)["']/g,
    /\bimport\s+["']([^"']+)["']/g,
    /\bimport\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const pattern of patterns) for (const match of text.matchAll(pattern)) found.push(match[1]);
  return found;
}

/** Every import under `root`'s src/, chain/ and examples/ that breaks a rule (see the file comment). */
export function importViolations(root: string): ImportViolation[] {
  const violations: ImportViolation[] = [];
  for (const top of ["src", "chain", "examples"]) {
    for (const file of tsFiles(root, top)) {
      for (const specifier of specifiersOf(readFileSync(join(root, file), "utf8"))) {
        const target = specifier.startsWith(".") ? relative(root, resolve(root, dirname(file), specifier)) : undefined;
        const targetTop = target?.split(sep)[0];
        if (top === "src") {
          if (targetTop === "chain" || targetTop === "examples") {
            violations.push({ file, specifier, rule: "src/ must not import the chains built on it" });
          } else if (specifier === "chaind" || specifier.startsWith("chaind/")) {
            violations.push({ file, specifier, rule: "src/ imports itself by relative paths, not chaind/..." });
          } else if (target !== undefined && !isTestHelper(file) && isTestHelper(target)) {
            violations.push({ file, specifier, rule: "runtime code must not import the testing kit or a test helper" });
          }
        } else if (target !== undefined && targetTop !== top) {
          violations.push({ file, specifier, rule: `${top}/ reaches the framework only through chaind/... exports` });
        } else if (target !== undefined && top === "examples" && target.split(sep)[1] !== file.split(sep)[1]) {
          violations.push({ file, specifier, rule: "an example chain imports only itself and chaind/..." });
        }
      }
    }
  }
  return violations;
}
