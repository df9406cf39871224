// The sample builder must fill every kind of field, including kinds no current schema uses (maps,
// floats, sint/fixed types), so that a future schema is compared as thoroughly as today's.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  create,
  createFileRegistry,
  equals,
  fromBinary,
  fromJson,
  isFieldSet,
  toBinary,
  toJson,
} from "@bufbuild/protobuf";
import { protoCamelCase } from "@bufbuild/protobuf/reflect";
import {
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FileDescriptorProtoSchema,
  file_google_protobuf_any,
  file_google_protobuf_timestamp,
} from "@bufbuild/protobuf/wkt";
import { file_chain_base_v1beta1_coin } from "../../src/gen/chain/base/v1beta1/coin_pb.js";
import { file_chain_codec_v1_codec } from "../../src/gen/chain/codec/v1/codec_pb.js";
import { sampleAnyTypeUrl, sampleMessage, sampleVariantCount } from "./sample-message.ts";

const T = FieldDescriptorProto_Type;
const { OPTIONAL, REPEATED } = FieldDescriptorProto_Label;

function field(name: string, number: number, type: FieldDescriptorProto_Type, extra: object = {}) {
  return { name, number, type, jsonName: protoCamelCase(name), label: OPTIONAL, ...extra };
}

const scalarTypes = [T.DOUBLE, T.FLOAT, T.INT64, T.UINT64, T.INT32, T.FIXED64, T.FIXED32, T.BOOL, T.STRING, T.BYTES];
const moreScalars = [T.UINT32, T.SFIXED32, T.SFIXED64, T.SINT32, T.SINT64];

const proto = create(FileDescriptorProtoSchema, {
  name: "selftest/kinds.proto",
  package: "selftest",
  syntax: "proto3",
  dependency: ["google/protobuf/any.proto", "google/protobuf/timestamp.proto"],
  enumType: [
    {
      name: "Color",
      value: [
        { name: "COLOR_UNSPECIFIED", number: 0 },
        { name: "COLOR_RED", number: 3 },
      ],
    },
  ],
  messageType: [
    {
      name: "Kinds",
      field: [
        ...[...scalarTypes, ...moreScalars].map((type, i) => field(`scalar_${i}`, i + 1, type)),
        field("colors", 20, T.ENUM, { typeName: ".selftest.Color", label: REPEATED }),
        field("counts", 21, T.SINT64, { label: REPEATED }),
        field("by_name", 22, T.MESSAGE, { typeName: ".selftest.Kinds.ByNameEntry", label: REPEATED }),
        field("by_height", 23, T.MESSAGE, { typeName: ".selftest.Kinds.ByHeightEntry", label: REPEATED }),
        field("packed", 24, T.MESSAGE, { typeName: ".google.protobuf.Any" }),
        field("at", 25, T.MESSAGE, { typeName: ".google.protobuf.Timestamp" }),
        field("children", 26, T.MESSAGE, { typeName: ".selftest.Kinds", label: REPEATED }),
        field("text", 27, T.STRING, { oneofIndex: 0 }),
        field("color", 28, T.ENUM, { typeName: ".selftest.Color", oneofIndex: 0 }),
        field("nested", 29, T.MESSAGE, { typeName: ".selftest.Leaf", oneofIndex: 0 }),
      ],
      oneofDecl: [{ name: "choice" }],
      nestedType: [
        {
          name: "ByNameEntry",
          options: { mapEntry: true },
          field: [field("key", 1, T.STRING), field("value", 2, T.MESSAGE, { typeName: ".selftest.Leaf" })],
        },
        {
          name: "ByHeightEntry",
          options: { mapEntry: true },
          field: [field("key", 1, T.INT64), field("value", 2, T.STRING)],
        },
      ],
    },
    { name: "Leaf", field: [field("note", 1, T.STRING)] },
  ],
});
const registry = createFileRegistry(proto, (name) =>
  name === "google/protobuf/any.proto" ? file_google_protobuf_any : file_google_protobuf_timestamp,
);
const kinds = registry.getMessage("selftest.Kinds");
assert.ok(kinds);
const jsonRegistry = createFileRegistry(
  registry,
  createFileRegistry(file_chain_base_v1beta1_coin.proto, (name) =>
    name === "chain/codec/v1/codec.proto" ? file_chain_codec_v1_codec : undefined,
  ),
);

test("one variant per case of the largest oneof", () => {
  assert.equal(sampleVariantCount(kinds), 3);
});

test("every field is set and every oneof case is reached across the variants", () => {
  const cases = new Set<string | undefined>();
  for (let variant = 0; variant < sampleVariantCount(kinds); variant++) {
    const message = sampleMessage(kinds, { variant });
    for (const f of kinds.fields) {
      if (f.oneof === undefined) assert.ok(isFieldSet(message, f), `${f.name} is unset`);
    }
    cases.add((message as unknown as { choice: { case?: string } }).choice.case);
    const bytes = toBinary(kinds, message);
    assert.ok(equals(kinds, fromBinary(kinds, bytes), message));
    const json = JSON.parse(JSON.stringify(toJson(kinds, message, { registry: jsonRegistry })));
    assert.equal(json.packed["@type"], sampleAnyTypeUrl);
    assert.equal(Object.keys(json.byName).length, 2);
    assert.ok(fromJson(kinds, json, { registry: jsonRegistry }));
  }
  assert.deepEqual([...cases].sort(), ["color", "nested", "text"]);
});

test("a type that contains itself is sampled one level deep, then stops", () => {
  const message = sampleMessage(kinds, { variant: 0 }) as unknown as { children: { children: unknown[] }[] };
  assert.equal(message.children.length, 2);
  assert.deepEqual(message.children[0].children, []);
});

test("enums take a non-zero value and signed lists include a negative number", () => {
  const message = sampleMessage(kinds, { variant: 0 }) as unknown as { colors: number[]; counts: bigint[] };
  assert.deepEqual(message.colors, [3, 3]);
  assert.ok(message.counts.some((n) => n < 0n));
});
