// The context handed to every handler, hook and keeper call: which block (header), in which mode,
// against which branch of state, metered by which gas meter, collecting events where, logging
// where. A Context is an immutable value; `with(...)` and `branch()` derive new ones.
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import type { Logger } from "pino";
import type { BranchMultiStore, KVStore } from "../store/types.ts";
import type { DecCoin } from "./dec-coins.ts";
import { EventManager } from "./events.ts";
import { type GasMeter, KV_GAS_CONFIG, type KVGasConfig, newInfiniteGasMeter } from "./gas.ts";
import { gasKVStore } from "./gas-kv-store.ts";

/**
 * What the state machine is doing:
 * - `check` / `recheck`: mempool admission (CheckTx NEW / RECHECK), ante handler only;
 * - `simulate`: gas estimation, no signature checks, nothing persisted;
 * - `finalize`: executing a decided block (FinalizeBlock: PreBlock, BeginBlock, txs, EndBlock);
 * - `genesis`: InitChain (height 0: infinite gas, gentxs signed with account number 0);
 * - `query`: a read against a committed version; writes are possible but always discarded.
 */
export type ExecMode = "check" | "recheck" | "simulate" | "finalize" | "genesis" | "query";

/** The block a context belongs to. */
export interface BlockHeader {
  /** Block height (0 during InitChain and in CheckTx before the first block). */
  height: bigint;
  /** Block time (the header time CometBFT or the embedded engine decided). */
  time: Timestamp;
  chainId: string;
  /** Consensus address of the block proposer (20 bytes; empty when unknown). */
  proposerAddress: Uint8Array;
  /** App hash after the previous block (what this block's header carries as app_hash). */
  lastAppHash: Uint8Array;
  /** This block's header hash when the engine gave one (FinalizeBlock.hash); empty otherwise. */
  hash: Uint8Array;
  /**
   * Consensus addresses of the validators in the block's decided last commit (FinalizeBlock.decided_last_commit,
   * signed or not); empty for the first block, outside FinalizeBlock, and when the caller gave none.
   */
  lastCommitAddresses?: readonly Uint8Array[];
}

/** Everything a Context holds; `with(...)` takes a part of it. */
export interface ContextFields {
  header: BlockHeader;
  mode: ExecMode;
  /** The branch of state this context reads and writes. */
  multiStore: BranchMultiStore;
  /** Meters this unit of work (a tx's limit, or infinite for block hooks, genesis and queries). */
  gasMeter: GasMeter;
  events: EventManager;
  logger: Logger;
  /** The raw tx bytes while running a tx (empty otherwise). */
  txBytes: Uint8Array;
  /** The node's minimum-gas-prices (enforced in CheckTx only). */
  minGasPrices: readonly DecCoin[];
  /** KV gas costs charged by `kvStore(...)`. */
  kvGasConfig: KVGasConfig;
}

/**
 * The execution context. Modules reach state through `ctx.kvStore(storeKey)` (gas-metered) and emit
 * events through `ctx.events`.
 *
 * @example
 * const store = ctx.kvStore("bank");
 * await store.get(key);                         // charges ReadFlat + ReadPerByte
 * ctx.events.emit("transfer", { sender, recipient, amount });
 */
export class Context implements Readonly<ContextFields> {
  readonly header: BlockHeader;
  readonly mode: ExecMode;
  readonly multiStore: BranchMultiStore;
  readonly gasMeter: GasMeter;
  readonly events: EventManager;
  readonly logger: Logger;
  readonly txBytes: Uint8Array;
  readonly minGasPrices: readonly DecCoin[];
  readonly kvGasConfig: KVGasConfig;
  // The metered stores handed out so far: keepers ask for one on every access (dozens per tx), and a
  // context's branch, meter and costs never change, so one wrapper per store name is enough.
  private meteredStores: Map<string, KVStore> | undefined;

  constructor(fields: ContextFields) {
    this.header = fields.header;
    this.mode = fields.mode;
    this.multiStore = fields.multiStore;
    this.gasMeter = fields.gasMeter;
    this.events = fields.events;
    this.logger = fields.logger;
    this.txBytes = fields.txBytes;
    this.minGasPrices = fields.minGasPrices;
    this.kvGasConfig = fields.kvGasConfig;
  }

  /** Block height. */
  get blockHeight(): bigint {
    return this.header.height;
  }

  /** Block time. */
  get blockTime(): Timestamp {
    return this.header.time;
  }

  /** Chain id. */
  get chainId(): string {
    return this.header.chainId;
  }

  /** True in CheckTx (new or recheck). */
  get isCheckTx(): boolean {
    return this.mode === "check" || this.mode === "recheck";
  }

  /** True in CheckTx RECHECK. */
  get isReCheckTx(): boolean {
    return this.mode === "recheck";
  }

  /** True while simulating. */
  get isSimulate(): boolean {
    return this.mode === "simulate";
  }

  /** The named module store of this context's branch, charging this context's gas meter. */
  kvStore(storeKey: string): KVStore {
    this.meteredStores ??= new Map();
    let store = this.meteredStores.get(storeKey);
    if (store === undefined) {
      store = gasKVStore(this.multiStore.store(storeKey), this.gasMeter, this.kvGasConfig);
      this.meteredStores.set(storeKey, store);
    }
    return store;
  }

  /** The named module store without gas metering (framework use: fee checks, hooks that must not fail on gas). */
  unmeteredStore(storeKey: string): KVStore {
    return this.multiStore.store(storeKey);
  }

  /** A copy with some fields replaced. */
  with(changes: Partial<ContextFields>): Context {
    return new Context({ ...this.fields(), ...changes });
  }

  /**
   * A nested branch: the returned context writes into a branch of this context's state and collects
   * its own events. `write()` applies the branch and re-emits its events here; dropping it discards
   * both (upstream's CacheContext).
   */
  branch(): { ctx: Context; write: () => void } {
    const multiStore = this.multiStore.branch();
    const events = this.events.fresh();
    const ctx = this.with({ multiStore, events });
    return {
      ctx,
      write: () => {
        multiStore.write();
        this.events.emitEvents(events.events());
      },
    };
  }

  private fields(): ContextFields {
    return {
      header: this.header,
      mode: this.mode,
      multiStore: this.multiStore,
      gasMeter: this.gasMeter,
      events: this.events,
      logger: this.logger,
      txBytes: this.txBytes,
      minGasPrices: this.minGasPrices,
      kvGasConfig: this.kvGasConfig,
    };
  }
}

/** Parameters of `newContext`; everything but the store and logger has a default. */
export interface NewContextParameters {
  multiStore: BranchMultiStore;
  logger: Logger;
  header?: Partial<BlockHeader>;
  mode?: ExecMode;
  gasMeter?: GasMeter;
  minGasPrices?: readonly DecCoin[];
  kvGasConfig?: KVGasConfig;
}

/** A context with an infinite gas meter and a fresh event manager (tests, block hooks, genesis). */
export function newContext(parameters: NewContextParameters): Context {
  return new Context({
    header: {
      height: parameters.header?.height ?? 0n,
      time: parameters.header?.time ?? zeroTimestamp(),
      chainId: parameters.header?.chainId ?? "",
      proposerAddress: parameters.header?.proposerAddress ?? new Uint8Array(),
      lastAppHash: parameters.header?.lastAppHash ?? new Uint8Array(),
      hash: parameters.header?.hash ?? new Uint8Array(),
    },
    mode: parameters.mode ?? "finalize",
    multiStore: parameters.multiStore,
    gasMeter: parameters.gasMeter ?? newInfiniteGasMeter(),
    events: new EventManager(),
    logger: parameters.logger,
    txBytes: new Uint8Array(),
    minGasPrices: parameters.minGasPrices ?? [],
    kvGasConfig: parameters.kvGasConfig ?? KV_GAS_CONFIG,
  });
}

/** 1970-01-01T00:00:00Z as a Timestamp (the default header time). */
export function zeroTimestamp(): Timestamp {
  return { $typeName: "google.protobuf.Timestamp", seconds: 0n, nanos: 0 };
}
