// protobuf-es reads a length prefix as a 32-bit varint and drops the higher bits, so a field declaring 2^32 bytes
// reads as an empty one and decoding goes on; upstream's decoder refuses such a length as running past the end of the
// input. The tx decoder therefore reads every length prefix of a tx's body and auth info in full, down through nested
// messages and the Anys the registry resolves, before protobuf-es decodes them.
import type { DescMessage, Registry } from "@bufbuild/protobuf";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import { readUvarint } from "../bytes/varint.ts";

/** How deep nested messages are followed (the decoder refuses deeper nesting anyway). */
const MAX_DEPTH = 64;

/**
 * Throws `cannot decode <what>: …` when a length-delimited field of `bytes` (a `desc` message), or of a message nested
 * in it, declares more bytes than follow it, or the wire format is broken on the way there.
 *
 * @example rejectTruncatedLengths(TxBodySchema, raw.bodyBytes, "TxBody", registry)
 */
export function rejectTruncatedLengths(desc: DescMessage, bytes: Uint8Array, what: string, registry: Registry): void {
  // Almost every tx is well formed: check it in place first, allocating nothing but an Any's type URL. Only a
  // message that check cannot pass goes through the walk below, which says what is wrong in its own words.
  if (fitsInPlace(desc, bytes, 0, bytes.length, registry, 0)) return;
  rejectTruncatedLengthsByWalk(desc, bytes, what, registry);
}

/** {@link rejectTruncatedLengths} without the in-place check first (exported for its test). */
export function rejectTruncatedLengthsByWalk(
  desc: DescMessage,
  bytes: Uint8Array,
  what: string,
  registry: Registry,
): void {
  try {
    walk(desc, bytes, registry, 0);
  } catch (err) {
    throw new Error(`cannot decode ${what}: ${(err as Error).message}`, { cause: err });
  }
}

/** Whether the in-place check alone passes `bytes` (a `desc` message; exported for its test). */
export function passesInPlace(desc: DescMessage, bytes: Uint8Array, registry: Registry): boolean {
  return fitsInPlace(desc, bytes, 0, bytes.length, registry, 0);
}

const utf8Decoder = new TextDecoder();

/** A tag or length varint read by {@link fitsInPlace}: its value and the offset just past it, or `next` -1. */
const varint = { value: 0, next: -1 };

// Reads a varint of at most five bytes ending before `end` into `varint`; anything else (longer, unterminated)
// sets `next` to -1, which sends the message to the walk.
function readShortVarint(bytes: Uint8Array, at: number, end: number): void {
  let value = 0;
  for (let i = 0; i < 5 && at + i < end; i++) {
    const byte = bytes[at + i] as number;
    value += (byte & 0x7f) * 2 ** (7 * i);
    if (byte < 0x80) {
      varint.value = value;
      varint.next = at + i + 1;
      return;
    }
  }
  varint.next = -1;
}

/**
 * True when `bytes[start, end)` (a `desc` message) and every message nested in it are plainly well formed: tags of
 * at most four bytes with a field number and one of the varint, 64-bit, length-delimited or 32-bit wire types, and
 * every field inside its message. Stricter than {@link walk} (no groups, no long varints), so whatever it passes
 * the walk passes too; false means only "let the walk decide".
 */
function fitsInPlace(
  desc: DescMessage,
  bytes: Uint8Array,
  start: number,
  end: number,
  registry: Registry,
  depth: number,
): boolean {
  if (depth > MAX_DEPTH) return false;
  const isAny = desc.typeName === "google.protobuf.Any";
  let anyTypeUrl: string | undefined;
  let anyStart = -1;
  let anyEnd = -1;
  let pos = start;
  while (pos < end) {
    readShortVarint(bytes, pos, end);
    if (varint.next === -1 || varint.next - pos > 4) return false;
    const fieldNo = Math.floor(varint.value / 8);
    const wireType = varint.value % 8;
    pos = varint.next;
    if (fieldNo === 0) return false;
    if (wireType === WireType.Varint) {
      skipVarintValue(bytes, pos, end);
      if (varint.next === -1) return false;
      pos = varint.next;
      continue;
    }
    if (wireType === WireType.Bit64 || wireType === WireType.Bit32) {
      pos += wireType === WireType.Bit64 ? 8 : 4;
      if (pos > end) return false;
      continue;
    }
    if (wireType !== WireType.LengthDelimited) return false;
    readShortVarint(bytes, pos, end);
    if (varint.next === -1 || varint.value > end - varint.next) return false;
    const valueStart = varint.next;
    const valueEnd = valueStart + varint.value;
    pos = valueEnd;
    if (isAny) {
      if (fieldNo === 1) anyTypeUrl = utf8Decoder.decode(bytes.subarray(valueStart, valueEnd));
      else if (fieldNo === 2) {
        anyStart = valueStart;
        anyEnd = valueEnd;
      }
      continue;
    }
    const nested = nestedMessage(desc, fieldNo);
    if (nested !== undefined && !fitsInPlace(nested, bytes, valueStart, valueEnd, registry, depth + 1)) return false;
  }
  const inner = anyTypeUrl?.startsWith("/") ? registry.getMessage(anyTypeUrl.slice(1)) : undefined;
  return inner === undefined || anyStart === -1 || fitsInPlace(inner, bytes, anyStart, anyEnd, registry, depth + 1);
}

// Steps over a varint field's value of up to ten bytes ending before `end` (`varint.next`, or -1 for anything else).
function skipVarintValue(bytes: Uint8Array, at: number, end: number): void {
  for (let i = 0; i < 10 && at + i < end; i++) {
    if ((bytes[at + i] as number) < 0x80) {
      varint.next = at + i + 1;
      return;
    }
  }
  varint.next = -1;
}

/** The message type of field `fieldNo` of `desc` when it is a message or a list of messages. */
function nestedMessage(desc: DescMessage, fieldNo: number): DescMessage | undefined {
  const fields = desc.fields;
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] as (typeof fields)[number];
    if (field.number !== fieldNo) continue;
    if (field.fieldKind === "message") return field.message;
    if (field.fieldKind === "list" && field.listKind === "message") return field.message;
    return undefined;
  }
  return undefined;
}

function walk(desc: DescMessage, bytes: Uint8Array, registry: Registry, depth: number): void {
  if (depth > MAX_DEPTH) throw new Error(`messages nested deeper than ${MAX_DEPTH} levels`);
  const reader = new BinaryReader(bytes);
  let anyTypeUrl: string | undefined;
  let anyValue: Uint8Array | undefined;
  while (reader.pos < reader.len) {
    const [fieldNo, wireType] = reader.tag();
    if (wireType !== WireType.LengthDelimited) {
      reader.skip(wireType, fieldNo);
      continue;
    }
    const prefix = readUvarint(bytes, reader.pos);
    const start = reader.pos + (prefix?.length ?? 0);
    if (prefix === undefined || prefix.value > reader.len - start) {
      throw new Error(`field ${fieldNo} of ${desc.typeName} declares more bytes than follow; unexpected end of input`);
    }
    const value = bytes.subarray(start, start + prefix.value);
    reader.pos = start + prefix.value;
    if (desc.typeName === "google.protobuf.Any") {
      if (fieldNo === 1) anyTypeUrl = new TextDecoder().decode(value);
      else if (fieldNo === 2) anyValue = value;
      continue;
    }
    const field = desc.fields.find((candidate) => candidate.number === fieldNo);
    const nested =
      field?.fieldKind === "message" || (field?.fieldKind === "list" && field.listKind === "message")
        ? field.message
        : undefined;
    if (nested !== undefined) walk(nested, value, registry, depth + 1);
  }
  // An Any's value is checked as the type it names; an unresolvable type is the decoder's to report.
  const inner = anyTypeUrl?.startsWith("/") ? registry.getMessage(anyTypeUrl.slice(1)) : undefined;
  if (inner !== undefined && anyValue !== undefined) walk(inner, anyValue, registry, depth + 1);
}
