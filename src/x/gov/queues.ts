// The two proposal queues (upstream keeper.go's ActiveProposalsQueue and InactiveProposalsQueue): ids keyed
// by time ‖ id, so the EndBlocker walks each in time order and stops at the first entry still in the future.
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import type { Context } from "../../app/context.ts";
import { compareTimestamps } from "../../app/time.ts";
import type { GovKeeper } from "./keeper.ts";
import { ACTIVE_QUEUE_PREFIX, INACTIVE_QUEUE_PREFIX, idBytes, queueKey, readId, readTime } from "./keys.ts";

/** Adds the proposal to the inactive (deposit) queue. */
export function insertInactiveQueue(ctx: Context, keeper: GovKeeper, id: bigint, depositEndTime: Timestamp): void {
  ctx.kvStore(keeper.storeKey).set(queueKey(INACTIVE_QUEUE_PREFIX, depositEndTime, id), idBytes(id));
}

/** Adds the proposal to the active (voting) queue. */
export function insertActiveQueue(ctx: Context, keeper: GovKeeper, id: bigint, votingEndTime: Timestamp): void {
  ctx.kvStore(keeper.storeKey).set(queueKey(ACTIVE_QUEUE_PREFIX, votingEndTime, id), idBytes(id));
}

/** Removes the proposal from the active queue. */
export function removeActiveQueue(ctx: Context, keeper: GovKeeper, id: bigint, votingEndTime: Timestamp): void {
  ctx.kvStore(keeper.storeKey).delete(queueKey(ACTIVE_QUEUE_PREFIX, votingEndTime, id));
}

/** Ids queued (active or inactive queue prefix) with a time ≤ `until`, in queue order. */
export async function queuedUntil(
  ctx: Context,
  keeper: GovKeeper,
  prefix: Uint8Array,
  until: Timestamp,
): Promise<bigint[]> {
  const ids: bigint[] = [];
  for await (const [key] of ctx.kvStore(keeper.storeKey).iterate({ prefix })) {
    if (compareTimestamps(readTime(key, prefix.length), until) > 0) break;
    ids.push(readId(key, prefix.length + 12));
  }
  return ids;
}
