// The registered errors (src/app/errors.ts `registerError`: the `sdk` codespace and every module's) against the
// error tables of the READMEs: codespace `sdk` is documented in src/app/README.md, codespace `<m>` in
// src/x/<m>/README.md. A table row documents an error when its first cell is `<codespace> <code>` and its second
// starts with the registered description in backticks (`| bank 5 | \`send transactions are disabled\` | … |`).
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { grpcCodeName, type RegisteredError, registeredErrors } from "../../src/app/errors.ts";

/** The README documenting codespace `codespace`, relative to the repository root. */
export function readmeOf(codespace: string): string {
  return codespace === "sdk" ? "src/app/README.md" : `src/x/${codespace}/README.md`;
}

/** One documented error: a table row `| <codespace> <code> | \`<description>\` … |`. */
export interface ErrorRow {
  codespace: string;
  code: number;
  description: string;
  line: number;
}

/** The error rows of a Markdown text. */
export function errorRows(markdown: string): ErrorRow[] {
  const rows: ErrorRow[] = [];
  markdown.split("\n").forEach((line, index) => {
    const match = /^\|\s*([a-z]+) (\d+)\s*\|\s*`([^`]+)`/.exec(line);
    if (match === null) return;
    rows.push({
      codespace: match[1] as string,
      code: Number(match[2]),
      description: match[3] as string,
      line: index + 1,
    });
  });
  return rows;
}

/** Imports every source file that registers errors, so the registry holds them all. */
export async function loadRegistry(root: string): Promise<RegisteredError[]> {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "gen") walk(path);
      } else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts")) {
        if (readFileSync(path, "utf8").includes("registerError(")) files.push(path);
      }
    }
  };
  walk(join(root, "src"));
  for (const file of files) await import(file);
  return registeredErrors();
}

/** The table row the README of `error`'s codespace should hold. */
export function rowFor(error: RegisteredError): string {
  return `| ${error.codespace} ${error.code} | \`${error.description}\` | ${grpcCodeName(error.grpcCode)} |`;
}

/** Registered errors no README row documents, and rows that name no registered error (or the wrong text). */
export function undocumentedErrors(root: string, errors: readonly RegisteredError[]): string[] {
  const problems: string[] = [];
  const readmes = new Map<string, ErrorRow[]>();
  const rowsOf = (readme: string): ErrorRow[] => {
    let rows = readmes.get(readme);
    if (rows === undefined) {
      let text = "";
      try {
        text = readFileSync(join(root, readme), "utf8");
      } catch {
        problems.push(`${readme} does not exist: it should document codespace errors`);
      }
      rows = errorRows(text);
      readmes.set(readme, rows);
    }
    return rows;
  };
  for (const error of errors) {
    const readme = readmeOf(error.codespace);
    const documented = rowsOf(readme).some(
      (row) => row.codespace === error.codespace && row.code === error.code && row.description === error.description,
    );
    if (!documented) problems.push(`${readme} has no row ${rowFor(error)}`);
  }
  // Every row anywhere in the READMEs names a registered error with its text.
  for (const readme of [readmeOf("sdk"), ...moduleReadmes(root)]) {
    for (const row of rowsOf(readme)) {
      const registered = errors.find((e) => e.codespace === row.codespace && e.code === row.code);
      if (registered === undefined) {
        problems.push(`${readme}:${row.line} documents ${row.codespace} ${row.code}, which is not registered`);
      } else if (registered.description !== row.description) {
        problems.push(
          `${readme}:${row.line} gives ${row.codespace} ${row.code} as "${row.description}", registered as "${registered.description}"`,
        );
      }
    }
  }
  return problems;
}

function moduleReadmes(root: string): string[] {
  return readdirSync(join(root, "src", "x"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => relative(root, join(root, "src", "x", entry.name, "README.md")))
    .filter((readme) => {
      try {
        readFileSync(join(root, readme));
        return true;
      } catch {
        return false;
      }
    });
}
