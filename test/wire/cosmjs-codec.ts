// Looks up the cosmjs-types codec that corresponds to one of our generated messages. cosmjs-types is
// generated from the upstream Cosmos SDK and CometBFT schemas, so it serves as the oracle for bytes.
import { createRequire } from "node:module";
import type { DescEnum, DescMessage } from "@bufbuild/protobuf";

const require = createRequire(import.meta.url);

/** The part of a cosmjs-types message codec that the wire tests use. */
export interface CosmjsCodec {
  encode(message: unknown): { finish(): Uint8Array };
  decode(input: Uint8Array): Record<string, unknown>;
}

/**
 * Maps a generated file path (`chain/<p>/<f>` or `tendermint/<p>/<f>`) to its cosmjs-types module
 * (`cosmjs-types/cosmos/<p>/<f>` or `cosmjs-types/tendermint/<p>/<f>`); undefined for other roots.
 */
export function cosmjsModuleFor(relPath: string): string | undefined {
  if (relPath.startsWith("chain/")) return `cosmjs-types/cosmos/${relPath.slice("chain/".length)}`;
  if (relPath.startsWith("tendermint/")) return `cosmjs-types/${relPath}`;
  return undefined;
}

/** The export name cosmjs-types uses for a message or enum: its name below the package, nesting joined with `_`. */
export function cosmjsExportName(desc: DescMessage | DescEnum): string {
  const pkg = desc.file.proto.package;
  return desc.typeName.slice(pkg.length + 1).replaceAll(".", "_");
}

function isCodec(value: unknown): value is CosmjsCodec {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Partial<Record<"encode" | "decode", unknown>>;
  return typeof candidate.encode === "function" && typeof candidate.decode === "function";
}

/** Loads a cosmjs-types module by specifier; undefined when cosmjs-types has no such file. */
export function loadCosmjsModule(specifier: string): Record<string, unknown> | undefined {
  try {
    require.resolve(specifier);
  } catch {
    return undefined;
  }
  return require(specifier) as Record<string, unknown>;
}

/** The codec exported as `name` by a loaded cosmjs-types module, if it is one. */
export function codecIn(module: Record<string, unknown>, name: string): CosmjsCodec | undefined {
  const value = module[name];
  return isCodec(value) ? value : undefined;
}

/** The name → number table of an enum exported by a loaded cosmjs-types module, without its `UNRECOGNIZED` marker. */
export function enumValuesIn(module: Record<string, unknown>, name: string): Map<string, number> | undefined {
  const value = module[name];
  if (typeof value !== "object" || value === null) return undefined;
  const values = new Map<string, number>();
  for (const [key, number] of Object.entries(value)) {
    if (typeof number === "number" && key !== "UNRECOGNIZED") values.set(key, number);
  }
  return values;
}
