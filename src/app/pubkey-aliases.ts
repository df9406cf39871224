// The `/cosmos.crypto.*.PubKey` type URLs the node accepts in signer infos (docs/CONTRACT.md §4: stock signers such
// as CosmJS always write `/cosmos.crypto.secp256k1.PubKey`). Accepting them is not enough: the stored tx carries the
// alias inside its signed bytes, so every place that prints or reads a tx as JSON (REST GetTx and GetTxsEvent,
// `query tx`, `tx decode`, `tx broadcast` of a printed tx) must resolve it too, and must keep the alias's type URL so
// that the bytes, the signature and the hash stay the same. Registering a message of the alias's own name, with the
// same fields as the chain's key, gives all of them that for free.
import { create, createFileRegistry, type DescFile } from "@bufbuild/protobuf";
import {
  type DescriptorProto,
  DescriptorProtoSchema,
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FileDescriptorProtoSchema,
} from "@bufbuild/protobuf/wkt";

/** Type URLs accepted as aliases of the chain's secp256k1 and ed25519 public keys. */
export const COSMOS_PUBKEY_ALIAS_TYPE_URLS = [
  "/cosmos.crypto.secp256k1.PubKey",
  "/cosmos.crypto.ed25519.PubKey",
] as const;

/**
 * Files declaring `cosmos.crypto.secp256k1.PubKey` and `cosmos.crypto.ed25519.PubKey` (`{bytes key = 1}`, the
 * chain's keys under upstream's names), for the app's type registry.
 */
export function cosmosPubKeyAliasFiles(): DescFile[] {
  return ["secp256k1", "ed25519"].map((algorithm) => {
    const name = `cosmos/crypto/${algorithm}/keys.proto`;
    const proto = create(FileDescriptorProtoSchema, {
      name,
      package: `cosmos.crypto.${algorithm}`,
      syntax: "proto3",
      messageType: [pubKeyMessage()],
    });
    const file = createFileRegistry(proto, () => undefined).getFile(name);
    if (file === undefined) throw new Error(`cannot build the descriptor of ${name}`);
    return file;
  });
}

function pubKeyMessage(): DescriptorProto {
  return create(DescriptorProtoSchema, {
    name: "PubKey",
    field: [
      {
        name: "key",
        number: 1,
        label: FieldDescriptorProto_Label.OPTIONAL,
        type: FieldDescriptorProto_Type.BYTES,
        jsonName: "key",
      },
    ],
  });
}
