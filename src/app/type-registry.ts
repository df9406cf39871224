// The app's type registry: every message type that may appear inside an Any (Msgs, accounts, public
// keys, proposal content). The tx decoder resolves Anys through it, and proto JSON (REST, CLI,
// genesis) uses it to read and write `"@type"`.
import { createRegistry, type DescFile, type DescMessage, type Registry } from "@bufbuild/protobuf";
import {
  file_google_protobuf_any,
  file_google_protobuf_duration,
  file_google_protobuf_timestamp,
} from "@bufbuild/protobuf/wkt";
import { file_chain_auth_v1beta1_auth } from "../gen/chain/auth/v1beta1/auth_pb.js";
import { file_chain_crypto_ed25519_keys } from "../gen/chain/crypto/ed25519/keys_pb.js";
import { file_chain_crypto_multisig_keys } from "../gen/chain/crypto/multisig/keys_pb.js";
import { file_chain_crypto_secp256k1_keys } from "../gen/chain/crypto/secp256k1/keys_pb.js";
import { file_chain_tx_v1beta1_tx } from "../gen/chain/tx/v1beta1/tx_pb.js";
import { cosmosPubKeyAliasFiles } from "./pubkey-aliases.ts";

/**
 * Files every app registers: tx envelope, keys (with the `/cosmos.crypto.*.PubKey` aliases signer infos may carry),
 * accounts and the well-known types.
 */
export const BASE_TYPE_FILES: readonly DescFile[] = [
  file_google_protobuf_any,
  file_google_protobuf_timestamp,
  file_google_protobuf_duration,
  file_chain_tx_v1beta1_tx,
  file_chain_crypto_secp256k1_keys,
  file_chain_crypto_ed25519_keys,
  file_chain_crypto_multisig_keys,
  file_chain_auth_v1beta1_auth,
  ...cosmosPubKeyAliasFiles(),
];

/** A registry of the given files (with all their dependencies) and messages. */
export function buildTypeRegistry(items: Iterable<DescFile | DescMessage>): Registry {
  const files = new Map<string, DescFile>();
  const messages: DescMessage[] = [];
  const addFile = (file: DescFile): void => {
    if (files.has(file.name)) return;
    files.set(file.name, file);
    for (const dep of file.dependencies) addFile(dep);
  };
  for (const item of [...BASE_TYPE_FILES, ...items]) {
    if (item.kind === "file") addFile(item);
    else messages.push(item);
  }
  return createRegistry(...files.values(), ...messages);
}
