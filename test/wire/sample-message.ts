// Builds deterministic sample messages with every field set to a non-default value, by walking the
// protobuf-es descriptor. A field left at its default is not on the wire, so a wrong number or type
// for it could not be noticed; filling everything is what makes the byte comparison meaningful.
import {
  create,
  type DescField,
  type DescMessage,
  type Message,
  type MessageInitShape,
  ScalarType,
  toBinary,
} from "@bufbuild/protobuf";
import { usedTypes } from "@bufbuild/protobuf/reflect";
import { legacyDecFields } from "../../src/app/wire-decimals.ts";
import { CoinSchema } from "../../src/gen/chain/base/v1beta1/coin_pb.js";

function isLegacyDec(field: DescField): boolean {
  return field.parent !== undefined && legacyDecFields(field.parent).includes(field);
}

type Init = Record<string, unknown>;

/** Type URL and payload packed into every `google.protobuf.Any` of a sample. */
export const sampleAnyTypeUrl = "/chain.base.v1beta1.Coin";

function isSigned(scalar: ScalarType): boolean {
  return (
    scalar === ScalarType.INT32 ||
    scalar === ScalarType.INT64 ||
    scalar === ScalarType.SINT32 ||
    scalar === ScalarType.SINT64 ||
    scalar === ScalarType.SFIXED32 ||
    scalar === ScalarType.SFIXED64
  );
}

/** A non-default value of the scalar type; `seed` varies it so that neighbouring fields differ. */
function scalarValue(scalar: ScalarType, seed: number, negative: boolean): unknown {
  const n = negative && isSigned(scalar) ? -seed : seed;
  switch (scalar) {
    case ScalarType.DOUBLE:
      return n + 0.25;
    case ScalarType.FLOAT:
      return n + 0.5; // exactly representable in float32
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return BigInt(n) * 1_000_003n; // beyond 32 bits for larger seeds
    case ScalarType.BOOL:
      return true;
    case ScalarType.STRING:
      return `s${seed}-é`; // a non-ASCII character checks the UTF-8 length prefix
    case ScalarType.BYTES:
      return new Uint8Array([seed & 0xff, 0x00, 0xff, 0x80]);
    default:
      return n; // the 32-bit integer types
  }
}

function mapKey(scalar: ScalarType, index: number): string | number | bigint | boolean {
  // Keys are chosen so that every encoder iterates them in the same (ascending) order.
  if (scalar === ScalarType.STRING) return `key${index}`;
  if (scalar === ScalarType.BOOL) return index === 1;
  const value = scalarValue(scalar, index + 1, false);
  return typeof value === "bigint" ? value.toString() : (value as number);
}

function enumValue(field: DescField, index: number): number {
  const values = field.enum?.values.filter((v) => v.number !== 0) ?? [];
  if (values.length === 0) throw new Error(`enum of ${field.toString()} has no non-zero value to sample`);
  return values[index % values.length].number;
}

/** Options that steer which oneof case is chosen; variant k picks case k (modulo the group size) everywhere. */
export interface SampleOptions {
  readonly variant: number;
}

function wellKnownInit(desc: DescMessage, seed: number): Init | undefined {
  switch (desc.typeName) {
    case "google.protobuf.Any":
      return {
        typeUrl: sampleAnyTypeUrl,
        value: toBinary(CoinSchema, create(CoinSchema, { denom: "stake", amount: String(seed) })),
      };
    case "google.protobuf.Timestamp":
      return { seconds: 1_700_000_000n + BigInt(seed), nanos: 500_000 + seed };
    case "google.protobuf.Duration":
      return { seconds: 60n + BigInt(seed), nanos: 250_000_000 };
    default:
      return undefined;
  }
}

/** A type may repeat once along the path (one level of self-nesting is sampled), not twice. */
function tooDeep(path: readonly string[], typeName: string): boolean {
  return path.filter((name) => name === typeName).length >= 2;
}

function fieldInit(field: DescField, seed: number, options: SampleOptions, path: readonly string[]): unknown {
  switch (field.fieldKind) {
    case "scalar":
      // A LegacyDec field holds decimal text with 18 fraction digits (its wire form is checked separately).
      if (isLegacyDec(field)) return `${seed}.${String(seed).padStart(18, "0")}`;
      return scalarValue(field.scalar, seed, false);
    case "enum":
      return enumValue(field, 0);
    case "message":
      return tooDeep(path, field.message.typeName) ? undefined : messageInit(field.message, seed, options, path);
    case "list": {
      if (field.listKind === "message") {
        // A type that contains itself gets an empty list one level down, which ends the recursion.
        if (tooDeep(path, field.message.typeName)) return [];
        return [0, 1].map((i) => messageInit(field.message, seed + i * 7, options, path));
      }
      if (field.listKind === "enum") return [0, 1].map((i) => enumValue(field, i));
      return [0, 1].map((i) => scalarValue(field.scalar, seed + i, i === 1));
    }
    case "map": {
      const entries: Record<string, unknown> = {};
      for (const i of [0, 1]) {
        const key = String(mapKey(field.mapKey, i));
        if (field.mapKind === "message") {
          entries[key] = tooDeep(path, field.message.typeName)
            ? create(field.message)
            : messageInit(field.message, seed + i, options, path);
        } else if (field.mapKind === "enum") entries[key] = enumValue(field, i);
        else entries[key] = scalarValue(field.scalar, seed + i, i === 1);
      }
      return entries;
    }
  }
}

function messageInit(desc: DescMessage, seed: number, options: SampleOptions, path: readonly string[]): Init {
  const known = wellKnownInit(desc, seed);
  if (known !== undefined) return known;
  const inner = [...path, desc.typeName];
  const init: Init = {};
  for (const member of desc.members) {
    if (member.kind === "oneof") {
      const chosen = member.fields[options.variant % member.fields.length];
      const value = fieldInit(chosen, seed + chosen.number, options, inner);
      if (value !== undefined) init[member.localName] = { case: chosen.localName, value };
      continue;
    }
    const value = fieldInit(member, seed + member.number, options, inner);
    if (value !== undefined) init[member.localName] = value;
  }
  return init;
}

/** Builds a sample of `desc` with every field (and one case of every oneof) set to a non-default value. */
export function sampleMessage(desc: DescMessage, options: SampleOptions): Message {
  return create(desc, messageInit(desc, 1, options, []) as MessageInitShape<DescMessage>);
}

/** How many variants it takes to choose every case of every oneof reachable from `desc` at least once. */
export function sampleVariantCount(desc: DescMessage): number {
  let count = 1;
  for (const type of [desc, ...usedTypes(desc)]) {
    if (type.kind !== "message") continue;
    for (const oneof of type.oneofs) count = Math.max(count, oneof.fields.length);
  }
  return count;
}
