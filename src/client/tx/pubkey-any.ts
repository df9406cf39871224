// Public keys inside SignerInfo: built as `/chain.crypto.secp256k1.PubKey` Anys, read back from either our
// type URL or the `/cosmos.crypto.secp256k1.PubKey` alias that stock signers (CosmJS) write.
import type { Any } from "@bufbuild/protobuf/wkt";
import {
  decodePubKeyValue,
  encodePubKeyValue,
  type PublicKey,
  pubKeyAlgorithmOfTypeUrl,
  SECP256K1_PUBKEY_TYPE_URL,
} from "../../crypto/pubkey.ts";
import { rawAny } from "./any.ts";
import { TxClientError } from "./errors.ts";

/** An Any holding a secp256k1 PubKey; `typeUrl` may be the Cosmos alias for compatibility tests. */
export function secp256k1PubKeyAny(pubKey: Uint8Array, typeUrl: string = SECP256K1_PUBKEY_TYPE_URL): Any {
  return rawAny(typeUrl, encodePubKeyValue(pubKey));
}

/**
 * The public key in an Any, accepting `/chain.crypto.{secp256k1,ed25519}.PubKey` and their `/cosmos.`
 * aliases. Throws TxClientError `pubkey-unsupported` for other type URLs (e.g. multisig) and KeyError
 * for a malformed value.
 */
export function pubKeyFromAny(any: Pick<Any, "typeUrl" | "value">): PublicKey {
  const algorithm = pubKeyAlgorithmOfTypeUrl(any.typeUrl);
  if (algorithm === undefined) {
    throw new TxClientError(
      "pubkey-unsupported",
      `unsupported public key type "${any.typeUrl}": expected /chain.crypto.secp256k1.PubKey (or its /cosmos. alias)`,
      { typeUrl: any.typeUrl },
    );
  }
  return { algorithm, key: decodePubKeyValue(any.value, algorithm) };
}
