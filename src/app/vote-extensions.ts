// What a module plugs into the App to use CometBFT v0.38's vote extensions. The App itself is module-agnostic:
// without a handler it extends with nothing, accepts only empty extensions and carries no extended commit. With one,
// from the height after `abci.vote_extensions_enable_height` on, every block's first tx is the previous height's
// extended commit (extended-commit.ts), checked in ProcessProposal and handed to the handler in PreBlock.
import type { ExtendedCommitInfo } from "../gen/tendermint/abci/types_pb.js";
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
  /** The height from which vote extensions are on, as the state records it (0 = off). */
  enableHeight(ctx: Context): Promise<bigint>;
  /** Records the enable height (InitChain: the genesis consensus params'; an upgrade that turns them on). */
  setEnableHeight(ctx: Context, height: bigint): Promise<void>;
  /** The ed25519 consensus key of the validator with consensus address `address`, if the state knows one. */
  consensusKeyOf(ctx: Context, address: Uint8Array): Promise<Uint8Array | undefined>;
  /** PreBlock: the previous height's extended commit, already checked, for the block at `ctx.blockHeight`. */
  recordExtendedCommit(ctx: Context, commit: ExtendedCommitInfo): Promise<void>;
  /**
   * Optional: whether the block at `ctx.blockHeight` would keep a due plan from being applied (the upgrade module's
   * readiness gate), `ctx` being a throwaway branch of the committed state on which the block's commit, if any, was
   * already recorded. The replay mode asks before it switches releases.
   */
  holdsDuePlan?(ctx: Context): Promise<boolean>;
}

/** True when the block at `height` carries the extended commit of `height − 1` (extensions on at `height − 1`). */
export function carriesExtendedCommit(enableHeight: bigint, height: bigint): boolean {
  return enableHeight > 0n && height - 1n >= enableHeight;
}
