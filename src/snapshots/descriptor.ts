// A snapshot's descriptor (`snapshot.json`) and the rules for the numbers that name a snapshot. The height
// and the format become folder names under data/snapshots, so they are accepted only as the integers they
// are (a uint64 height above 0, a uint32 format): a descriptor from an archive is input, and a "format" such
// as "../../x" must never reach a path.
import { SnapshotFormatError } from "./errors.ts";

/** A snapshot as CometBFT's ABCI `Snapshot` describes it, plus the chunk hashes its metadata carries. */
export interface SnapshotInfo {
  height: bigint;
  format: number;
  chunks: number;
  /** sha256 of the whole chunk stream. */
  hash: Uint8Array;
  chunkHashes: Uint8Array[];
  /** sha256 of `engine-state.json` when the snapshot carries one (so that file is covered as the chunks are). */
  engineStateHash?: Uint8Array;
}

/** The JSON form of a descriptor (also what `snapshots list -o json` prints). */
export interface DescriptorJson {
  height: string;
  format: number;
  chunks: number;
  hash: string;
  chunk_hashes: string[];
  engine_state_hash?: string;
}

const MAX_UINT64 = 2n ** 64n - 1n;
const MAX_UINT32 = 0xffff_ffff;
/**
 * The most chunks a descriptor may list: 100,000 chunks of the default 4 MiB are 400 GB of state, far beyond any
 * state this project runs, and it keeps a hostile descriptor's hash list (~7 MB of text, and its parse) bounded.
 */
export const MAX_CHUNKS = 100_000;
/** The largest chunk accepted from outside (CometBFT's p2p message limit; `CHAIND_SNAPSHOT_CHUNK_BYTES` stays under it). */
export const MAX_CHUNK_BYTES = 16 * 1024 * 1024;

const HASH = /^[0-9a-fA-F]{64}$/;

/** True for a valid snapshot height: a bigint from 1 to 2^64 − 1. */
export function isSnapshotHeight(height: unknown): height is bigint {
  return typeof height === "bigint" && height >= 1n && height <= MAX_UINT64;
}

/** True for a valid snapshot format: an integer from 0 to 2^32 − 1. */
export function isSnapshotFormat(format: unknown): format is number {
  return typeof format === "number" && Number.isInteger(format) && format >= 0 && format <= MAX_UINT32;
}

/** The height a canonical decimal text names (no sign, no leading zero), or undefined. */
export function parseHeightText(text: string): bigint | undefined {
  if (!/^[1-9][0-9]{0,19}$/.test(text)) return undefined;
  const height = BigInt(text);
  return height <= MAX_UINT64 ? height : undefined;
}

/** The format a canonical decimal text names, or undefined. */
export function parseFormatText(text: string): number | undefined {
  if (!/^(0|[1-9][0-9]{0,9})$/.test(text)) return undefined;
  const format = Number(text);
  return format <= MAX_UINT32 ? format : undefined;
}

/**
 * Checks a parsed `snapshot.json` and returns the snapshot it describes; throws SnapshotFormatError naming the
 * first field that is wrong and what was expected. `where` names the file in the message.
 */
export function parseDescriptor(json: unknown, where: string): SnapshotInfo {
  const fail = (what: string): never => {
    throw new SnapshotFormatError(`${where} is not a valid snapshot descriptor: ${what}`);
  };
  if (json === null || typeof json !== "object" || Array.isArray(json)) fail("expected a JSON object");
  const d = json as Record<string, unknown>;
  const height = typeof d.height === "string" ? parseHeightText(d.height) : undefined;
  if (height === undefined) {
    fail(`"height" is ${show(d.height)}; expected a decimal string of a whole number from 1 to 2^64-1`);
  }
  if (!isSnapshotFormat(d.format)) {
    fail(`"format" is ${show(d.format)}; expected a whole number from 0 to 4294967295`);
  }
  const chunks = d.chunks;
  if (typeof chunks !== "number" || !Number.isInteger(chunks) || chunks < 1 || chunks > MAX_CHUNKS) {
    fail(`"chunks" is ${show(chunks)}; expected a whole number from 1 to ${MAX_CHUNKS}`);
  }
  if (typeof d.hash !== "string" || !HASH.test(d.hash)) fail(`"hash" is ${show(d.hash)}; expected 64 hex digits`);
  if (!Array.isArray(d.chunk_hashes) || d.chunk_hashes.length !== chunks) {
    fail(`"chunk_hashes" must be a list of ${show(chunks)} hashes (one per chunk)`);
  }
  const list = d.chunk_hashes as unknown[];
  list.forEach((h, i) => {
    if (typeof h !== "string" || !HASH.test(h)) fail(`chunk hash ${i} is ${show(h)}; expected 64 hex digits`);
  });
  const info: SnapshotInfo = {
    height: height as bigint,
    format: d.format as number,
    chunks: chunks as number,
    hash: hexBytes(d.hash as string),
    chunkHashes: (list as string[]).map(hexBytes),
  };
  if (d.engine_state_hash !== undefined) {
    if (typeof d.engine_state_hash !== "string" || !HASH.test(d.engine_state_hash)) {
      fail(`"engine_state_hash" is ${show(d.engine_state_hash)}; expected 64 hex digits`);
    }
    info.engineStateHash = hexBytes(d.engine_state_hash as string);
  }
  return info;
}

/** Parses the text of a `snapshot.json` (see {@link parseDescriptor}). */
export function parseDescriptorText(text: string, where: string): SnapshotInfo {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new SnapshotFormatError(`${where} is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  return parseDescriptor(json, where);
}

/** The JSON form of a descriptor. */
export function describe(info: SnapshotInfo): DescriptorJson {
  const out: DescriptorJson = {
    height: info.height.toString(),
    format: info.format,
    chunks: info.chunks,
    hash: hex(info.hash),
    chunk_hashes: info.chunkHashes.map(hex),
  };
  if (info.engineStateHash !== undefined) out.engine_state_hash = hex(info.engineStateHash);
  return out;
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("hex").toUpperCase();
}

function hexBytes(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, "hex"));
}

/** A value as a message shows it: JSON, cut short. */
function show(value: unknown): string {
  const text = value === undefined ? "missing" : (JSON.stringify(value) ?? String(value));
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}
