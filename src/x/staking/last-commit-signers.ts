// A block whose last commit comes from validators this state never had is another chain's block. CometBFT pointed
// at the wrong application home (another chain or another genesis with the same chain id) replays its blocks into
// this state during its handshake, and only notices the mix-up after the app has committed the first of them. The
// check fails that block in BeginBlock instead, so nothing of it is committed, as upstream's slashing BeginBlocker
// does when a vote names an unknown consensus address.
import type { Context } from "../../app/context.ts";
import { addressToBech32 } from "../../crypto/bech32.ts";
import { ErrNoValidatorFound } from "./errors.ts";
import type { StakingKeeper } from "./keeper.ts";

/** How many of the unknown addresses the error names. */
const NAMED_ADDRESSES = 3;

/**
 * Throws when the block's decided last commit names validators and not one of them is known to this state.
 * One known address is enough: a validator set lags its updates by two heights, so the commit can hold a validator
 * this state has already removed.
 */
export async function assertLastCommitSignersKnown(ctx: Context, keeper: StakingKeeper): Promise<void> {
  const addresses = ctx.header.lastCommitAddresses ?? [];
  if (addresses.length === 0) return;
  for (const address of addresses) {
    if ((await keeper.getValidatorByConsAddr(ctx, address)) !== undefined) return;
  }
  const named = addresses.slice(0, NAMED_ADDRESSES).map((address) => addressToBech32(address, "cons"));
  const more = addresses.length > NAMED_ADDRESSES ? `, and ${addresses.length - NAMED_ADDRESSES} more` : "";
  throw ErrNoValidatorFound.wrap(
    `block ${ctx.header.height}'s last commit is signed by none of this state's validators (${named.join(", ")}${more}): the blocks come from another chain or genesis than this application's state; point CometBFT at the home it belongs to`,
  );
}
