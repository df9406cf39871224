// Packing messages into google.protobuf.Any the Cosmos way: the type URL is "/" + the full message name
// (protobuf-es's own anyPack would write a "type.googleapis.com/" prefix, which the chain does not use).

import { create, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { type Any, AnySchema } from "@bufbuild/protobuf/wkt";
import { toWireBinary } from "../../app/wire-decimals.ts";

/** The type URL of a message schema: `/chain.bank.v1beta1.MsgSend`. */
export function typeUrlOf(schema: DescMessage): string {
  return `/${schema.typeName}`;
}

/** An Any holding `message` encoded with `schema`. */
export function packAny<Desc extends DescMessage>(schema: Desc, message: MessageShape<Desc>): Any {
  return create(AnySchema, { typeUrl: typeUrlOf(schema), value: toWireBinary(schema, message) });
}

/** An Any from a type URL and already encoded bytes (e.g. a message from another registry). */
export function rawAny(typeUrl: string, value: Uint8Array): Any {
  return create(AnySchema, { typeUrl, value });
}
