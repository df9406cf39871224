// What a module plugs into the App to use CometBFT v0.38's vote extensions (ExtendVote, VerifyVoteExtension). The
// App itself is module-agnostic: without a handler it extends with nothing and accepts only empty extensions.
import type { Context } from "./context.ts";

/** The App's vote-extension behaviour (the upgrade module's readiness signal is the one chaind wires). */
export interface VoteExtensionHandler {
  /**
   * The extension of this node's precommit at `height`. `ctx` reads the latest committed state (height − 1), or is
   * undefined before the first block. May look outside the state (files, environment): it is not consensus.
   */
  extendVote(ctx: Context | undefined, height: bigint): Promise<Uint8Array>;
  /** True when another validator's extension is acceptable. Must be deterministic and read no state. */
  verifyVoteExtension(extension: Uint8Array): boolean;
}
