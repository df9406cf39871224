// CometBFT v0.38's own stores, read for `chaind status --home` of a home run behind CometBFT (`chaind start --abci`),
// where CometBFT, not chaind, keeps the blocks: data/blockstore.db and data/state.db (goleveldb, whose files LevelDB
// reads). Keys and values are CometBFT v0.38's: in the block store, `blockStore` holds BlockStoreState {base = 1,
// height = 2} and `H:<height>` each height's BlockMeta (the same bytes the embedded engine stores); in the state store,
// `stateKey` holds State, whose field 7 is the current validator set. Each store is opened in a throwaway view
// (src/store/level-view.ts), so nothing in the home changes.
import { join } from "node:path";
import { utf8 } from "../bytes/text.ts";
import { type BlockMeta, decodeBlockMeta } from "../engine/block-records.ts";
import { FieldReader } from "../engine/hashing/proto-reader.ts";
import { type KVBackend, openLevelBackend } from "../store/kv-backend.ts";
import { withLevelView } from "../store/level-view.ts";

/** What `status` needs from CometBFT's stores. */
export interface CometStoreFacts {
  /** The lowest and highest stored heights (0 and 0 before the first block). */
  base: bigint;
  height: bigint;
  latest: BlockMeta | undefined;
  earliest: BlockMeta | undefined;
  /** The validator set CometBFT holds for the next height. */
  validators: { address: Uint8Array; votingPower: bigint }[];
}

/** The block store's path in a CometBFT home's data directory. */
export function cometBlockStorePath(dbDir: string): string {
  return join(dbDir, "blockstore.db");
}

/**
 * Reads the CometBFT stores under `dbDir` (config.toml's db_dir). Throws when one is not a LevelDB store or cannot be
 * opened; the caller says which and why.
 */
export async function readCometStores(dbDir: string): Promise<CometStoreFacts> {
  const blocks = await readStore(cometBlockStorePath(dbDir), (db) => {
    let base = 0n;
    let height = 0n;
    const state = db.getSync(utf8("blockStore"));
    if (state !== undefined) {
      for (const f = new FieldReader(state); f.next(); ) {
        if (f.field === 1 && f.wire === 0) base = f.int64();
        else if (f.field === 2 && f.wire === 0) height = f.int64();
      }
    }
    const meta = (h: bigint) => {
      const bytes = h > 0n ? db.getSync(utf8(`H:${h}`)) : undefined;
      return bytes === undefined ? undefined : decodeBlockMeta(bytes);
    };
    return { base, height, latest: meta(height), earliest: meta(base) };
  });
  const validators = await readStore(join(dbDir, "state.db"), (db) => {
    const state = db.getSync(utf8("stateKey"));
    const set: CometStoreFacts["validators"] = [];
    if (state === undefined) return set;
    for (const f = new FieldReader(state); f.next(); ) {
      if (f.field !== 7 || f.wire !== 2) continue;
      for (const v = new FieldReader(f.bytesValue()); v.next(); ) {
        if (v.field === 1 && v.wire === 2) set.push(validatorOf(v.bytesValue()));
      }
    }
    return set;
  });
  return { ...blocks, validators };
}

function validatorOf(bytes: Uint8Array): { address: Uint8Array; votingPower: bigint } {
  let address: Uint8Array = new Uint8Array();
  let votingPower = 0n;
  for (const f = new FieldReader(bytes); f.next(); ) {
    if (f.field === 1 && f.wire === 2) address = f.bytesValue();
    else if (f.field === 3 && f.wire === 0) votingPower = f.int64();
  }
  return { address, votingPower };
}

async function readStore<T>(path: string, read: (db: KVBackend) => T): Promise<T> {
  return withLevelView(path, async (view) => {
    const db = await openLevelBackend(view, { createIfMissing: false });
    try {
      return read(db);
    } finally {
      await db.close();
    }
  });
}
