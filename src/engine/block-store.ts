// The embedded engine's block store, `<home>/data/blocks.db` (LevelDB via classic-level). Everything written for
// one height — block, meta, seen commit, FinalizeBlock results, validator set, tx index entries and the engine
// state after the block — goes in ONE atomic batch, so after a crash the store holds a height completely or not
// at all. The engine saves a height before it lets the app commit it (see engine.ts for the recovery rules).
//
// The key layout is in block-store-keys.ts, the records' encodings in block-records.ts and the tx event index
// in event-postings.ts.

import { fromBinary } from "@bufbuild/protobuf";
import { ClassicLevel } from "classic-level";
import { isExtendedCommitTx } from "../app/extended-commit.ts";
import { redactPaths } from "../app/redact-paths.ts";
import { concatBytes } from "../bytes/concat.ts";
import { toHex } from "../bytes/hex.ts";
import { UserError } from "../errors/user-error.ts";
import {
  type ResponseFinalizeBlock,
  ResponseFinalizeBlockSchema,
  type TxResult,
  TxResultSchema,
} from "../gen/tendermint/abci/types_pb.js";
import { levelDirectoryState, storeLabel } from "../store/level-directory.ts";
import { openLevelFiles } from "../store/level-files.ts";
import { type BlockMeta, decodeBlockMeta, encodeBlockMeta, encodeResults, type HeightRecord } from "./block-records.ts";
import { BASE_KEY, PREFIX, prefixEnd, prefixedKey, STATE_KEY, txPosition, u32, u64 } from "./block-store-keys.ts";
import { EventPostings, postedPositions } from "./event-postings.ts";
import { decodeBlock, decodeCommit } from "./hashing/decode.ts";
import { encodeCommit } from "./hashing/encode.ts";
import { commitHash, dataHash, evidenceHash, headerHash, lastResultsHash, txHash } from "./hashing/hashes.ts";
import { lastLengthDelimited } from "./hashing/proto-reader.ts";
import { levelFilesDb } from "./level-files-db.ts";
import type { EngineState } from "./state.ts";
import { type ArrayTexts, fromStoreJson, toStoreJson } from "./store-json.ts";
import { conditionMatchesValue, type QueryCondition } from "./tx-query.ts";
import type { Block, BlockId, Commit, Validator } from "./types.ts";

export type { BlockMeta, HeightRecord } from "./block-records.ts";

/** A stored block with its ID, encoded size and bytes (as stored, verified). */
export interface StoredBlock {
  block: Block;
  blockId: BlockId;
  size: number;
  bytes: Uint8Array;
  /**
   * The stored meta's bytes, when they hold this block's header in the block's own bytes (verified against the
   * block id), its size and its tx count: what {@link HeightRecord.metaBytes} takes to save them as they are.
   */
  metaBytes: Uint8Array | undefined;
}

/** A page of tx_search results. */
export interface TxSearchResult {
  totalCount: number;
  txs: TxResult[];
}

/** Raised when the store's content contradicts itself or what the caller asked to save. */
export class BlockStoreError extends UserError {
  override name = "BlockStoreError";
}

/**
 * Raised when what the store holds cannot be read or does not verify (a block whose header does not
 * hash to its stored id, a broken link between blocks, an app hash that disagrees with the stored
 * results, a LevelDB I/O or corruption error). The message names the store relative to the home
 * (`data/blocks.db`) and the height, never an absolute path.
 */
export class BlockStoreCorruptError extends BlockStoreError {
  override name = "BlockStoreCorruptError";
  /** What is wrong, without the store's name and the advice (e.g. for a caller that names the store itself). */
  readonly detail: string;
  /** The height the damage was found at, when it is one height's. */
  readonly height: bigint | undefined;

  constructor(message: string, detail: string, height: bigint | undefined, options?: { cause?: unknown }) {
    super(message, options);
    this.detail = detail;
    this.height = height;
  }
}

// LevelDB's own errors that mean the files are damaged (not, say, a closed database).
const DAMAGE_CODES = new Set(["LEVEL_CORRUPTION", "LEVEL_IO_ERROR"]);

/** How many of the last heights {@link BlockStore.open}'s caller verifies at start (see verifyRecent). */
export const VERIFIED_AT_START = 100n;

/** The most heights one prune removes (a first prune of a long chain catches up over several commits). */
const PRUNE_BATCH_HEIGHTS = 1000n;

const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.compare(a, b) === 0;
}

/** Whether a stored block (header: field 1) and its stored meta (header: field 3) hold the header in the same bytes. */
function sameHeaderBytes(block: Uint8Array, meta: Uint8Array): boolean {
  const inBlock = lastLengthDelimited(block, 1);
  const inMeta = lastLengthDelimited(meta, 3);
  return inBlock !== undefined && inMeta !== undefined && sameBytes(inBlock, inMeta);
}

/** The block store; open with {@link BlockStore.open}. */
export class BlockStore {
  private readonly db: ClassicLevel<Uint8Array, Uint8Array>;
  private current: EngineState | undefined;
  /** The store's name for messages: its folder and itself (`data/blocks.db`). */
  readonly label: string;
  private damage: BlockStoreCorruptError | undefined;
  /** Set for a store bootstrapped at a snapshot height H: H+1, its first stored block. */
  private bootstrapBase: bigint | undefined;
  /** The last block meta whose header was hashed and found to match its id (its bytes, as read). */
  private lastVerifiedMeta: { height: bigint; bytes: Uint8Array } | undefined;

  private constructor(db: ClassicLevel<Uint8Array, Uint8Array>, label: string) {
    this.db = db;
    this.label = label;
  }

  /**
   * Opens the store at `path`, e.g. `<home>/data/blocks.db`; creates it unless `createIfMissing` is false (readers
   * such as `chaind status` of a stopped node must not leave an empty store behind). Never creates one over a
   * directory that holds files but no CURRENT: that throws NotALevelStoreError and changes nothing.
   */
  static async open(path: string, options: { createIfMissing?: boolean } = {}): Promise<BlockStore> {
    // Files without CURRENT are refused (NotALevelStoreError) before LevelDB could create a store over them, and
    // an existing store is opened without create-if-missing (see src/store/level-directory.ts).
    const existing = levelDirectoryState(path) === "store";
    const db = new ClassicLevel<Uint8Array, Uint8Array>(path, {
      keyEncoding: "view",
      valueEncoding: "view",
      createIfMissing: !existing && (options.createIfMissing ?? true),
    });
    try {
      await db.open();
    } catch (cause) {
      throw new BlockStoreError(`cannot open the block store at ${path}: ${(cause as Error).message}`, { cause });
    }
    return BlockStore.over(db, storeLabel(path));
  }

  /**
   * The store at `path` read from its files where they lie, writing nothing (src/store/level-files.ts): for a
   * reader of a few records of a store no process holds (`upgrade rehearse` reads blocks H and H+1 of the source's
   * store), where opening it through LevelDB — which writes on every open — would need a copy of it first. Reads
   * only: a write or a range read throws. Throws LevelFileError for anything the file reader does not read exactly
   * as LevelDB would (damage among it): open the store the ordinary way then.
   */
  static async readFiles(path: string): Promise<BlockStore> {
    return BlockStore.over(levelFilesDb(openLevelFiles(path)), storeLabel(path));
  }

  /** The store over the opened `db`: its engine state and bootstrap base read (and `db` closed if they throw). */
  private static async over(db: ClassicLevel<Uint8Array, Uint8Array>, label: string): Promise<BlockStore> {
    const store = new BlockStore(db, label);
    try {
      const raw = await store.get(STATE_KEY, "the engine state");
      store.current =
        raw === undefined
          ? undefined
          : store.decode(() => fromStoreJson<EngineState>(textDecoder.decode(raw)), "the engine state");
      const base = await store.get(BASE_KEY, "the bootstrap base");
      if (base !== undefined) store.bootstrapBase = new DataView(base.buffer, base.byteOffset, 8).getBigUint64(0);
    } catch (err) {
      await db.close();
      throw err;
    }
    return store;
  }

  /** The first damage found (at start or by any read since), or undefined while everything read verified. */
  get damaged(): BlockStoreCorruptError | undefined {
    return this.damage;
  }

  /** Records and returns the damage `detail` describes (at `height`, when it is one height's). */
  private corrupt(detail: string, cause?: unknown, height?: bigint): BlockStoreCorruptError {
    const error = new BlockStoreCorruptError(
      `the block store (${this.label}) is damaged: ${detail}; stop the node and restore ${this.label} from a backup`,
      detail,
      height,
      cause === undefined ? undefined : { cause },
    );
    this.damage ??= error;
    return error;
  }

  /** A LevelDB read, with damage reported as BlockStoreCorruptError. */
  private async get(k: Uint8Array, what: string): Promise<Uint8Array | undefined> {
    try {
      return await this.db.get(k);
    } catch (err) {
      throw this.asDamage(err, what);
    }
  }

  /** Several LevelDB reads under one snapshot, with damage reported as BlockStoreCorruptError. */
  private async getMany(keys: Uint8Array[], what: string): Promise<(Uint8Array | undefined)[]> {
    try {
      return await this.db.getMany(keys);
    } catch (err) {
      throw this.asDamage(err, what);
    }
  }

  private asDamage(err: unknown, what: string, action = "read"): unknown {
    if (err instanceof BlockStoreCorruptError) return err;
    const code = (err as { code?: string }).code;
    if (code === undefined || !DAMAGE_CODES.has(code)) return err;
    const cause = (err as { cause?: Error }).cause?.message ?? (err as Error).message;
    return this.corrupt(`cannot ${action} ${what} (${redactPaths(cause)})`, err);
  }

  private decode<T>(decode: () => T, what: string, height?: bigint): T {
    try {
      return decode();
    } catch (err) {
      throw this.corrupt(`${what} does not decode (${(err as Error).message})`, err, height);
    }
  }

  /**
   * Checks the last `count` heights: each block's header hashes to its stored id, links to the
   * block before it, carries the app hash that the stored results of the height before recorded,
   * and has its commit and results; the engine state's app hash is the last results' one.
   * Throws BlockStoreCorruptError naming the first height that fails.
   */
  async verifyRecent(count: bigint = VERIFIED_AT_START): Promise<void> {
    const top = this.height;
    if (top === 0n) return;
    // A store bootstrapped at a snapshot height holds no block before its first one.
    const first = this.bootstrapBase ?? this.base;
    const from = top - count + 1n > first ? top - count + 1n : first;
    let previousId: BlockId | undefined;
    let previousResults: ResponseFinalizeBlock | undefined;
    for (let h = from; h <= top; h++) {
      const stored = await this.block(h);
      if (stored === undefined) throw this.corrupt(`block ${h} is missing`);
      const header = stored.block.header;
      if (previousId !== undefined && !sameBytes(header.lastBlockId.hash, previousId.hash)) {
        throw this.corrupt(
          `block ${h} links to block id ${toHex(header.lastBlockId.hash)}, but block ${h - 1n} has id ${toHex(previousId.hash)}`,
        );
      }
      if (previousResults !== undefined && !sameBytes(header.appHash, previousResults.appHash)) {
        throw this.corrupt(
          `block ${h} carries app hash ${toHex(header.appHash)}, but the results of block ${h - 1n} recorded ${toHex(previousResults.appHash)}`,
        );
      }
      const results = await this.results(h);
      if (results === undefined) throw this.corrupt(`the results of block ${h} are missing`);
      if ((await this.seenCommit(h)) === undefined) throw this.corrupt(`the commit of block ${h} is missing`);
      previousId = stored.blockId;
      previousResults = results;
    }
    const state = this.current as EngineState;
    if (previousResults !== undefined && !sameBytes(state.appHash, previousResults.appHash)) {
      throw this.corrupt(
        `the engine state says the app hash after block ${top} is ${toHex(state.appHash)}, but its results recorded ${toHex(previousResults.appHash)}`,
      );
    }
  }

  /** The engine state saved with the last height, or undefined for an empty store. */
  get state(): EngineState | undefined {
    return this.current;
  }

  /** The last saved height; 0 when empty. */
  get height(): bigint {
    const s = this.current;
    return s === undefined || s.lastBlockHeight < s.initialHeight ? 0n : s.lastBlockHeight;
  }

  /** The first stored height (the initial height, a bootstrap's first or the pruned base); 0 when empty. */
  get base(): bigint {
    if (this.height === 0n) return 0n;
    const base = this.bootstrapBase ?? (this.current as EngineState).initialHeight;
    // Right after a bootstrap at H nothing is stored yet: H itself is reported until H+1 is saved.
    if (base > this.height) return this.height;
    return base;
  }

  /**
   * Saves one height atomically. Heights must be saved in order, one after the other. Synced by default, so a
   * saved height survives a machine crash; `sync: false` leaves flushing it to the caller (a replay flushes the
   * store's log itself every so many heights, see src/replay/level-logs.ts) and is as safe against a killed process.
   */
  async saveHeight(rec: HeightRecord, options: { sync?: boolean } = {}): Promise<void> {
    const h = rec.block.header.height;
    const expected = this.height === 0n ? rec.state.initialHeight : this.height + 1n;
    if (h !== expected) throw new BlockStoreError(`cannot save height ${h}: the next height to save is ${expected}`);
    if (rec.state.lastBlockHeight !== h) {
      throw new BlockStoreError(`state for height ${rec.state.lastBlockHeight} saved with block ${h}`);
    }
    if (rec.results.txResults.length !== rec.block.txs.length) {
      throw new BlockStoreError(
        `block ${h} has ${rec.block.txs.length} txs but FinalizeBlock returned ${rec.results.txResults.length} results`,
      );
    }
    const hk = u64(h);
    const batch = this.db.batch();
    batch.put(prefixedKey(PREFIX.block, hk), rec.blockBytes);
    batch.put(
      prefixedKey(PREFIX.meta, hk),
      rec.metaBytes ??
        encodeBlockMeta({
          blockId: rec.blockId,
          blockSize: BigInt(rec.blockBytes.length),
          header: rec.block.header,
          numTxs: BigInt(rec.block.txs.length),
        }),
    );
    batch.put(prefixedKey(PREFIX.hash, rec.blockId.hash), hk);
    batch.put(prefixedKey(PREFIX.commit, hk), rec.seenCommitBytes ?? encodeCommit(rec.seenCommit));
    const encoded = encodeResults(rec);
    batch.put(prefixedKey(PREFIX.results, hk), encoded.results);
    // The set record and the state's three sets are most often one array: written once (store-json.ts).
    const written: ArrayTexts = new Map();
    batch.put(prefixedKey(PREFIX.validators, hk), textEncoder.encode(toStoreJson(rec.validators, written)));
    const postings = new EventPostings();
    rec.block.txs.forEach((tx, index) => {
      // The proposer's extended commit (vote extensions) is the block's first tx but no one's transaction: the tx
      // index (tx, tx_search, GetTxsEvent) leaves it out, as it leaves out no user tx. docs/COMPATIBILITY.md row 22.
      if (index === 0 && isExtendedCommitTx(tx)) return;
      const pos = txPosition(h, index);
      batch.put(prefixedKey(PREFIX.txPos, pos), encoded.txRecords[index]);
      batch.put(prefixedKey(PREFIX.txHash, txHash(tx)), pos);
      postings.add(rec.results.txResults[index].events, index);
    });
    postings.write(h, (k, v) => batch.put(k, v));
    batch.put(STATE_KEY, textEncoder.encode(toStoreJson(rec.state, written)));
    try {
      await batch.write({ sync: options.sync ?? true });
    } catch (err) {
      // LevelDB refuses writes once its background compaction met a damaged table file; a full
      // disk (an I/O error) is not damage and keeps its own message.
      if ((err as { code?: string }).code === "LEVEL_CORRUPTION") throw this.asDamage(err, `block ${h}`, "save");
      throw err;
    }
    this.current = rec.state;
  }

  /**
   * Starts an empty store at `state.lastBlockHeight` without its blocks: the state after that
   * height and the commit for it, so the engine continues at the next height over an application
   * state restored from a snapshot (what CometBFT's `bootstrap-state` does for its own store).
   */
  async bootstrap(state: EngineState, seenCommit: Commit): Promise<void> {
    if (this.current !== undefined) {
      throw new BlockStoreError(`the block store already holds height ${this.height}; bootstrap needs an empty one`);
    }
    const batch = this.db.batch();
    batch.put(prefixedKey(PREFIX.commit, u64(state.lastBlockHeight)), encodeCommit(seenCommit));
    batch.put(STATE_KEY, textEncoder.encode(toStoreJson(state)));
    batch.put(BASE_KEY, u64(state.lastBlockHeight + 1n));
    await batch.write({ sync: true });
    this.current = state;
    this.bootstrapBase = state.lastBlockHeight + 1n;
  }

  /**
   * Removes every height below `retainHeight` (Commit's retain_height, as CometBFT's pruneBlocks): blocks,
   * metas, hash entries, commits, results and validator sets, in one batch with the new base; the tx index stays
   * (`tx` and `tx_search` still find pruned txs, without a proof). Never the latest height; at most
   * PRUNE_BATCH_HEIGHTS per call. Returns how many heights it removed.
   */
  async prune(retainHeight: bigint): Promise<bigint> {
    const base = this.base;
    const target = retainHeight > this.height ? this.height : retainHeight;
    if (base === 0n || target <= base) return 0n;
    const to = target - base > PRUNE_BATCH_HEIGHTS ? base + PRUNE_BATCH_HEIGHTS : target;
    const batch = this.db.batch();
    for (let h = base; h < to; h++) {
      const hk = u64(h);
      const meta = await this.get(prefixedKey(PREFIX.meta, hk), `the meta of block ${h}`);
      if (meta !== undefined) {
        const blockId = this.decode(() => decodeBlockMeta(meta), `the meta of block ${h}`).blockId;
        batch.del(prefixedKey(PREFIX.hash, blockId.hash));
      }
      for (const prefix of [PREFIX.block, PREFIX.meta, PREFIX.commit, PREFIX.results, PREFIX.validators])
        batch.del(prefixedKey(prefix, hk));
    }
    batch.put(BASE_KEY, u64(to));
    // The base moves before the heights go, so a reader that takes the base now never asks for a height
    // this batch deletes (see earliestMeta); it moves back if the write fails.
    const previous = this.bootstrapBase;
    this.bootstrapBase = to;
    try {
      await batch.write({ sync: true });
    } catch (err) {
      this.bootstrapBase = previous;
      throw err;
    }
    return to - base;
  }

  /**
   * The base height and its block meta, or undefined when nothing is stored. A prune running meanwhile
   * cannot make them disagree: a meta found missing at a base that has since moved is read again at
   * the new base.
   */
  async earliestMeta(): Promise<{ height: bigint; meta: BlockMeta } | undefined> {
    for (;;) {
      const height = this.base;
      if (height === 0n) return undefined;
      const meta = await this.blockMeta(height);
      if (meta !== undefined) return { height, meta };
      if (this.base === height) return undefined;
    }
  }

  /** The first height whose block, meta, results and validators are stored (0 when none is). */
  private get firstStored(): bigint {
    if (this.current === undefined) return 0n;
    return this.bootstrapBase ?? this.current.initialHeight;
  }

  /**
   * For a record found absent: undefined when `height` lies outside the stored heights (never saved, or pruned),
   * damage when it lies inside them, where every height was saved whole in one batch. Asked after the read: a
   * prune moves the base before it deletes, so a height it removed meanwhile is outside by now.
   */
  private absent(height: bigint, record: string): undefined {
    const first = this.firstStored;
    if (first === 0n || height < first || height > this.height) return undefined;
    throw this.corrupt(
      `height ${height} has no ${record}, though the store holds every height from ${first} to ${this.height}`,
      undefined,
      height,
    );
  }

  /**
   * The block at `height`, or undefined when not stored (BlockStoreCorruptError when a height within
   * [first stored, latest] is missing). Verified: its header must hash to the stored block id, and its txs,
   * last commit and evidence must hash to the header's data_hash, last_commit_hash and evidence_hash, so no
   * damaged byte of a block is served.
   */
  async block(height: bigint): Promise<StoredBlock | undefined> {
    // The block and its meta are read under one snapshot: read one after the other, a prune committing
    // between the two reads would leave a block without its meta, which only damage may do.
    const hk = u64(height);
    const [bytes, metaBytes] = await this.getMany(
      [prefixedKey(PREFIX.block, hk), prefixedKey(PREFIX.meta, hk)],
      `block ${height}`,
    );
    return this.verifiedBlock(height, bytes, metaBytes);
  }

  /**
   * {@link block} and {@link seenCommit} of one height, read together (one LevelDB read of three records under one
   * snapshot instead of two reads): what a replay takes from its source every height. The block is verified and
   * its damage reported first, as reading the two one after the other would.
   */
  async blockAndSeenCommit(height: bigint): Promise<{
    stored: StoredBlock | undefined;
    seenCommit: Commit | undefined;
    seenCommitBytes: Uint8Array | undefined;
  }> {
    const hk = u64(height);
    const [bytes, metaBytes, commitBytes] = await this.getMany(
      [prefixedKey(PREFIX.block, hk), prefixedKey(PREFIX.meta, hk), prefixedKey(PREFIX.commit, hk)],
      `block ${height} and its commit`,
    );
    const stored = this.verifiedBlock(height, bytes, metaBytes);
    return { stored, seenCommit: this.seenCommitOf(height, commitBytes), seenCommitBytes: commitBytes };
  }

  /** A block read with its meta, verified as {@link block} says; undefined when not stored. */
  private verifiedBlock(
    height: bigint,
    bytes: Uint8Array | undefined,
    metaBytes: Uint8Array | undefined,
  ): StoredBlock | undefined {
    if (bytes === undefined) return this.absent(height, "block");
    if (metaBytes === undefined) throw this.corrupt(`block ${height} is stored without its meta`, undefined, height);
    const meta = this.verifiedMeta(height, metaBytes);
    const block = this.decode(() => decodeBlock(bytes), `block ${height}`, height);
    // A header stored in the same bytes as the meta's (verified just above) decodes to the same header, which hashes
    // to the same id: only a header stored otherwise is hashed, which names the damage as before.
    const sameHeader = sameHeaderBytes(bytes, metaBytes);
    if (!sameHeader) {
      const hash = headerHash(block.header);
      if (!sameBytes(hash, meta.blockId.hash)) {
        throw this.corrupt(
          `block ${height} hashes to ${toHex(hash)} but its stored block id is ${toHex(meta.blockId.hash)}`,
          undefined,
          height,
        );
      }
    }
    // The header verified, so it vouches for the rest: each tx is hashed once here (the txs are most of a block's
    // bytes; the commit and evidence are a few signatures).
    this.checkPart(height, "txs", dataHash(block.txs), block.header.dataHash, "data_hash");
    this.checkPart(
      height,
      "last commit",
      commitHash(block.lastCommit),
      block.header.lastCommitHash,
      "last_commit_hash",
    );
    this.checkPart(height, "evidence", evidenceHash(block.evidence), block.header.evidenceHash, "evidence_hash");
    const wholeMeta = sameHeader && meta.blockSize === BigInt(bytes.length) && meta.numTxs === BigInt(block.txs.length);
    return { block, blockId: meta.blockId, size: bytes.length, bytes, metaBytes: wholeMeta ? metaBytes : undefined };
  }

  private checkPart(height: bigint, part: string, got: Uint8Array, expected: Uint8Array, field: string): void {
    if (sameBytes(got, expected)) return;
    throw this.corrupt(
      `the ${part} of block ${height} hash to ${toHex(got)} but its header's ${field} is ${toHex(expected)}`,
      undefined,
      height,
    );
  }

  /** The height of the block with this hash, or undefined. */
  async heightOfHash(hash: Uint8Array): Promise<bigint | undefined> {
    const v = await this.get(prefixedKey(PREFIX.hash, hash), `the height of block ${toHex(hash)}`);
    if (v === undefined) return undefined;
    if (v.length !== 8) throw this.corrupt(`the height of block ${toHex(hash)} is ${v.length} bytes long, not 8`);
    return new DataView(v.buffer, v.byteOffset, 8).getBigUint64(0);
  }

  /**
   * The block meta at `height`, or undefined (damage when a stored height lacks it). Verified: its header must
   * hash to its block id.
   */
  async blockMeta(height: bigint): Promise<BlockMeta | undefined> {
    const bytes = await this.get(prefixedKey(PREFIX.meta, u64(height)), `the meta of block ${height}`);
    return bytes === undefined ? this.absent(height, "block meta") : this.verifiedMeta(height, bytes);
  }

  private verifiedMeta(height: bigint, bytes: Uint8Array): BlockMeta {
    const meta = this.decode(() => decodeBlockMeta(bytes), `the meta of block ${height}`, height);
    // The same bytes verified last time need no second hash: a replay reads each meta twice in a row (the results
    // of h are checked against the header of h + 1, then block h + 1 is read).
    const last = this.lastVerifiedMeta;
    if (last !== undefined && last.height === height && sameBytes(last.bytes, bytes)) return meta;
    const hash = headerHash(meta.header);
    if (meta.header.height !== height || !sameBytes(hash, meta.blockId.hash)) {
      throw this.corrupt(
        `the header stored for block ${height} (height ${meta.header.height}) hashes to ${toHex(hash)} but its block id is ${toHex(meta.blockId.hash)}`,
        undefined,
        height,
      );
    }
    this.lastVerifiedMeta = { height, bytes };
    return meta;
  }

  /** The commit this node saw for `height` (its own precommit), or undefined (damage when a stored height lacks it). */
  async seenCommit(height: bigint): Promise<Commit | undefined> {
    const bytes = await this.get(prefixedKey(PREFIX.commit, u64(height)), `the commit of block ${height}`);
    return this.seenCommitOf(height, bytes);
  }

  private seenCommitOf(height: bigint, bytes: Uint8Array | undefined): Commit | undefined {
    return bytes === undefined
      ? this.absent(height, "commit")
      : this.decode(() => decodeCommit(bytes), `the commit of block ${height}`, height);
  }

  /**
   * FinalizeBlock's response for `height`, or undefined (damage when a stored height lacks it). Verified where
   * the chain vouches for it: its tx results' deterministic part must hash to the next header's last_results_hash
   * and its app hash must be the next header's (for the latest height: the engine state's, saved with it).
   */
  async results(height: bigint): Promise<ResponseFinalizeBlock | undefined> {
    const what = `the results of block ${height}`;
    const bytes = await this.get(prefixedKey(PREFIX.results, u64(height)), what);
    if (bytes === undefined) return this.absent(height, "results");
    const results = this.decode(() => fromBinary(ResponseFinalizeBlockSchema, bytes), what, height);
    const top = this.height;
    if (height > top || height < this.firstStored) return results;
    const next = height === top ? (this.current as EngineState) : (await this.blockMeta(height + 1n))?.header;
    // Absent only when a prune removed height + 1 meanwhile: then this height is gone too.
    if (next === undefined) return results;
    const source = height === top ? "the engine state saved with it" : `the header of block ${height + 1n}`;
    const resultsHash = lastResultsHash(results.txResults);
    if (!sameBytes(resultsHash, next.lastResultsHash)) {
      throw this.corrupt(
        `${what} hash to ${toHex(resultsHash)} but ${source} has last_results_hash ${toHex(next.lastResultsHash)}`,
        undefined,
        height,
      );
    }
    if (!sameBytes(results.appHash, next.appHash)) {
      throw this.corrupt(
        `${what} hold app hash ${toHex(results.appHash)} but ${source} has ${toHex(next.appHash)}`,
        undefined,
        height,
      );
    }
    return results;
  }

  /** The validator set that signed `height`, or undefined (damage when a stored height lacks it). */
  async validatorsAt(height: bigint): Promise<Validator[] | undefined> {
    const what = `the validators of block ${height}`;
    const bytes = await this.get(prefixedKey(PREFIX.validators, u64(height)), what);
    return bytes === undefined
      ? this.absent(height, "validator set")
      : this.decode(() => fromStoreJson<Validator[]>(textDecoder.decode(bytes)), what, height);
  }

  /** The indexed tx with this hash (its latest inclusion), or undefined. Verified: its bytes hash to `hash`. */
  async tx(hash: Uint8Array): Promise<TxResult | undefined> {
    const pos = await this.get(prefixedKey(PREFIX.txHash, hash), `the index entry of tx ${toHex(hash)}`);
    if (pos === undefined) return undefined;
    const tx = await this.txAt(pos);
    if (tx === undefined)
      throw this.corrupt(`the tx index names position ${toHex(pos)} for tx ${toHex(hash)}, which holds no tx`);
    if (!sameBytes(txHash(tx.tx), hash)) {
      throw this.corrupt(
        `the tx at height ${tx.height} index ${tx.index} hashes to ${toHex(txHash(tx.tx))}, not to ${toHex(hash)} as the tx index says`,
        undefined,
        tx.height,
      );
    }
    return tx;
  }

  /** The tx record at `pos` (height ‖ index), or undefined; damage when it says another position. */
  private async txAt(pos: Uint8Array): Promise<TxResult | undefined> {
    const what = `the tx at position ${toHex(pos)}`;
    const bytes = await this.get(prefixedKey(PREFIX.txPos, pos), what);
    if (bytes === undefined) return undefined;
    const tx = this.decode(() => fromBinary(TxResultSchema, bytes), what);
    if (!sameBytes(txPosition(tx.height, tx.index), pos)) {
      throw this.corrupt(`${what} says it is at height ${tx.height} index ${tx.index}`, undefined, tx.height);
    }
    return tx;
  }

  /**
   * Checks a tx found by position (tx_search) against the hash index, which names each tx's latest inclusion:
   * damaged tx bytes hash to something the index does not know, or to an earlier position.
   */
  private async checkIndexed(tx: TxResult, pos: Uint8Array): Promise<void> {
    const hash = txHash(tx.tx);
    const indexed = await this.get(prefixedKey(PREFIX.txHash, hash), `the index entry of tx ${toHex(hash)}`);
    if (indexed !== undefined && Buffer.compare(indexed, pos) >= 0) return;
    throw this.corrupt(
      `the tx at height ${tx.height} index ${tx.index} hashes to ${toHex(hash)}, which the tx index ${indexed === undefined ? "does not know" : `places earlier, at ${toHex(indexed)}`}`,
      undefined,
      tx.height,
    );
  }

  /** Positions (hex of height ‖ index) of txs satisfying one condition, found through the indexes. */
  private async positionsFor(cond: QueryCondition): Promise<Set<string>> {
    const out = new Set<string>();
    if (cond.key === "tx.hash") {
      if (cond.op === "=" && cond.operand?.kind === "string" && /^[0-9a-fA-F]{64}$/.test(cond.operand.value)) {
        const pos = await this.db.get(
          prefixedKey(PREFIX.txHash, new Uint8Array(Buffer.from(cond.operand.value, "hex"))),
        );
        if (pos !== undefined) out.add(toHex(pos));
      } else if (cond.op === "EXISTS") {
        for await (const k of this.db.keys({ gte: Uint8Array.of(PREFIX.txPos), lt: Uint8Array.of(PREFIX.txPos + 1) })) {
          out.add(toHex(k.subarray(1)));
        }
      }
      return out;
    }
    if (cond.key === "tx.height") {
      let gte: Uint8Array = Uint8Array.of(PREFIX.txPos);
      let lt: Uint8Array = Uint8Array.of(PREFIX.txPos + 1);
      const n = cond.operand?.kind === "number" ? cond.operand.integer : undefined;
      if (cond.op === "=" && n !== undefined) {
        if (n < 0n) return out;
        gte = prefixedKey(PREFIX.txPos, u64(n));
        lt = prefixEnd(gte);
      }
      for await (const k of this.db.keys({ gte, lt })) {
        const height = new DataView(k.buffer, k.byteOffset + 1, 8).getBigUint64(0);
        if (conditionMatchesValue(cond, height.toString())) out.add(toHex(k.subarray(1)));
      }
      return out;
    }
    const ck = textEncoder.encode(cond.key);
    let prefix = prefixedKey(PREFIX.event, u32(ck.length), ck);
    if (cond.op === "=" && cond.operand?.kind === "string") {
      const v = textEncoder.encode(cond.operand.value);
      prefix = concatBytes(prefix, u32(v.length), v);
    }
    for await (const [k, v] of this.db.iterator({ gte: prefix, lt: prefixEnd(prefix) })) {
      const vStart = 1 + 4 + ck.length;
      const vLen = new DataView(k.buffer, k.byteOffset + vStart, 4).getUint32(0);
      const value = textDecoder.decode(k.subarray(vStart + 4, vStart + 4 + vLen));
      if (!conditionMatchesValue(cond, value)) continue;
      for (const pos of postedPositions(k, v, vStart + 4 + vLen)) out.add(pos);
    }
    return out;
  }

  /** tx_search: txs satisfying every condition, ordered by (height, index), one page of them. */
  async searchTxs(
    conditions: readonly QueryCondition[],
    page: { page: number; perPage: number; descending: boolean },
  ): Promise<TxSearchResult> {
    let matching: Set<string> | undefined;
    for (const cond of conditions) {
      const found = await this.positionsFor(cond).catch((err: unknown) => {
        throw this.asDamage(err, "the tx index");
      });
      matching = matching === undefined ? found : new Set([...matching].filter((p) => found.has(p)));
      if (matching.size === 0) break;
    }
    const sorted = [...(matching ?? [])].sort();
    if (page.descending) sorted.reverse();
    const start = (page.page - 1) * page.perPage;
    const txs: TxResult[] = [];
    for (const p of sorted.slice(start, start + page.perPage)) {
      const pos = new Uint8Array(Buffer.from(p, "hex"));
      const tx = await this.txAt(pos);
      if (tx === undefined) continue;
      await this.checkIndexed(tx, pos);
      txs.push(tx);
    }
    return { totalCount: sorted.length, txs };
  }

  /** Closes the database. */
  async close(): Promise<void> {
    await this.db.close();
  }
}
