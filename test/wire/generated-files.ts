// Finds and loads the generated protobuf-es files so that the wire tests can walk every schema
// without a hand-kept list: a new .proto file is covered as soon as `npm run generate` runs.
import { readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { pathToFileURL } from "node:url";
import type { DescEnum, DescFile, DescMessage } from "@bufbuild/protobuf";
import { nestedTypes } from "@bufbuild/protobuf/reflect";

/** One generated `<name>_pb.js` file and its descriptor. */
export interface GeneratedFile {
  /** Path below the generation root without the `_pb.js` suffix, with `/` separators, e.g. `chain/tx/v1beta1/tx`. */
  readonly relPath: string;
  readonly file: DescFile;
}

/** One message type together with the file that declares it. */
export interface GeneratedMessage {
  readonly relPath: string;
  readonly desc: DescMessage;
}

function isDescFile(value: unknown): value is DescFile {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "file";
}

function listPbFiles(dir: string, out: string[]): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return; // a root that does not exist yet simply contributes nothing
  }
  for (const name of names) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) listPbFiles(path, out);
    else if (name.endsWith("_pb.js")) out.push(path);
  }
}

/** Imports every `_pb.js` below `genRoot/<sub>` for each sub directory and returns their file descriptors, sorted by path. */
export async function loadGeneratedFiles(genRoot: string, subdirs: readonly string[]): Promise<GeneratedFile[]> {
  const paths: string[] = [];
  for (const sub of subdirs) listPbFiles(join(genRoot, sub), paths);
  paths.sort();
  const files: GeneratedFile[] = [];
  for (const path of paths) {
    const mod: Record<string, unknown> = await import(pathToFileURL(path).href);
    const file = Object.values(mod).find(isDescFile);
    if (file === undefined) throw new Error(`generated file ${path} exports no file descriptor`);
    const relPath = relative(genRoot, path)
      .split(sep)
      .join("/")
      .replace(/_pb\.js$/, "");
    files.push({ relPath, file });
  }
  return files;
}

/** One enum type together with the file that declares it. */
export interface GeneratedEnum {
  readonly relPath: string;
  readonly desc: DescEnum;
}

/** Lists every enum type (nested ones included) declared in the given files. */
export function enumsOf(files: readonly GeneratedFile[]): GeneratedEnum[] {
  const out: GeneratedEnum[] = [];
  for (const { relPath, file } of files) {
    for (const type of nestedTypes(file)) if (type.kind === "enum") out.push({ relPath, desc: type });
  }
  return out;
}

/** Lists every message type (nested ones included, map entries excluded) declared in the given files. */
export function messagesOf(files: readonly GeneratedFile[]): GeneratedMessage[] {
  const out: GeneratedMessage[] = [];
  for (const { relPath, file } of files) {
    for (const type of nestedTypes(file)) {
      if (type.kind === "message" && type.proto.options?.mapEntry !== true) out.push({ relPath, desc: type });
    }
  }
  return out;
}
