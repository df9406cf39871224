// Converting request arguments to typed values, for both transports: JSON-RPC params (named or positional; int64
// as strings, []byte as base64, HexBytes as hex) and the GET URI form (bare integers, 0x-hex or "quoted" strings).
import { invalidParams } from "./rpc-error.ts";

/** The argument types the consensus RPC uses. */
/** `uint`: Go's uint (genesis_chunked's chunk), an integer that a minus sign makes a params error. */
export type ParamType = "int64" | "uint" | "bytes" | "hexbytes" | "string" | "bool";

/** One declared parameter of a method. */
export interface ParamSpec {
  name: string;
  type: ParamType;
}

/** Converted arguments by name (absent ones undefined). */
export type Args = Record<string, bigint | Uint8Array | string | boolean | undefined>;

const INT = /^-?\d+$/;
const UINT = /^\d+$/;
const HEX = /^([0-9a-fA-F]{2})*$/;
/**
 * The bytes of `v` when it is base64 as the consensus RPC accepts it (/^[A-Za-z0-9+/]*={0,2}$/, length a multiple
 * of 4), else undefined. Checked without a per-character loop or a regular expression — over a 100 kB tx either was
 * the largest cost of a garbage flood: Node's decoder skips characters outside the alphabet and accepts the
 * URL-safe '-' and '_', so those two are refused first and any other stray character shows as a short result.
 */
function base64Bytes(v: string): Uint8Array | undefined {
  if (v.length % 4 !== 0 || v.includes("-") || v.includes("_")) return undefined;
  const eq = v.indexOf("=");
  if (eq !== -1 && (eq < v.length - 2 || (eq === v.length - 2 && v.charCodeAt(v.length - 1) !== 61))) return undefined;
  const padding = eq === -1 ? 0 : v.length - eq;
  const expected = (v.length / 4) * 3 - padding;
  // Decoded straight into the tx's own array: not Buffer.from (a small Buffer is a view into a shared pool,
  // which a tx must not keep alive or expose, so it was copied out, and the pool refilled every few txs).
  const out = new Uint8Array(expected);
  if (expected === 0) return out;
  const written = Buffer.from(out.buffer, out.byteOffset, expected).write(v, 0, "base64");
  return written === expected ? out : undefined;
}

function fromJsonValue(spec: ParamSpec, v: unknown): bigint | Uint8Array | string | boolean | undefined {
  if (v === undefined || v === null) return undefined;
  const bad = (expected: string) =>
    invalidParams(
      `error converting json params to arguments: ${spec.name}: expected ${expected}, got ${JSON.stringify(v)}`,
    );
  switch (spec.type) {
    case "int64":
      if (typeof v === "string" && INT.test(v)) return BigInt(v);
      if (typeof v === "number" && Number.isSafeInteger(v)) return BigInt(v);
      throw bad('an integer as a JSON string (e.g. "5")');
    case "uint":
      if (typeof v === "string" && UINT.test(v)) return BigInt(v);
      if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
      throw bad('a non-negative integer as a JSON string (e.g. "5")');
    case "bytes":
      if (typeof v === "string") {
        const bytes = base64Bytes(v);
        if (bytes !== undefined) return bytes;
      }
      throw bad("base64-encoded bytes");
    case "hexbytes":
      if (typeof v === "string" && HEX.test(v)) return new Uint8Array(Buffer.from(v, "hex"));
      throw bad("hex-encoded bytes");
    case "string":
      if (typeof v === "string") return v;
      throw bad("a string");
    case "bool":
      if (typeof v === "boolean") return v;
      if (v === "true" || v === "false") return v === "true";
      throw bad("true or false");
  }
}

/** Arguments from JSON-RPC `params` (an object of named params, an array of positional ones, or absent). */
export function argsFromJsonRpc(specs: readonly ParamSpec[], params: unknown): Args {
  const args: Args = {};
  if (params === undefined || params === null) return args;
  if (Array.isArray(params)) {
    if (params.length > specs.length) {
      throw invalidParams(
        `error converting json params to arguments: expected at most ${specs.length} params, got ${params.length}`,
      );
    }
    specs.forEach((s, i) => {
      args[s.name] = fromJsonValue(s, params[i]);
    });
    return args;
  }
  if (typeof params !== "object")
    throw invalidParams("error converting json params to arguments: params must be an object or an array");
  for (const s of specs) args[s.name] = fromJsonValue(s, (params as Record<string, unknown>)[s.name]);
  return args;
}

function unquote(text: string): string | undefined {
  if (text.length >= 2 && text.startsWith('"') && text.endsWith('"')) {
    try {
      return JSON.parse(text) as string;
    } catch {
      return text.slice(1, -1);
    }
  }
  return undefined;
}

/** Arguments from a GET URI query string (`/block?height=5`, `/abci_query?path="/x"&data=0x0a`). */
export function argsFromUri(specs: readonly ParamSpec[], query: URLSearchParams): Args {
  const args: Args = {};
  for (const s of specs) {
    const raw = query.get(s.name);
    if (raw === null || raw === "") {
      args[s.name] = undefined;
      continue;
    }
    const quoted = unquote(raw);
    const bad = (expected: string) =>
      invalidParams(`error converting http params to arguments: ${s.name}: expected ${expected}, got ${raw}`);
    switch (s.type) {
      case "int64": {
        const t = quoted ?? raw;
        if (!INT.test(t)) throw bad("an integer");
        args[s.name] = BigInt(t);
        break;
      }
      case "uint": {
        const t = quoted ?? raw;
        if (!UINT.test(t)) throw bad("a non-negative integer");
        args[s.name] = BigInt(t);
        break;
      }
      case "bytes":
      case "hexbytes":
        if (quoted !== undefined) args[s.name] = new TextEncoder().encode(quoted);
        else if (/^0[xX]/.test(raw) && HEX.test(raw.slice(2)))
          args[s.name] = new Uint8Array(Buffer.from(raw.slice(2), "hex"));
        else throw bad('0x-prefixed hex or a "quoted string"');
        break;
      case "string":
        if (quoted !== undefined) args[s.name] = quoted;
        else if (/^0[xX]/.test(raw) && HEX.test(raw.slice(2)))
          args[s.name] = Buffer.from(raw.slice(2), "hex").toString("utf8");
        else args[s.name] = raw;
        break;
      case "bool":
        if (raw !== "true" && raw !== "false") throw bad("true or false");
        args[s.name] = raw === "true";
        break;
    }
  }
  return args;
}
