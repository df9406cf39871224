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
//   e ‖ len ‖ type.key ‖ len ‖ value ‖ h ‖ index → (empty)   event index, attributes with index=true only
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { ClassicLevel } from "classic-level";
import {
  type ResponseFinalizeBlock,
  ResponseFinalizeBlockSchema,
  type TxResult,
  TxResultSchema,
} from "../gen/tendermint/abci/types_pb.js";
import { decodeBlock, decodeBlockId, decodeCommit, decodeHeader } from "./hashing/decode.ts";
import { encodeBlockId, encodeCommit, encodeHeader } from "./hashing/encode.ts";
import { txHash } from "./hashing/hashes.ts";
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
export class BlockStoreError extends Error {
  override name = "BlockStoreError";
}

const STATE_KEY = Uint8Array.of(0x73); // "s"
/** The first stored height of a store bootstrapped at a snapshot height (absent otherwise). */
const BASE_KEY = Uint8Array.of(0x42); // "B"
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

function eventKey(compositeKey: string, value: string, pos: Uint8Array): Uint8Array {
  const ck = textEncoder.encode(compositeKey);
  const v = textEncoder.encode(value);
  return key(P.event, u32(ck.length), ck, u32(v.length), v, pos);
}

/** The block store; open with {@link BlockStore.open}. */
export class BlockStore {
  private readonly db: ClassicLevel<Uint8Array, Uint8Array>;
  private current: EngineState | undefined;
  private bootstrapBase: bigint | undefined;

  private constructor(
    db: ClassicLevel<Uint8Array, Uint8Array>,
    state: EngineState | undefined,
    bootstrapBase: bigint | undefined,
  ) {
    this.db = db;
    this.current = state;
    this.bootstrapBase = bootstrapBase;
  }

  /** Opens (creating if needed) the store at `path`, e.g. `<home>/data/blocks.db`. */
  static async open(path: string): Promise<BlockStore> {
    const db = new ClassicLevel<Uint8Array, Uint8Array>(path, { keyEncoding: "view", valueEncoding: "view" });
    try {
      await db.open();
    } catch (cause) {
      throw new BlockStoreError(`cannot open the block store at ${path}: ${(cause as Error).message}`, { cause });
    }
    const raw = await db.get(STATE_KEY);
    const state = raw === undefined ? undefined : fromStoreJson<EngineState>(textDecoder.decode(raw));
    const base = await db.get(BASE_KEY);
    return new BlockStore(
      db,
      state,
      base === undefined ? undefined : new DataView(base.buffer, base.byteOffset, 8).getBigUint64(0),
    );
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

  /** The first stored height (the chain's initial height; nothing is pruned); 0 when empty. */
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
    batch.put(key(P.results, hk), toBinary(ResponseFinalizeBlockSchema, rec.results));
    batch.put(key(P.validators, hk), textEncoder.encode(toStoreJson(rec.validators)));
    rec.block.txs.forEach((tx, index) => {
      const pos = position(h, index);
      const result = rec.results.txResults[index];
      const record = create(TxResultSchema, { height: h, index, tx, result });
      batch.put(key(P.txPos, pos), toBinary(TxResultSchema, record));
      batch.put(key(P.txHash, txHash(tx)), pos);
      for (const event of result.events) {
        if (event.type === "") continue;
        for (const attr of event.attributes) {
          if (!attr.index || attr.key === "") continue;
          batch.put(eventKey(`${event.type}.${attr.key}`, attr.value, pos), new Uint8Array(0));
        }
      }
    });
    batch.put(STATE_KEY, textEncoder.encode(toStoreJson(rec.state)));
    await batch.write({ sync: true });
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

  /** The block at `height`, or undefined when not stored. */
  async block(height: bigint): Promise<StoredBlock | undefined> {
    const bytes = await this.db.get(key(P.block, u64(height)));
    if (bytes === undefined) return undefined;
    const meta = await this.blockMeta(height);
    if (meta === undefined) throw new BlockStoreError(`block ${height} is stored without its meta`);
    return { block: decodeBlock(bytes), blockId: meta.blockId, size: bytes.length };
  }

  /** The height of the block with this hash, or undefined. */
  async heightOfHash(hash: Uint8Array): Promise<bigint | undefined> {
    const v = await this.db.get(key(P.hash, hash));
    return v === undefined ? undefined : new DataView(v.buffer, v.byteOffset, 8).getBigUint64(0);
  }

  /** The block meta at `height`, or undefined. */
  async blockMeta(height: bigint): Promise<BlockMeta | undefined> {
    const bytes = await this.db.get(key(P.meta, u64(height)));
    return bytes === undefined ? undefined : decodeBlockMeta(bytes);
  }

  /** The commit this node saw for `height` (its own precommit), or undefined. */
  async seenCommit(height: bigint): Promise<Commit | undefined> {
    const bytes = await this.db.get(key(P.commit, u64(height)));
    return bytes === undefined ? undefined : decodeCommit(bytes);
  }

  /** FinalizeBlock's response for `height`, or undefined. */
  async results(height: bigint): Promise<ResponseFinalizeBlock | undefined> {
    const bytes = await this.db.get(key(P.results, u64(height)));
    return bytes === undefined ? undefined : fromBinary(ResponseFinalizeBlockSchema, bytes);
  }

  /** The validator set that signed `height`, or undefined. */
  async validatorsAt(height: bigint): Promise<Validator[] | undefined> {
    const bytes = await this.db.get(key(P.validators, u64(height)));
    return bytes === undefined ? undefined : fromStoreJson<Validator[]>(textDecoder.decode(bytes));
  }

  /** The indexed tx with this hash (its latest inclusion), or undefined. */
  async tx(hash: Uint8Array): Promise<TxResult | undefined> {
    const pos = await this.db.get(key(P.txHash, hash));
    if (pos === undefined) return undefined;
    return this.txAt(pos);
  }

  private async txAt(pos: Uint8Array): Promise<TxResult | undefined> {
    const bytes = await this.db.get(key(P.txPos, pos));
    return bytes === undefined ? undefined : fromBinary(TxResultSchema, bytes);
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
    for await (const k of this.db.keys({ gte: prefix, lt: prefixEnd(prefix) })) {
      const vStart = 1 + 4 + ck.length;
      const vLen = new DataView(k.buffer, k.byteOffset + vStart, 4).getUint32(0);
      const value = textDecoder.decode(k.subarray(vStart + 4, vStart + 4 + vLen));
      if (conditionMatchesValue(cond, value)) out.add(hexOf(k.subarray(vStart + 4 + vLen)));
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
      const found = await this.positionsFor(cond);
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
