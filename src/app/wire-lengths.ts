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
  try {
    walk(desc, bytes, registry, 0);
  } catch (err) {
    throw new Error(`cannot decode ${what}: ${(err as Error).message}`, { cause: err });
  }
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
