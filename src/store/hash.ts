// SHA-256 through node:crypto's one-shot hash (native, no per-call object), used by the tree,
// the RFC 6962 merkle root and the proof verifier.
import { sha256 } from "../bytes/sha256.ts";

export { sha256 };

/** SHA-256 of the empty string: the root of an empty tree. */
export const EMPTY_HASH: Uint8Array = sha256(new Uint8Array(0));
