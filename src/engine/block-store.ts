// The embedded engine's block store, `<home>/data/blocks.db` (LevelDB via classic-level). Everything written for
// one height — block, meta, seen commit, FinalizeBlock results, validator set, tx index entries and the engine
// state after the block — goes in ONE atomic batch, so after a crash the store holds a height completely or not
// at all. The engine saves a height before it lets the app commit it (see engine.ts for the recovery rules).
//
// Key layout (single-byte prefixes, heights as 8-byte big-endian so keys sort numerically):
//   s                          → EngineState (store JSON)
//   b ‖ h                      → Block (gogoproto bytes, exactly what the part set was cut from)
//   m ‖ h                      → BlockMeta {block_id, block_size, header, num_txs}
//   i ‖ block hash             → h
//   c ‖ h                      → seen Commit for h
//   r ‖ h                      → ResponseFinalizeBlock
//   v ‖ h                      → validator set of h (store JSON)
//   p ‖ h ‖ index(4)           → TxResult {height, index, tx, result}
//   t ‖ tx hash                → h ‖ index of the latest inclusion
//   e ‖ len ‖ type.key ‖ len ‖ value ‖ h   → u32 index…    event index, attributes with index=true only: the
//                                                         block's txs carrying it (stores written before this
//                                                         layout: e ‖ … ‖ value ‖ h ‖ index → empty; both read)

import { basename, dirname } from "node:path";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { ClassicLevel } from "classic-level";
import { redactPaths } from "../app/redact-paths.ts";
import { lengthDelimitedSize, putBytesField } from "../bytes/proto-fields.ts";
import { putUvarint, putVarint64, uvarintLength, varint64Length } from "../bytes/varint.ts";
import { UserError } from "../errors/user-error.ts";
import {
  type Event,
  type ResponseFinalizeBlock,
  ResponseFinalizeBlockSchema,
  type TxResult,
  TxResultSchema,
} from "../gen/tendermint/abci/types_pb.js";
import { encodeExecTxResult } from "./exec-tx-result-encoding.ts";
import { decodeBlock, decodeBlockId, decodeCommit, decodeHeader } from "./hashing/decode.ts";
import { encodeBlockId, encodeCommit, encodeHeader } from "./hashing/encode.ts";
import { headerHash, txHash } from "./hashing/hashes.ts";
import { asInt64, readFields } from "./hashing/proto-reader.ts";
import { ProtoWriter } from "./hashing/proto-writer.ts";
import type { EngineState } from "./state.ts";
import { fromStoreJson, toStoreJson } from "./store-json.ts";
import { conditionMatchesValue, type QueryCondition } from "./tx-query.ts";
import type { Block, BlockId, Commit, Header, Validator } from "./types.ts";

/** A stored block with its ID and encoded size. */
export interface StoredBlock {
  block: Block;
  blockId: BlockId;
  size: number;
}

/** tendermint.types.BlockMeta. */
export interface BlockMeta {
  blockId: BlockId;
  blockSize: bigint;
  header: Header;
  numTxs: bigint;
}

/** Everything the engine saves for one height, in one batch. */
export interface HeightRecord {
  block: Block;
  blockBytes: Uint8Array;
  blockId: BlockId;
  seenCommit: Commit;
  results: ResponseFinalizeBlock;
  /** The validator set that signed this height. */
  validators: Validator[];
  /** The engine state after this height. */
  state: EngineState;
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
}

// LevelDB's own errors that mean the files are damaged (not, say, a closed database).
const DAMAGE_CODES = new Set(["LEVEL_CORRUPTION", "LEVEL_IO_ERROR"]);

/** How many of the last heights {@link BlockStore.open}'s caller verifies at start (see verifyRecent). */
export const VERIFIED_AT_START = 100n;

const STATE_KEY = Uint8Array.of(0x73); // "s"
/** The first stored height of a store bootstrapped at a snapshot height or pruned (absent otherwise). */
const BASE_KEY = Uint8Array.of(0x42); // "B"
/** The most heights one prune removes (a first prune of a long chain catches up over several commits). */
const PRUNE_BATCH_HEIGHTS = 1000n;
const P = {
  block: 0x62,
  meta: 0x6d,
  hash: 0x69,
  commit: 0x63,
  results: 0x72,
  validators: 0x76,
  txPos: 0x70,
  txHash: 0x74,
  event: 0x65,
} as const;

const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();

function u64(n: bigint): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, n);
  return b;
}
function u32(n: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n);
  return b;
}
function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
function key(prefix: number, ...parts: Uint8Array[]): Uint8Array {
  return concat(Uint8Array.of(prefix), ...parts);
}
/** The smallest key greater than every key starting with `prefix`. */
function prefixEnd(prefix: Uint8Array): Uint8Array {
  const end = prefix.slice();
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] < 0xff) {
      end[i]++;
      return end.subarray(0, i + 1);
    }
  }
  return Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff);
}
function hexOf(b: Uint8Array): string {
  return Buffer.from(b).toString("hex");
}
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.compare(a, b) === 0;
}

function encodeBlockMeta(m: BlockMeta): Uint8Array {
  const w = new ProtoWriter();
  w.message(1, encodeBlockId(m.blockId));
  w.varintIfSet(2, m.blockSize);
  w.message(3, encodeHeader(m.header));
  w.varintIfSet(4, m.numTxs);
  return w.finish();
}
function decodeBlockMeta(bytes: Uint8Array): BlockMeta {
  const m: BlockMeta = {
    blockId: decodeBlockId(new Uint8Array(0)),
    blockSize: 0n,
    header: decodeHeader(new Uint8Array(0)),
    numTxs: 0n,
  };
  for (const f of readFields(bytes)) {
    if (f.field === 1 && f.wire === 2) m.blockId = decodeBlockId(f.value);
    else if (f.field === 2 && f.wire === 0) m.blockSize = asInt64(f.value);
    else if (f.field === 3 && f.wire === 2) m.header = decodeHeader(f.value);
    else if (f.field === 4 && f.wire === 0) m.numTxs = asInt64(f.value);
  }
  return m;
}

/** Position of a tx in the chain: height ‖ index, 12 bytes, ordered like (height, index). */
function position(height: bigint, index: number): Uint8Array {
  return concat(u64(height), u32(index));
}

/** `e ‖ u32(len ck) ‖ ck ‖ u32(len value) ‖ value ‖ suffix`, built in one buffer. */
function eventKey(compositeKey: string, value: string, suffix: Uint8Array): Uint8Array {
  const ckLength = Buffer.byteLength(compositeKey);
  const valueLength = Buffer.byteLength(value);
  const out = Buffer.allocUnsafe(9 + ckLength + valueLength + suffix.length);
  out[0] = P.event;
  out.writeUInt32BE(ckLength, 1);
  out.write(compositeKey, 5, "utf8");
  out.writeUInt32BE(valueLength, 5 + ckLength);
  out.write(value, 9 + ckLength, "utf8");
  out.set(suffix, 9 + ckLength + valueLength);
  return out;
}

/**
 * A block's event index, one entry per distinct (type.key, value) with the indexes of the block's txs that
 * carry it (`e ‖ … ‖ value ‖ h → u32 index…`): most attributes of a block's txs repeat (the message action,
 * the fee, the senders), so a block of 1,000 bank sends writes a few thousand entries instead of ~15,000.
 * Stores written before this layout hold one empty entry per tx (`… ‖ h ‖ index → ∅`); both are read.
 */
class EventPostings {
  // By event type, then attribute key, then value: the composite "type.key" is built once per distinct pair
  // in `write`, not for each of a block's tens of thousands of attributes.
  private readonly byType = new Map<string, Map<string, Map<string, number[]>>>();

  /** Records the indexed attributes of tx `index`'s events. */
  add(events: readonly Event[], index: number): void {
    for (const event of events) {
      if (event.type === "") continue;
      let keys: Map<string, Map<string, number[]>> | undefined;
      for (const attr of event.attributes) {
        if (!attr.index || attr.key === "") continue;
        if (keys === undefined) {
          keys = this.byType.get(event.type);
          if (keys === undefined) {
            keys = new Map();
            this.byType.set(event.type, keys);
          }
        }
        let values = keys.get(attr.key);
        if (values === undefined) {
          values = new Map();
          keys.set(attr.key, values);
        }
        const txs = values.get(attr.value);
        if (txs === undefined) values.set(attr.value, [index]);
        else if (txs[txs.length - 1] !== index) txs.push(index);
      }
    }
  }

  /** Hands each entry of height `h` to `put`. */
  write(h: bigint, put: (key: Uint8Array, value: Uint8Array) => void): void {
    const hk = u64(h);
    const byComposite = new Map<string, Map<string, number[]>>();
    for (const [type, keys] of this.byType) {
      for (const [attrKey, values] of keys) {
        const compositeKey = `${type}.${attrKey}`;
        const seen = byComposite.get(compositeKey);
        if (seen === undefined) {
          byComposite.set(compositeKey, values);
          continue;
        }
        // Two (type, key) pairs that join to the same "type.key" ("a.b"+"c" and "a"+"b.c") share one entry.
        for (const [value, txs] of values) {
          const other = seen.get(value);
          seen.set(value, other === undefined ? txs : [...new Set([...other, ...txs])].sort((x, y) => x - y));
        }
      }
    }
    for (const [compositeKey, values] of byComposite) {
      for (const [value, txs] of values) {
        const list = Buffer.allocUnsafe(4 * txs.length);
        for (let i = 0; i < txs.length; i++) list.writeUInt32BE(txs[i], 4 * i);
        put(eventKey(compositeKey, value, hk), list);
      }
    }
  }
}

/** Positions (height ‖ index, hex) an event index entry stands for, in either layout (see EventPostings). */
function postedPositions(entryKey: Uint8Array, entryValue: Uint8Array, suffixStart: number): string[] {
  const suffix = entryKey.subarray(suffixStart);
  if (entryValue.length === 0) return [hexOf(suffix)]; // the earlier layout: the key ends with the position
  const out: string[] = [];
  const view = new DataView(entryValue.buffer, entryValue.byteOffset, entryValue.byteLength);
  for (let at = 0; at + 4 <= entryValue.length; at += 4) out.push(hexOf(concat(suffix, u32(view.getUint32(at)))));
  return out;
}

/**
 * The block's results record and its txs' TxResult records, encoding each ExecTxResult once for both
 * (it is most of their bytes). The results' tx_results (field 2) follow the other fields: a decoder
 * accepts fields in any order.
 */
function encodeResults(rec: HeightRecord): { results: Uint8Array; txRecords: Uint8Array[] } {
  const head = toBinary(ResponseFinalizeBlockSchema, { ...rec.results, txResults: [] });
  const resultBytes = rec.results.txResults.map(encodeExecTxResult);
  let size = head.length;
  for (const bytes of resultBytes) size += lengthDelimitedSize(bytes.length);
  const results = new Uint8Array(size);
  results.set(head);
  let at = head.length;
  for (const bytes of resultBytes) at = putBytesField(results, at, 2, bytes);
  const height = rec.block.header.height;
  const txRecords = resultBytes.map((bytes, index) => {
    // TxResult{height = 1, index = 2, tx = 3, result = 4}; zero and empty fields left out, result always there.
    const tx = rec.block.txs[index];
    const record = new Uint8Array(
      (height === 0n ? 0 : 1 + varint64Length(height)) +
        (index === 0 ? 0 : 1 + uvarintLength(index)) +
        (tx.length === 0 ? 0 : lengthDelimitedSize(tx.length)) +
        lengthDelimitedSize(bytes.length),
    );
    let pos = 0;
    if (height !== 0n) {
      record[pos++] = (1 << 3) | 0;
      pos = putVarint64(record, pos, height);
    }
    if (index !== 0) {
      record[pos++] = (2 << 3) | 0;
      pos = putUvarint(record, pos, index);
    }
    if (tx.length > 0) pos = putBytesField(record, pos, 3, tx);
    putBytesField(record, pos, 4, bytes);
    return record;
  });
  return { results, txRecords };
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

  private constructor(db: ClassicLevel<Uint8Array, Uint8Array>, label: string) {
    this.db = db;
    this.label = label;
  }

  /**
   * Opens the store at `path`, e.g. `<home>/data/blocks.db`; creates it unless `createIfMissing` is false (readers
   * such as `chaind status` of a stopped node must not leave an empty store behind).
   */
  static async open(path: string, options: { createIfMissing?: boolean } = {}): Promise<BlockStore> {
    const db = new ClassicLevel<Uint8Array, Uint8Array>(path, {
      keyEncoding: "view",
      valueEncoding: "view",
      createIfMissing: options.createIfMissing ?? true,
    });
    try {
      await db.open();
    } catch (cause) {
      throw new BlockStoreError(`cannot open the block store at ${path}: ${(cause as Error).message}`, { cause });
    }
    const store = new BlockStore(db, `${basename(dirname(path))}/${basename(path)}`);
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

  /** Records and returns the damage `detail` describes. */
  private corrupt(detail: string, cause?: unknown): BlockStoreCorruptError {
    const error = new BlockStoreCorruptError(
      `the block store (${this.label}) is damaged: ${detail}; stop the node and restore ${this.label} from a backup`,
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

  private decode<T>(decode: () => T, what: string): T {
    try {
      return decode();
    } catch (err) {
      throw this.corrupt(`${what} does not decode (${(err as Error).message})`, err);
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
          `block ${h} links to block id ${hexOf(header.lastBlockId.hash)}, but block ${h - 1n} has id ${hexOf(previousId.hash)}`,
        );
      }
      if (previousResults !== undefined && !sameBytes(header.appHash, previousResults.appHash)) {
        throw this.corrupt(
          `block ${h} carries app hash ${hexOf(header.appHash)}, but the results of block ${h - 1n} recorded ${hexOf(previousResults.appHash)}`,
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
        `the engine state says the app hash after block ${top} is ${hexOf(state.appHash)}, but its results recorded ${hexOf(previousResults.appHash)}`,
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

  /** Saves one height atomically. Heights must be saved in order, one after the other. */
  async saveHeight(rec: HeightRecord): Promise<void> {
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
    batch.put(key(P.block, hk), rec.blockBytes);
    batch.put(
      key(P.meta, hk),
      encodeBlockMeta({
        blockId: rec.blockId,
        blockSize: BigInt(rec.blockBytes.length),
        header: rec.block.header,
        numTxs: BigInt(rec.block.txs.length),
      }),
    );
    batch.put(key(P.hash, rec.blockId.hash), hk);
    batch.put(key(P.commit, hk), encodeCommit(rec.seenCommit));
    const encoded = encodeResults(rec);
    batch.put(key(P.results, hk), encoded.results);
    batch.put(key(P.validators, hk), textEncoder.encode(toStoreJson(rec.validators)));
    const postings = new EventPostings();
    rec.block.txs.forEach((tx, index) => {
      const pos = position(h, index);
      batch.put(key(P.txPos, pos), encoded.txRecords[index]);
      batch.put(key(P.txHash, txHash(tx)), pos);
      postings.add(rec.results.txResults[index].events, index);
    });
    postings.write(h, (k, v) => batch.put(k, v));
    batch.put(STATE_KEY, textEncoder.encode(toStoreJson(rec.state)));
    try {
      await batch.write({ sync: true });
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
    batch.put(key(P.commit, u64(state.lastBlockHeight)), encodeCommit(seenCommit));
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
      const meta = await this.get(key(P.meta, hk), `the meta of block ${h}`);
      if (meta !== undefined) {
        const blockId = this.decode(() => decodeBlockMeta(meta), `the meta of block ${h}`).blockId;
        batch.del(key(P.hash, blockId.hash));
      }
      for (const prefix of [P.block, P.meta, P.commit, P.results, P.validators]) batch.del(key(prefix, hk));
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

  /**
   * The block at `height`, or undefined when not stored. Verified: its header must hash to the
   * stored block id (else BlockStoreCorruptError), so a damaged block is never served.
   */
  async block(height: bigint): Promise<StoredBlock | undefined> {
    // The block and its meta are read under one snapshot: read one after the other, a prune committing
    // between the two reads would leave a block without its meta, which only damage may do.
    const hk = u64(height);
    const [bytes, metaBytes] = await this.getMany([key(P.block, hk), key(P.meta, hk)], `block ${height}`);
    if (bytes === undefined) return undefined;
    if (metaBytes === undefined) throw this.corrupt(`block ${height} is stored without its meta`);
    const meta = this.verifiedMeta(height, metaBytes);
    const block = this.decode(() => decodeBlock(bytes), `block ${height}`);
    const hash = headerHash(block.header);
    if (!sameBytes(hash, meta.blockId.hash)) {
      throw this.corrupt(
        `block ${height} hashes to ${hexOf(hash)} but its stored block id is ${hexOf(meta.blockId.hash)}`,
      );
    }
    return { block, blockId: meta.blockId, size: bytes.length };
  }

  /** The height of the block with this hash, or undefined. */
  async heightOfHash(hash: Uint8Array): Promise<bigint | undefined> {
    const v = await this.get(key(P.hash, hash), `the height of block ${hexOf(hash)}`);
    if (v === undefined) return undefined;
    if (v.length !== 8) throw this.corrupt(`the height of block ${hexOf(hash)} is ${v.length} bytes long, not 8`);
    return new DataView(v.buffer, v.byteOffset, 8).getBigUint64(0);
  }

  /** The block meta at `height`, or undefined. Verified: its header must hash to its block id. */
  async blockMeta(height: bigint): Promise<BlockMeta | undefined> {
    const bytes = await this.get(key(P.meta, u64(height)), `the meta of block ${height}`);
    return bytes === undefined ? undefined : this.verifiedMeta(height, bytes);
  }

  private verifiedMeta(height: bigint, bytes: Uint8Array): BlockMeta {
    const meta = this.decode(() => decodeBlockMeta(bytes), `the meta of block ${height}`);
    const hash = headerHash(meta.header);
    if (meta.header.height !== height || !sameBytes(hash, meta.blockId.hash)) {
      throw this.corrupt(
        `the header stored for block ${height} (height ${meta.header.height}) hashes to ${hexOf(hash)} but its block id is ${hexOf(meta.blockId.hash)}`,
      );
    }
    return meta;
  }

  /** The commit this node saw for `height` (its own precommit), or undefined. */
  async seenCommit(height: bigint): Promise<Commit | undefined> {
    const bytes = await this.get(key(P.commit, u64(height)), `the commit of block ${height}`);
    return bytes === undefined ? undefined : this.decode(() => decodeCommit(bytes), `the commit of block ${height}`);
  }

  /** FinalizeBlock's response for `height`, or undefined. */
  async results(height: bigint): Promise<ResponseFinalizeBlock | undefined> {
    const bytes = await this.get(key(P.results, u64(height)), `the results of block ${height}`);
    return bytes === undefined
      ? undefined
      : this.decode(() => fromBinary(ResponseFinalizeBlockSchema, bytes), `the results of block ${height}`);
  }

  /** The validator set that signed `height`, or undefined. */
  async validatorsAt(height: bigint): Promise<Validator[] | undefined> {
    const bytes = await this.get(key(P.validators, u64(height)), `the validators of block ${height}`);
    return bytes === undefined
      ? undefined
      : this.decode(() => fromStoreJson<Validator[]>(textDecoder.decode(bytes)), `the validators of block ${height}`);
  }

  /** The indexed tx with this hash (its latest inclusion), or undefined. */
  async tx(hash: Uint8Array): Promise<TxResult | undefined> {
    const pos = await this.get(key(P.txHash, hash), `the index entry of tx ${hexOf(hash)}`);
    if (pos === undefined) return undefined;
    return this.txAt(pos);
  }

  private async txAt(pos: Uint8Array): Promise<TxResult | undefined> {
    const what = `the tx at position ${hexOf(pos)}`;
    const bytes = await this.get(key(P.txPos, pos), what);
    return bytes === undefined ? undefined : this.decode(() => fromBinary(TxResultSchema, bytes), what);
  }

  /** Positions (hex of height ‖ index) of txs satisfying one condition, found through the indexes. */
  private async positionsFor(cond: QueryCondition): Promise<Set<string>> {
    const out = new Set<string>();
    if (cond.key === "tx.hash") {
      if (cond.op === "=" && cond.operand?.kind === "string" && /^[0-9a-fA-F]{64}$/.test(cond.operand.value)) {
        const pos = await this.db.get(key(P.txHash, new Uint8Array(Buffer.from(cond.operand.value, "hex"))));
        if (pos !== undefined) out.add(hexOf(pos));
      } else if (cond.op === "EXISTS") {
        for await (const k of this.db.keys({ gte: Uint8Array.of(P.txPos), lt: Uint8Array.of(P.txPos + 1) })) {
          out.add(hexOf(k.subarray(1)));
        }
      }
      return out;
    }
    if (cond.key === "tx.height") {
      let gte: Uint8Array = Uint8Array.of(P.txPos);
      let lt: Uint8Array = Uint8Array.of(P.txPos + 1);
      const n = cond.operand?.kind === "number" ? cond.operand.integer : undefined;
      if (cond.op === "=" && n !== undefined) {
        if (n < 0n) return out;
        gte = key(P.txPos, u64(n));
        lt = prefixEnd(gte);
      }
      for await (const k of this.db.keys({ gte, lt })) {
        const height = new DataView(k.buffer, k.byteOffset + 1, 8).getBigUint64(0);
        if (conditionMatchesValue(cond, height.toString())) out.add(hexOf(k.subarray(1)));
      }
      return out;
    }
    const ck = textEncoder.encode(cond.key);
    let prefix = key(P.event, u32(ck.length), ck);
    if (cond.op === "=" && cond.operand?.kind === "string") {
      const v = textEncoder.encode(cond.operand.value);
      prefix = concat(prefix, u32(v.length), v);
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
      const tx = await this.txAt(new Uint8Array(Buffer.from(p, "hex")));
      if (tx !== undefined) txs.push(tx);
    }
    return { totalCount: sorted.length, txs };
  }

  /** Closes the database. */
  async close(): Promise<void> {
    await this.db.close();
  }
}
