// The engine's mempool, shaped like CometBFT v0.38's CListMempool: a pre-check on size and fullness, a cache of
// recently seen tx hashes that rejects duplicates, CheckTx(NEW) on arrival, insertion order for proposals, and
// after each commit the removal of included txs and CheckTx(RECHECK) of the rest. Error texts are CometBFT's.
import { create } from "@bufbuild/protobuf";
import {
  CheckTxType,
  type ExecTxResult,
  RequestCheckTxSchema,
  type ResponseCheckTx,
} from "../gen/tendermint/abci/types_pb.js";
import type { AbciApp, CheckTxOptions } from "./abci-app.ts";
import { txHash } from "./hashing/hashes.ts";

/** The [mempool] limits of config.toml. */
export interface MempoolLimits {
  /** Transactions held at most (`size`). */
  size: number;
  /** Total bytes held at most (`max_txs_bytes`). */
  maxTxsBytes: number;
  /** Largest single transaction (`max_tx_bytes`). */
  maxTxBytes: number;
  /** Recently seen tx hashes remembered (`cache_size`); 0 disables the cache. */
  cacheSize: number;
  keepInvalidTxsInCache: boolean;
  recheck: boolean;
  /**
   * CheckTx calls allowed to wait for the app lock at once (not in config.toml; defaults to `size`). Beyond it a
   * tx is refused at once ("mempool is full: …", so clients map it to sdk 20 as for a full pool), so a flood
   * cannot queue unbounded work (and memory) in front of block production.
   */
  maxWaitingChecks?: number;
}

/** CometBFT's defaults. */
export const DEFAULT_MEMPOOL_LIMITS: MempoolLimits = {
  size: 5000,
  maxTxsBytes: 1073741824,
  maxTxBytes: 1048576,
  cacheSize: 10000,
  keepInvalidTxsInCache: false,
  recheck: true,
};

/** Why the mempool refused a tx before the app saw it. */
export type MempoolErrorKind = "mempool-full" | "tx-too-large" | "tx-in-cache" | "check-queue-full";

/** A refusal by the mempool itself; `message` is CometBFT's text for the same case. */
export class MempoolError extends Error {
  override name = "MempoolError";
  readonly kind: MempoolErrorKind;
  constructor(kind: MempoolErrorKind, message: string) {
    super(message);
    this.kind = kind;
  }
}

interface Entry {
  tx: Uint8Array;
  gasWanted: bigint;
}

/** Protobuf size of one tx inside `Data{txs}`: tag + length varint + bytes (`ComputeProtoSizeForTxs`). */
export function txProtoSize(tx: Uint8Array): number {
  let len = tx.length;
  let varint = 1;
  while (len >= 0x80) {
    len = Math.floor(len / 128);
    varint++;
  }
  return 1 + varint + tx.length;
}

/** The mempool. All app calls go through `run`, the engine's app lock. */
export class Mempool {
  private readonly txs = new Map<string, Entry>();
  private readonly cache = new Map<string, true>();
  private bytes = 0;
  private readonly listeners = new Set<() => void>();
  private readonly app: Pick<AbciApp, "checkTx" | "precheckTx" | "prepareCheckTx">;
  private waiting = 0;
  // Resolves when the latest arrival has entered the lock's queue (see checkWithApp).
  private lastTurn: Promise<void> = Promise.resolve();
  private readonly limits: MempoolLimits;
  private readonly maxGas: () => bigint;
  private readonly run: <T>(fn: () => Promise<T>) => Promise<T>;

  constructor(options: {
    app: Pick<AbciApp, "checkTx" | "precheckTx" | "prepareCheckTx">;
    limits: MempoolLimits;
    /** The current block.max_gas (−1 = unlimited), for CometBFT's post-check. */
    maxGas: () => bigint;
    /** Serialises app calls with the engine. */
    run: <T>(fn: () => Promise<T>) => Promise<T>;
  }) {
    this.app = options.app;
    this.limits = options.limits;
    this.maxGas = options.maxGas;
    this.run = options.run;
  }

  /** Number of txs held. */
  /** New txs the app refused in CheckTx since start (the `mempool_failed_txs` metric). */
  failedTxs = 0;
  /** Txs rechecked after a block since start (the `mempool_recheck_times` metric). */
  rechecks = 0;
  /** New txs turned away because the mempool was full (the `mempool_rejected_txs` metric). */
  rejectedTxs = 0;
  /** Txs a recheck after a block removed (the `mempool_evicted_txs` metric). */
  evictedTxs = 0;

  get size(): number {
    return this.txs.size;
  }

  /** CheckTx calls waiting for (or holding) the app lock. */
  get waitingChecks(): number {
    return this.waiting;
  }

  /** Total bytes of the txs held. */
  get totalBytes(): number {
    return this.bytes;
  }

  /** Calls `listener` whenever a tx enters the mempool; returns the unsubscribe function. */
  onTxAvailable(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private fullError(txSize: number): MempoolError | undefined {
    if (this.txs.size >= this.limits.size || this.bytes + txSize > this.limits.maxTxsBytes) {
      return new MempoolError(
        "mempool-full",
        `mempool is full: number of txs ${this.txs.size} (max: ${this.limits.size}), total txs bytes ${this.bytes} (max: ${this.limits.maxTxsBytes})`,
      );
    }
    return undefined;
  }

  private cachePush(key: string): boolean {
    if (this.limits.cacheSize <= 0) return true;
    if (this.cache.has(key)) {
      this.cache.delete(key);
      this.cache.set(key, true);
      return false;
    }
    this.cache.set(key, true);
    if (this.cache.size > this.limits.cacheSize) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    return true;
  }

  /**
   * Admits a tx: rejects (MempoolError) a full pool, an oversized tx or a duplicate; otherwise resolves to the
   * app's CheckTx answer (the tx is held only when its code is 0).
   */
  checkTx(tx: Uint8Array, options?: CheckTxOptions): Promise<ResponseCheckTx> {
    // Not an async function: one promise and its extra turns fewer per tx, the mempool's refusals still rejections.
    try {
      return this.beginCheckTx(tx, options);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Like {@link checkTx}, but the mempool's own checks throw synchronously, so a caller can answer at once and
   * leave the app's CheckTx running (broadcast_tx_async).
   */
  beginCheckTx(tx: Uint8Array, options?: CheckTxOptions): Promise<ResponseCheckTx> {
    const full = this.fullError(tx.length);
    if (full !== undefined) {
      this.rejectedTxs++;
      throw full;
    }
    if (tx.length > this.limits.maxTxBytes) {
      throw new MempoolError(
        "tx-too-large",
        `Tx too large. Max size is ${this.limits.maxTxBytes}, but got ${tx.length}`,
      );
    }
    const key = hexKey(txHash(tx));
    if (!this.cachePush(key)) throw new MempoolError("tx-in-cache", "tx already exists in cache");
    // The app's state-free checks run here, outside the lock: a tx that cannot decode is answered
    // without waiting behind blocks and without making blocks wait behind it.
    let refused: ResponseCheckTx | undefined;
    try {
      refused = this.app.precheckTx?.(tx);
    } catch (error) {
      this.cache.delete(key);
      throw error;
    }
    if (refused !== undefined) {
      this.failedTxs++;
      if (!this.limits.keepInvalidTxsInCache) this.cache.delete(key);
      return Promise.resolve(refused);
    }
    const maxWaiting = this.limits.maxWaitingChecks ?? this.limits.size;
    if (this.waiting >= maxWaiting) {
      this.cache.delete(key);
      throw new MempoolError(
        "check-queue-full",
        `mempool is full: ${this.waiting} txs are waiting for CheckTx (max: ${maxWaiting}); try again later`,
      );
    }
    // The app's preparation (signature checks on a worker thread) starts now, outside the lock, so it
    // overlaps with the CheckTx of earlier txs and with block execution; the tx queues for CheckTx once
    // it is prepared, after every earlier tx (a sender's txs with consecutive sequences stay in order).
    const prepared = this.app.prepareCheckTx?.(tx);
    return this.checkWithApp(tx, key, prepared, options);
  }

  private async checkWithApp(
    tx: Uint8Array,
    key: string,
    prepared: Promise<void> | undefined,
    options: CheckTxOptions | undefined,
  ): Promise<ResponseCheckTx> {
    let res: ResponseCheckTx;
    this.waiting++;
    // The tx takes its place in the lock's queue once it is prepared AND every earlier tx has taken its
    // place: arrival order is kept, and the lock is not held while a worker checks a signature (a block
    // can run meanwhile).
    // Nothing to prepare: the turn is the previous tx's (never rejects), without two more promises per tx.
    const turn =
      prepared === undefined
        ? this.lastTurn
        : this.lastTurn
            .then(() => prepared)
            .then(
              () => undefined,
              () => undefined,
            );
    this.lastTurn = turn;
    try {
      await turn;
      // A literal message (both fields set, as `create` would leave them): the schema-driven `create` is one
      // more walk of the message's fields per tx on the node's main thread.
      res = await this.run(() =>
        this.app.checkTx({ $typeName: "tendermint.abci.RequestCheckTx", tx, type: CheckTxType.NEW }, options),
      );
    } catch (error) {
      this.cache.delete(key);
      throw error;
    } finally {
      this.waiting--;
    }
    const maxGas = this.maxGas();
    const postCheckOk = res.gasWanted >= 0n && (maxGas === -1n || res.gasWanted <= maxGas);
    if (res.code === 0 && postCheckOk) {
      const stillFull = this.fullError(tx.length);
      if (stillFull !== undefined) {
        this.rejectedTxs++;
        this.cache.delete(key);
        throw stillFull;
      }
      if (!this.txs.has(key)) {
        this.txs.set(key, { tx, gasWanted: res.gasWanted });
        this.bytes += tx.length;
        for (const l of this.listeners) l();
      }
    } else {
      if (res.code !== 0) this.failedTxs++;
      if (!this.limits.keepInvalidTxsInCache) this.cache.delete(key);
    }
    return res;
  }

  /** Txs for a proposal, in arrival order, stopping at the first that would exceed either limit (−1 = none). */
  reap(maxDataBytes: bigint, maxGas: bigint): Uint8Array[] {
    const out: Uint8Array[] = [];
    let size = 0n;
    let gas = 0n;
    for (const e of this.txs.values()) {
      const next = size + BigInt(txProtoSize(e.tx));
      if (maxDataBytes > -1n && next > maxDataBytes) break;
      const nextGas = gas + e.gasWanted;
      if (maxGas > -1n && nextGas > maxGas) break;
      out.push(e.tx);
      size = next;
      gas = nextGas;
    }
    return out;
  }

  /**
   * After a commit: drops the block's txs (remembering the successful ones in the cache), then rechecks the
   * rest and evicts those the app now refuses. Call it while holding the app lock.
   */
  async update(
    txs: readonly Uint8Array[],
    results: readonly ExecTxResult[],
    checkTx: AbciApp["checkTx"],
  ): Promise<void> {
    txs.forEach((tx, i) => {
      const key = hexKey(txHash(tx));
      if (results[i]?.code === 0) {
        if (this.limits.cacheSize > 0 && !this.cache.has(key)) this.cachePush(key);
      } else if (!this.limits.keepInvalidTxsInCache) {
        this.cache.delete(key);
      }
      const e = this.txs.get(key);
      if (e !== undefined) {
        this.txs.delete(key);
        this.bytes -= e.tx.length;
      }
    });
    if (!this.limits.recheck) return;
    for (const [key, e] of [...this.txs]) {
      this.rechecks++;
      const res = await checkTx(create(RequestCheckTxSchema, { tx: e.tx, type: CheckTxType.RECHECK }));
      if (res.code !== 0) {
        this.evictedTxs++;
        this.txs.delete(key);
        this.bytes -= e.tx.length;
        if (!this.limits.keepInvalidTxsInCache) this.cache.delete(key);
      } else {
        e.gasWanted = res.gasWanted;
      }
    }
    if (this.txs.size > 0) for (const l of this.listeners) l();
  }

  /** The txs held, in order (for `unconfirmed_txs`). */
  list(limit = Number.POSITIVE_INFINITY): Uint8Array[] {
    const out: Uint8Array[] = [];
    for (const e of this.txs.values()) {
      if (out.length >= limit) break;
      out.push(e.tx);
    }
    return out;
  }
}

/** The mempool's key of a tx hash: its hex, read through a view of the hash rather than a copy. */
function hexKey(hash: Uint8Array): string {
  return Buffer.from(hash.buffer, hash.byteOffset, hash.byteLength).toString("hex");
}
