// What an upgrade handler calls to turn vote extensions (and so readiness signals) on for a chain started without
// them. The enable height is state (0x05, readiness-store.ts); the App sees it change during the block and returns
// it to the consensus engine as FinalizeBlock's `consensus_param_updates.abci.vote_extensions_enable_height`, which
// CometBFT and the embedded engine accept only for a height after the current block.
import type { Context } from "../../app/context.ts";
import { UPGRADE_STORE_KEY } from "./keys.ts";
import { setVoteExtensionsEnableHeight, voteExtensionsEnableHeight } from "./readiness-store.ts";

/** Options of {@link enableVoteExtensions}. */
export interface EnableVoteExtensionsOptions {
  /** The first height whose precommits carry extensions; default: the block after the upgrade's. */
  height?: bigint;
  /** The upgrade module's store key, when the chain renamed it. */
  storeKey?: string;
}

/**
 * Turns vote extensions on from `options.height` (default: the next block) unless they are on already, in which case
 * nothing is written (a chain made by `chaind init` has them from height 1, and CometBFT refuses to move an enable
 * height once set). Returns the enable height in effect. Throws when the height is not after the current block.
 */
export async function enableVoteExtensions(ctx: Context, options: EnableVoteExtensionsOptions = {}): Promise<bigint> {
  const storeKey = options.storeKey ?? UPGRADE_STORE_KEY;
  const current = await voteExtensionsEnableHeight(ctx, storeKey);
  if (current > 0n) return current;
  const height = options.height ?? ctx.blockHeight + 1n;
  if (height <= ctx.blockHeight) {
    throw new Error(
      `vote extensions can only be enabled from a future height: ${height} requested in block ${ctx.blockHeight}, expected ${ctx.blockHeight + 1n} or later`,
    );
  }
  await setVoteExtensionsEnableHeight(ctx, height, storeKey);
  return height;
}
