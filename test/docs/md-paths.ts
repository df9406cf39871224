// Finds the repository paths the project's Markdown names in backticks and which of them do not exist, so a
// file moved or renamed cannot leave its old name in the docs. md-paths.test.ts runs it on every tracked *.md.
//
// What counts as a repository path (the rule, decided once here):
// 1. An inline code span (`…`) outside fenced code blocks, with a leading `./` and a trailing `:<line>`, `#<anchor>`
//    or `,`/`.` removed.
// 2. It looks like a path: no whitespace, no glob or placeholder characters (`* ? < > { } [ ] $ … | = ' " @ ( )`),
//    not absolute (`/…`), not home-relative (`~…`), not a URL (`…://…`), not a flag (`-…`); and it either holds a
//    `/` or ends in a known file extension (KNOWN_EXTENSIONS).
// 3. It is anchored in the repository: its first segment is a top-level entry of the repository (`src/…`,
//    `docs/…`, `README.md`, `package.json`), or resolves from the Markdown file's own folder (`app.ts` in
//    chain/README.md, `client/cli.ts` in a module README, `../../docs/X.md`). A name with a source extension
//    (SOURCE_EXTENSIONS: `.ts`, `.md`, …) that resolves nowhere is anchored too, and must then end some tracked
//    file's path (docs name `base-app.ts` or `commands/version-early.ts` without the folders above).
// Anything else — a node home's files (`data/upgrade-info.json`, `config/app.toml`), package specifiers
// (`chaind/runtime`), module names (`x/upgrade`), archive members (`bin/chaind`), build output (`dist/…`) — is
// not a repository path and is not checked.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";

/** Extensions that make a slash-less token a file name. */
export const KNOWN_EXTENSIONS = [
  ".ts",
  ".mjs",
  ".js",
  ".md",
  ".json",
  ".toml",
  ".yaml",
  ".yml",
  ".proto",
  ".sh",
] as const;

/** Extensions of the repository's own sources: a bare name with one of these must be a repository file. */
export const SOURCE_EXTENSIONS = [".ts", ".mjs", ".md", ".proto"] as const;

/** One path a Markdown file names. */
export interface NamedPath {
  /** The Markdown file, relative to the repository root. */
  file: string;
  /** Its line (1-based). */
  line: number;
  /** The path as written (after trimming a line number or anchor). */
  path: string;
}

/** The inline code spans of a Markdown text outside fenced blocks, with their line numbers. */
export function inlineCode(markdown: string): { line: number; text: string }[] {
  const spans: { line: number; text: string }[] = [];
  let fenced = false;
  markdown.split("\n").forEach((line, index) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return;
    }
    if (fenced) return;
    // Double-backtick spans (``a `b` c``) hold code with backticks, never a path: drop them first.
    const single = line.replace(/``.*?``/g, "");
    for (const match of single.matchAll(/`([^`]+)`/g)) spans.push({ line: index + 1, text: match[1] as string });
  });
  return spans;
}

/** `text` as a path candidate (rule 2), or undefined when it does not look like one. */
export function pathCandidate(text: string): string | undefined {
  const path = text
    .replace(/^\.\//, "")
    .replace(/#[\w-]*$/, "")
    .replace(/:\d+(-\d+)?$/, "")
    .replace(/[,.;]$/, "");
  if (path === "" || /[\s*?<>{}[\]$…|='"@()]/.test(path)) return undefined;
  if (path.startsWith("/") || path.startsWith("~") || path.startsWith("-") || path.includes("://")) return undefined;
  // An extension on its own (`.d.ts`) names no file.
  if (/^\.[\w.]+$/.test(path)) return undefined;
  if (path.includes("/") || KNOWN_EXTENSIONS.some((ext) => path.endsWith(ext) && path.length > ext.length)) {
    return path;
  }
  return undefined;
}

/** The repository as the rule sees it: its top-level entries, and every tracked file's name. */
export interface RepositoryView {
  root: string;
  topLevel: ReadonlySet<string>;
  /** Every tracked file's path. */
  tracked: readonly string[];
  exists(path: string): boolean;
}

/** The repository at `root` (its tracked files, per git; existence is read from the disk). */
export function repositoryView(root: string): RepositoryView {
  const tracked = execFileSync("git", ["ls-files"], { cwd: root, encoding: "utf8" }).split("\n").filter(Boolean);
  return {
    root,
    topLevel: new Set(tracked.map((file) => file.split("/")[0] as string)),
    tracked,
    exists: (path) => existsSync(join(root, path)),
  };
}

/**
 * Whether `path`, named in Markdown file `file`, is missing from the repository (rule 3). Returns undefined when
 * the path is not anchored in the repository (not checked), else whether it is missing.
 */
export function isMissing(view: RepositoryView, file: string, path: string): boolean | undefined {
  const first = path.split("/")[0] as string;
  if (view.topLevel.has(first) && view.exists(path)) return false;
  const folder = dirname(file);
  const local = normalize(join(folder, path));
  if (!local.startsWith("..") && view.exists(local)) return false;
  // A first segment that is a top-level entry (`proto/…`) anchors it at the root unless it exists in the folder.
  if (view.topLevel.has(first)) return true;
  if (path.startsWith("../")) return true;
  // Anchored in the folder when its first segment is an entry there (`client/cli.ts` in src/x/bank).
  if (path.includes("/") && view.exists(join(folder, first))) return true;
  if (SOURCE_EXTENSIONS.some((ext) => path.endsWith(ext))) {
    return !view.tracked.some((tracked) => tracked === path || tracked.endsWith(`/${path}`));
  }
  return undefined;
}

/** Every path the tracked Markdown files name that does not exist. */
export function missingPaths(root: string, files?: readonly string[]): NamedPath[] {
  const view = repositoryView(root);
  const markdown =
    files ?? execFileSync("git", ["ls-files", "*.md"], { cwd: root, encoding: "utf8" }).split("\n").filter(Boolean);
  const missing: NamedPath[] = [];
  for (const file of markdown) {
    for (const span of inlineCode(readFileSync(join(root, file), "utf8"))) {
      const path = pathCandidate(span.text);
      if (path !== undefined && isMissing(view, relative(root, join(root, file)), path) === true) {
        missing.push({ file, line: span.line, path });
      }
    }
  }
  return missing;
}
