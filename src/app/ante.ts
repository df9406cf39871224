// The ante handler slot of the tx pipeline: the checks that run before a tx's messages (upstream's
// AnteHandler). The framework only defines the shape; the default chain of checks lives with the
// auth module (src/x/auth/ante.ts), which owns accounts, signatures and fees.
import type { Context } from "./context.ts";
import type { DecodedTx } from "./tx-decode.ts";

/**
 * Runs the pre-message checks of `tx` in `ctx` (a branch of the block or check state, metered by
 * the tx's gas meter). Throw to reject; writes stick only when it returns (fees, sequences, pubkeys).
 * `ctx.mode` says whether this is CheckTx (`check`/`recheck`), `simulate`, `finalize` or `genesis`.
 */
export type AnteHandler = ((ctx: Context, tx: DecodedTx) => Promise<void>) & {
  /**
   * Optional: called once per block with every decodable tx before any runs, against the block's
   * starting state (read only). The default handler verifies the block's signatures in parallel here
   * so the per-tx checks find them done. It must not change state or throw for a bad tx.
   */
  prepareBlock?: (ctx: Context, txs: readonly DecodedTx[]) => Promise<void>;
  /**
   * Optional: called for one tx when it arrives for CheckTx, outside the app's lock and concurrently
   * with other txs and blocks, against the check state (read only). The default handler verifies the
   * tx's signatures here when they go to a worker thread, so CheckTx finds them done (and does nothing where
   * they would be verified on this thread anyway). Same rules as `prepareBlock`.
   */
  prepareCheck?: (ctx: Context, tx: DecodedTx) => Promise<void>;
  /**
   * Optional, with `prepareCheck`: whether it would do anything now. False lets the app skip a CheckTx
   * preparation altogether (its context, gas meter and promises, per tx); absent means it always might.
   */
  preparesCheck?: () => boolean;
};

/** An ante handler that accepts everything (tests of the pipeline itself). */
export const acceptAllAnteHandler: AnteHandler = async () => {};
