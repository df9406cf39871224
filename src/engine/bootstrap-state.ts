// The embedded engine's state at a past height, rebuilt from its block store, so a snapshot of the
// application state at that height can travel with what the engine needs to continue from it on
// another home (`chaind snapshots dump` writes it, `snapshots restore` bootstraps the block store).
import type { BlockStore } from "./block-store.ts";
import type { EngineState } from "./state.ts";
import { fromStoreJson, toStoreJson } from "./store-json.ts";
import type { Commit } from "./types.ts";

/** The engine state after a height and the commit for that height. */
export interface EngineBootstrap {
  state: EngineState;
  seenCommit: Commit;
}

/**
 * The bootstrap for `height`, or undefined when the store cannot give it (the height is not
 * stored, or the next header — which carries that height's app hash and results hash — is missing
 * while the height is not the latest). Consensus params are taken as they are now.
 */
export async function engineBootstrapAt(store: BlockStore, height: bigint): Promise<EngineBootstrap | undefined> {
  const current = store.state;
  if (current === undefined || height > store.height || height < store.base) return undefined;
  const seenCommit = await store.seenCommit(height);
  if (seenCommit === undefined) return undefined;
  if (height === store.height) return { state: current, seenCommit };
  const meta = await store.blockMeta(height);
  const next = await store.blockMeta(height + 1n);
  const signedNext = await store.validatorsAt(height + 1n);
  const lastValidators = await store.validatorsAt(height);
  if (meta === undefined || next === undefined || signedNext === undefined || lastValidators === undefined) {
    return undefined;
  }
  const signedAfter = (await store.validatorsAt(height + 2n)) ?? current.validators;
  const state: EngineState = {
    ...current,
    lastBlockHeight: height,
    lastBlockId: meta.blockId,
    lastBlockTime: meta.header.time,
    validators: signedNext,
    nextValidators: signedAfter,
    lastValidators,
    appVersion: next.header.version.app,
    appHash: next.header.appHash,
    lastResultsHash: next.header.lastResultsHash,
  };
  return { state, seenCommit };
}

/** The JSON text of a bootstrap (the engine's own store encoding: bigints and bytes preserved). */
export function encodeEngineBootstrap(bootstrap: EngineBootstrap): string {
  return toStoreJson(plainBytes(bootstrap));
}

// Byte fields read from LevelDB may be Buffers, whose toJSON would run before the store encoding sees them.
function plainBytes(value: unknown): unknown {
  if (value instanceof Uint8Array) return new Uint8Array(value);
  if (Array.isArray(value)) return value.map(plainBytes);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plainBytes(v)]));
  }
  return value;
}

/** Reverses {@link encodeEngineBootstrap}. */
export function decodeEngineBootstrap(text: string): EngineBootstrap {
  return fromStoreJson<EngineBootstrap>(text);
}
