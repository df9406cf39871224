// The header of work a node does ahead of the next block, before that block exists (a stepped migration's next
// step, done while the engine waits timeout_commit: src/x/upgrade/migration-lookahead.ts). Its height, chain id and
// the app hash it follows are known; its time, proposer and hash are not, and reading them stops the work — it then
// runs in the block, as it would have without the lookahead.
import type { BlockHeader } from "./context.ts";

/** Thrown by a field of an {@link aheadHeader} that only the block itself will know. */
export class AheadUnknownFieldError extends Error {
  override name = "AheadUnknownFieldError";
  constructor(field: string) {
    super(`the next block's ${field} is not known ahead of the block: this work runs in the block instead`);
  }
}

/** The header of the block at `height`, before it is proposed. */
export function aheadHeader(height: bigint, chainId: string, lastAppHash: Uint8Array): BlockHeader {
  return {
    height,
    chainId,
    lastAppHash,
    get time(): never {
      throw new AheadUnknownFieldError("time");
    },
    get proposerAddress(): never {
      throw new AheadUnknownFieldError("proposer address");
    },
    get hash(): never {
      throw new AheadUnknownFieldError("header hash");
    },
  };
}
