// Upstream's binary form of LegacyDec fields. Fields marked `(chain.codec.v1.legacy_dec)` hold decimal text with
// 18 fraction digits in memory and in JSON ("0.100000000000000000"), but on the wire upstream (gogoproto customtype
// cosmossdk.io/math.LegacyDec) writes the value times 10^18 as an integer string ("100000000000000000"). Every
// place that turns such a message into bytes for someone else, or reads bytes someone else wrote, goes through
// `toWireBinary` / `fromWireBinary` (gRPC, ABCI query, tx decoding, Any packing, the CLI's client), and the JSON
// printers convert the contents of Any values the same way. The stores keep their own (unchanged) encoding.
import {
  clone,
  create,
  type DescField,
  type DescMessage,
  fromBinary,
  getOption,
  hasOption,
  type Message,
  type MessageShape,
  type Registry,
  toBinary,
} from "@bufbuild/protobuf";
import { legacy_dec } from "../gen/chain/codec/v1/codec_pb.js";
import { formatDecimal, parseDecimalInput } from "./dec.ts";

/** Binary that carries a LegacyDec field in a form other than upstream's scaled integer. */
export class WireDecimalError extends Error {
  override name = "WireDecimalError";
}

const MAX_DEPTH = 32;
const decimalFieldCache = new WeakMap<DescMessage, readonly DescField[]>();
const containsCache = new WeakMap<DescMessage, boolean>();

/** The message's own fields marked `legacy_dec`. */
export function legacyDecFields(schema: DescMessage): readonly DescField[] {
  let fields = decimalFieldCache.get(schema);
  if (fields === undefined) {
    fields = schema.fields.filter((f) => hasOption(f, legacy_dec) && getOption(f, legacy_dec));
    decimalFieldCache.set(schema, fields);
  }
  return fields;
}

/** Whether the message, or any message nested in it (not inside Any values), has a `legacy_dec` field. */
export function containsLegacyDec(schema: DescMessage): boolean {
  const cached = containsCache.get(schema);
  if (cached !== undefined) return cached;
  containsCache.set(schema, false); // cycle guard while the answer is computed
  let result = legacyDecFields(schema).length > 0;
  if (!result) {
    for (const f of schema.fields) {
      const nested =
        f.fieldKind === "message"
          ? f.message
          : f.fieldKind === "list" && f.listKind === "message"
            ? f.message
            : f.fieldKind === "map" && f.mapKind === "message"
              ? f.message
              : undefined;
      if (nested !== undefined && containsLegacyDec(nested)) {
        result = true;
        break;
      }
    }
  }
  containsCache.set(schema, result);
  return result;
}

/**
 * Decimal text → upstream's wire text ("0.1" → "100000000000000000"); "" (an unset field) stays "". The text is
 * checked as upstream's LegacyDec is (what JSON input carries; values the node formats itself always pass).
 */
export function decimalToWire(text: string): string {
  return text === "" ? "" : parseDecimalInput(text).toString();
}

/** Upstream's wire text → decimal text ("100000000000000000" → "0.100000000000000000"); "" stays "". */
export function decimalFromWire(text: string, where = "LegacyDec"): string {
  if (text === "") return "";
  if (!/^-?\d+$/.test(text)) {
    throw new WireDecimalError(
      `invalid ${where} in binary: expected a LegacyDec as an integer scaled by 10^18 ` +
        `(e.g. "100000000000000000" for 0.1), got ${JSON.stringify(text)}`,
    );
  }
  return formatDecimal(BigInt(text));
}

type Convert = (text: string, where: string) => string;

/** Converts, in place, every `legacy_dec` field of `message` and of the messages nested in it. */
function convertFields(schema: DescMessage, message: Message, convert: Convert, depth: number): void {
  if (depth > MAX_DEPTH || !containsLegacyDec(schema)) return;
  const record = message as unknown as Record<string, unknown>;
  for (const f of legacyDecFields(schema)) {
    const where = `${schema.typeName}.${f.name}`;
    if (f.fieldKind === "scalar" && f.oneof === undefined)
      record[f.localName] = convert(record[f.localName] as string, where);
    else if (f.fieldKind === "list") {
      record[f.localName] = (record[f.localName] as string[]).map((v) => convert(v, where));
    }
  }
  for (const f of schema.fields) {
    if (f.fieldKind === "message") {
      const value =
        f.oneof === undefined
          ? record[f.localName]
          : (record[f.oneof.localName] as { case?: string; value?: unknown } | undefined)?.case === f.localName
            ? (record[f.oneof.localName] as { value: unknown }).value
            : undefined;
      if (value !== undefined) convertFields(f.message, value as Message, convert, depth + 1);
    } else if (f.fieldKind === "list" && f.listKind === "message") {
      for (const item of record[f.localName] as Message[]) convertFields(f.message, item, convert, depth + 1);
    } else if (f.fieldKind === "map" && f.mapKind === "message") {
      for (const item of Object.values(record[f.localName] as Record<string, Message>)) {
        convertFields(f.message, item, convert, depth + 1);
      }
    }
  }
}

/** Encodes a message as upstream does: `legacy_dec` fields as scaled integers (the message is not changed). */
export function toWireBinary<Desc extends DescMessage>(schema: Desc, message: MessageShape<Desc>): Uint8Array {
  if (!containsLegacyDec(schema)) return toBinary(schema, message);
  const copy = clone(schema, message);
  convertFields(schema, copy, (t) => decimalToWire(t), 0);
  return toBinary(schema, copy);
}

/** Decodes upstream's binary form: `legacy_dec` fields come back as decimal text. Throws {@link WireDecimalError}. */
export function fromWireBinary<Desc extends DescMessage>(schema: Desc, bytes: Uint8Array): MessageShape<Desc> {
  const message = fromBinary(schema, bytes);
  if (containsLegacyDec(schema)) convertFields(schema, message, decimalFromWire, 0);
  return message;
}

/** Converts a decoded message's `legacy_dec` fields from wire text to decimal text, in place. */
export function decimalsFromWire(schema: DescMessage, message: Message): void {
  convertFields(schema, message, decimalFromWire, 0);
}

/** Whether `f` is an Any field (single, list or map value). */
function anyMessageOf(f: DescField): DescMessage | undefined {
  const m =
    f.fieldKind === "message" ||
    (f.fieldKind === "list" && f.listKind === "message") ||
    (f.fieldKind === "map" && f.mapKind === "message")
      ? f.message
      : undefined;
  return m;
}

/**
 * Rewrites, in a copy, every Any value (at any depth, nested Anys too) whose packed type is in `registry`: the
 * packed bytes are read in one form and written in the other. `direction = "fromWire"` turns upstream's bytes into
 * bytes whose decimals are text, which is what protobuf-es' `toJson` needs to print decimal text; `"toWire"` is the
 * reverse, for Any values `fromJson` packed.
 */
export function convertAnyValues<Desc extends DescMessage>(
  schema: Desc,
  message: MessageShape<Desc>,
  registry: Registry,
  direction: "fromWire" | "toWire",
): MessageShape<Desc> {
  const copy = clone(schema, message);
  walkAnys(schema, copy, registry, direction, 0);
  return copy;
}

function walkAnys(
  schema: DescMessage,
  message: Message,
  registry: Registry,
  direction: "fromWire" | "toWire",
  depth: number,
): void {
  if (depth > MAX_DEPTH) return;
  if (schema.typeName === "google.protobuf.Any") {
    const any = message as unknown as { typeUrl: string; value: Uint8Array };
    const inner = registry.getMessage(any.typeUrl.slice(any.typeUrl.lastIndexOf("/") + 1));
    if (inner === undefined) return;
    const decoded = direction === "fromWire" ? fromWireBinary(inner, any.value) : fromBinary(inner, any.value);
    walkAnys(inner, decoded, registry, direction, depth + 1);
    any.value = direction === "fromWire" ? toBinary(inner, decoded) : toWireBinary(inner, create(inner, decoded));
    return;
  }
  const record = message as unknown as Record<string, unknown>;
  for (const f of schema.fields) {
    const m = anyMessageOf(f);
    if (m === undefined) continue;
    if (f.fieldKind === "message") {
      const value =
        f.oneof === undefined
          ? record[f.localName]
          : (record[f.oneof.localName] as { case?: string; value?: unknown } | undefined)?.case === f.localName
            ? (record[f.oneof.localName] as { value: unknown }).value
            : undefined;
      if (value !== undefined) walkAnys(m, value as Message, registry, direction, depth + 1);
    } else if (f.fieldKind === "list") {
      for (const item of record[f.localName] as Message[]) walkAnys(m, item, registry, direction, depth + 1);
    } else if (f.fieldKind === "map") {
      for (const item of Object.values(record[f.localName] as Record<string, Message>)) {
        walkAnys(m, item, registry, direction, depth + 1);
      }
    }
  }
}
