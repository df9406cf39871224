// The tree's empty root. SHA-256 itself is src/bytes' one copy (a commit computes tens of thousands of small
// hashes; its one-part path is the cheap one).
import { sha256 } from "../bytes/sha256.ts";

/** SHA-256 of the empty string: the root of an empty tree. */
export const EMPTY_HASH: Uint8Array = sha256(new Uint8Array(0));
