// Commented TOML templates built from one table of keys, defaults and comments, so the file that
// `chaind init` writes and the defaults the loaders fall back to cannot drift apart (a test parses
// each template back and compares it with the defaults). Also a small editor that changes values in
// an existing file while keeping its comments.
import { currentBinaryName } from "./home.ts";
import { parseTomlText } from "./toml-reader.ts";

/** A value a template can hold: strings, integers, booleans and lists of strings cover both files. */
export type TemplateValue = string | number | bigint | boolean | readonly string[];

/** One key of a template with its default and the comment written above it. */
export interface TemplateEntry {
  key: string;
  value: TemplateValue;
  /** Comment lines written above the key (without the leading "# "). */
  comment?: readonly string[];
}

/** One section: `name` "" is the top level (keys before the first [section]). */
export interface TemplateSection {
  name: string;
  /** A banner written above the section: a rule line, "### <title>", a rule line. */
  title?: string;
  /** Comment lines written above the section header (below the banner). */
  comment?: readonly string[];
  entries: readonly TemplateEntry[];
}

/** Values that replace template defaults, by dotted key (`api.address`, `moniker`). */
export type TemplateOverrides = Readonly<Record<string, TemplateValue>>;

/** Formats one value as a TOML literal on a single line. */
export function formatTomlValue(value: TemplateValue): string {
  if (typeof value === "string") return tomlString(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw new RangeError(`template values must be integers, got ${value}`);
    return value.toString();
  }
  return `[${value.map(tomlString).join(", ")}]`;
}

function tomlString(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '"') out += '\\"';
    else if (char === "\\") out += "\\\\";
    else if (char === "\n") out += "\\n";
    else if (char === "\t") out += "\\t";
    else if (char === "\r") out += "\\r";
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += char;
  }
  return `${out}"`;
}

/** Every dotted key of a template, in file order. */
export function templateKeys(sections: readonly TemplateSection[]): string[] {
  return sections.flatMap((section) =>
    section.entries.map((entry) => (section.name === "" ? entry.key : `${section.name}.${entry.key}`)),
  );
}

/** The template's defaults as a map from dotted key to value, with `overrides` applied. */
export function templateValues(
  sections: readonly TemplateSection[],
  overrides: TemplateOverrides = {},
): Map<string, TemplateValue> {
  const values = new Map<string, TemplateValue>();
  for (const section of sections) {
    for (const entry of section.entries) {
      const key = section.name === "" ? entry.key : `${section.name}.${entry.key}`;
      values.set(key, entry.value);
    }
  }
  for (const [key, value] of Object.entries(overrides)) {
    if (!values.has(key)) throw new RangeError(`unknown template key "${key}"`);
    values.set(key, value);
  }
  return values;
}

/**
 * Renders a commented TOML file: `header` lines first, then every section with its comments, each
 * key holding its default or the override given for its dotted name. Unknown override keys throw
 * (they are a programming error, not an operator's).
 */
export function renderTemplate(
  header: readonly string[],
  sections: readonly TemplateSection[],
  overrides: TemplateOverrides = {},
): string {
  const values = templateValues(sections, overrides);
  const lines: string[] = header.map(commentLine);
  for (const section of sections) {
    lines.push("");
    if (section.title !== undefined) lines.push(RULE, `### ${section.title}`, RULE, "");
    if (section.comment !== undefined) lines.push(...section.comment.map(commentLine));
    if (section.name !== "") {
      lines.push(`[${section.name}]`);
      lines.push("");
    }
    section.entries.forEach((entry, index) => {
      if (index > 0 && entry.comment !== undefined) lines.push("");
      if (entry.comment !== undefined) lines.push(...entry.comment.map(commentLine));
      const key = section.name === "" ? entry.key : `${section.name}.${entry.key}`;
      lines.push(`${entry.key} = ${formatTomlValue(values.get(key) as TemplateValue)}`);
    });
  }
  return `${lines.join("\n")}\n`;
}

const RULE = "#".repeat(75);

/** Written in a template's comments where the running chain's binary belongs (`chaind`, or a chain's own `tallyd`). */
export const BINARY_PLACEHOLDER = "<binary>";

function commentLine(text: string): string {
  return text === "" ? "#" : `# ${text.replaceAll(BINARY_PLACEHOLDER, currentBinaryName())}`;
}

const SECTION_LINE = /^\s*\[\s*([A-Za-z0-9_.-]+)\s*\]\s*(#.*)?$/;
const KEY_LINE = /^(\s*)([A-Za-z0-9_-]+)\s*=\s*(.*)$/;

/**
 * Sets values in existing TOML text, keeping every comment and every other line as it is: a key that
 * exists is rewritten in place, a missing key is added at the end of its section, a missing section
 * is appended. Only single-line values can be replaced (the templates write nothing else); the
 * result is parsed again so a broken edit never reaches the disk.
 *
 * @example setTomlValues(text, { "rpc.laddr": "tcp://127.0.0.1:0", moniker: "node0" })
 */
export function setTomlValues(text: string, updates: TemplateOverrides, file = "<toml>"): string {
  const lines = text.split("\n");
  const pending = new Map(Object.entries(updates));
  let section = "";
  // Where to insert a missing key of each section: after its last key line (or its header).
  const insertAfter = new Map<string, number>();
  let firstSectionLine = -1;
  for (let i = 0; i < lines.length; i++) {
    const sectionMatch = SECTION_LINE.exec(lines[i]);
    if (sectionMatch !== null) {
      section = sectionMatch[1];
      if (firstSectionLine < 0) firstSectionLine = i;
      insertAfter.set(section, i);
      continue;
    }
    const keyMatch = KEY_LINE.exec(lines[i]);
    if (keyMatch === null) continue;
    const dotted = section === "" ? keyMatch[2] : `${section}.${keyMatch[2]}`;
    insertAfter.set(section, i);
    const update = pending.get(dotted);
    if (update === undefined) continue;
    const oldValue = keyMatch[3].trim();
    if (oldValue.startsWith('"""') || oldValue.startsWith("'''") || unbalancedArray(oldValue)) {
      throw new RangeError(`${file}: ${dotted}: cannot rewrite a value that spans several lines`);
    }
    lines[i] = `${keyMatch[1]}${keyMatch[2]} = ${formatTomlValue(update)}`;
    pending.delete(dotted);
  }
  // Missing keys: group by section, insert from the bottom up so earlier indices stay valid.
  const additions = new Map<string, string[]>();
  for (const [dotted, value] of pending) {
    const dot = dotted.lastIndexOf(".");
    const owner = dot < 0 ? "" : dotted.slice(0, dot);
    const key = dot < 0 ? dotted : dotted.slice(dot + 1);
    const list = additions.get(owner) ?? [];
    list.push(`${key} = ${formatTomlValue(value)}`);
    additions.set(owner, list);
  }
  const inserts: { at: number; lines: string[] }[] = [];
  const appended: string[] = [];
  for (const [owner, newLines] of additions) {
    const at = insertAfter.get(owner);
    if (at !== undefined) inserts.push({ at: at + 1, lines: newLines });
    else if (owner === "")
      inserts.push({ at: firstSectionLine < 0 ? lines.length : firstSectionLine, lines: newLines });
    else appended.push("", `[${owner}]`, ...newLines);
  }
  inserts.sort((a, b) => b.at - a.at);
  for (const insert of inserts) lines.splice(insert.at, 0, ...insert.lines);
  if (appended.length > 0) {
    while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
    lines.push(...appended, "");
  }
  const result = lines.join("\n");
  parseTomlText(result, file);
  return result;
}

function unbalancedArray(value: string): boolean {
  if (!value.startsWith("[")) return false;
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < value.length; i++) {
    const char = value[i];
    if (quote !== undefined) {
      if (char === "\\" && quote === '"') i++;
      else if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === "#") break;
    else if (char === "[") depth++;
    else if (char === "]") depth--;
  }
  return depth !== 0;
}
