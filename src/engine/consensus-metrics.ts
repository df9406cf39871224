// The embedded engine's Prometheus metrics (config.toml [instrumentation]): the ones a single-validator engine can
// honestly produce, under CometBFT v0.38's names, types, labels (`chain_id` on every series) and buckets, so an
// operator's CometBFT dashboards and alerts keep working. Values the engine already holds (heights, validators,
// mempool) are read when Prometheus scrapes; per-block values are set once per block; per-call timings come from
// the ABCI observer (observed-app.ts). Nothing here runs unless metrics are on.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { Engine } from "./engine.ts";
import type { AbciMethodName, AbciObserver } from "./observed-app.ts";
import type { Validator } from "./types.ts";

// CometBFT's buckets: ABCI method timings (proxy/metrics.go), FinalizeBlock processing in ms (linear 1, +10, ×10),
// block interval (Prometheus' default buckets).
const ABCI_BUCKETS = [0.0001, 0.0004, 0.002, 0.009, 0.02, 0.1, 0.65, 2, 6, 25];
const PROCESSING_MS_BUCKETS = [1, 11, 21, 31, 41, 51, 61, 71, 81, 91];
const INTERVAL_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Options of {@link ConsensusMetrics}. */
export interface ConsensusMetricsOptions {
  /** config.toml instrumentation.namespace (default "cometbft"). */
  namespace: string;
  chainId: string;
}

/**
 * The consensus metrics of one engine, in their own registry (served on prometheus_listen_addr).
 *
 * @example
 * const metrics = new ConsensusMetrics({ namespace: "cometbft", chainId });
 * const app = observeAbci(chainApp, [metrics.abciObserver]); // the engine drives `app`
 * metrics.attach(engine); text = await metrics.registry.metrics();
 */
export class ConsensusMetrics {
  readonly registry = new Registry();
  readonly abciObserver: AbciObserver;
  private engine: Engine | undefined;
  private readonly numTxs: Gauge;
  private readonly totalTxs: Gauge;
  private readonly blockSize: Gauge;
  private readonly blockInterval: Histogram;
  private lastBlockSeconds: number | undefined;

  constructor(options: ConsensusMetricsOptions) {
    const ns = options.namespace;
    const registers = [this.registry];
    this.registry.setDefaultLabels({ chain_id: options.chainId });
    const self = this;
    const state = () => self.engine?.state;
    new Gauge({
      name: `${ns}_consensus_height`,
      help: "Height of the chain.",
      registers,
      collect() {
        if (self.engine !== undefined) this.set(Number(self.engine.committedHeight));
      },
    });
    new Gauge({
      name: `${ns}_consensus_latest_block_height`,
      help: "The latest block height.",
      registers,
      collect() {
        if (self.engine !== undefined) this.set(Number(self.engine.store.height));
      },
    });
    new Gauge({
      name: `${ns}_consensus_validators`,
      help: "Number of validators.",
      registers,
      collect() {
        const s = state();
        if (s !== undefined) this.set(s.validators.length);
      },
    });
    new Gauge({
      name: `${ns}_consensus_validators_power`,
      help: "Total power of all validators.",
      registers,
      collect() {
        const s = state();
        if (s !== undefined) this.set(Number(s.validators.reduce((n, v) => n + v.votingPower, 0n)));
      },
    });
    // One validator signs every block it makes and sees no other node: nobody is missing or byzantine, no round but
    // the first is needed, there are no peers. Served (as zeros) so that dashboards and alerts written for CometBFT
    // find their series.
    const zero = (name: string, help: string) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(0);
        },
      });
    zero(`${ns}_consensus_missing_validators`, "Number of validators who did not sign.");
    zero(`${ns}_consensus_missing_validators_power`, "Total power of the missing validators.");
    zero(`${ns}_consensus_byzantine_validators`, "Number of validators who tried to double sign.");
    zero(`${ns}_consensus_byzantine_validators_power`, "Total power of the byzantine validators.");
    zero(`${ns}_consensus_rounds`, "Number of rounds.");
    zero(`${ns}_p2p_peers`, "Number of peers.");
    // This node's own series, by its address as CometBFT labels a validator's; `read` gets its entry in the validator
    // set (undefined when it is not in it) and answers undefined to leave the series out.
    const ownValidator = (
      name: string,
      help: string,
      read: (engine: Engine, mine: Validator | undefined) => number | undefined,
    ) =>
      new Gauge({
        name,
        help,
        labelNames: ["validator_address"],
        registers,
        collect() {
          const engine = self.engine;
          if (engine === undefined) return;
          const own = engine.privValidator.address;
          const value = read(
            engine,
            engine.state.validators.find((v) => Buffer.compare(v.address, own) === 0),
          );
          this.reset();
          if (value !== undefined)
            this.set({ validator_address: Buffer.from(own).toString("hex").toUpperCase() }, value);
        },
      });
    ownValidator(`${ns}_consensus_validator_power`, "Power of a validator.", (_engine, mine) =>
      mine === undefined ? 0 : Number(mine.votingPower),
    );
    ownValidator(
      `${ns}_consensus_validator_last_signed_height`,
      "Last height signed by this validator if the node is a validator.",
      (engine, mine) => (mine === undefined ? undefined : Number(engine.committedHeight)),
    );
    ownValidator(`${ns}_consensus_validator_missed_blocks`, "Total missed blocks for a validator.", (_engine, mine) =>
      mine === undefined ? undefined : 0,
    );
    this.numTxs = new Gauge({ name: `${ns}_consensus_num_txs`, help: "Number of transactions.", registers });
    this.totalTxs = new Gauge({
      name: `${ns}_consensus_total_txs`,
      help: "Total number of transactions committed since the process started.",
      registers,
    });
    this.blockSize = new Gauge({ name: `${ns}_consensus_block_size_bytes`, help: "Size of the block.", registers });
    this.blockInterval = new Histogram({
      name: `${ns}_consensus_block_interval_seconds`,
      help: "Time between this and the last block.",
      buckets: INTERVAL_BUCKETS,
      registers,
    });
    new Gauge({
      name: `${ns}_blocksync_syncing`,
      help: "Whether or not a node is block syncing. 1 if yes, 0 if no.",
      registers,
      collect() {
        this.set(0);
      },
    });
    new Gauge({
      name: `${ns}_mempool_size`,
      help: "Number of uncommitted transactions in the mempool.",
      registers,
      collect() {
        if (self.engine !== undefined) this.set(self.engine.mempool.size);
      },
    });
    new Gauge({
      name: `${ns}_mempool_size_bytes`,
      help: "Total size of the mempool in bytes.",
      registers,
      collect() {
        if (self.engine !== undefined) this.set(self.engine.mempool.totalBytes);
      },
    });
    // Counters read from the mempool's own tallies at scrape time (the hot path only increments a number).
    const mempoolCounter = (name: string, help: string, read: (e: Engine) => number) =>
      new Counter({
        name,
        help,
        registers,
        collect() {
          if (self.engine === undefined) return;
          this.reset();
          this.inc(read(self.engine));
        },
      });
    mempoolCounter(`${ns}_mempool_failed_txs`, "Number of failed transactions.", (e) => e.mempool.failedTxs);
    mempoolCounter(
      `${ns}_mempool_recheck_times`,
      "Number of times transactions are rechecked in the mempool.",
      (e) => e.mempool.rechecks,
    );
    mempoolCounter(`${ns}_mempool_rejected_txs`, "Number of rejected transactions.", (e) => e.mempool.rejectedTxs);
    mempoolCounter(`${ns}_mempool_evicted_txs`, "Number of evicted transactions.", (e) => e.mempool.evictedTxs);
    const processing = new Histogram({
      name: `${ns}_state_block_processing_time`,
      help: "Time spent processing FinalizeBlock",
      buckets: PROCESSING_MS_BUCKETS,
      registers,
    });
    const abciTiming = new Histogram({
      name: `${ns}_abci_connection_method_timing_seconds`,
      help: "Timing for each ABCI method.",
      labelNames: ["method", "type"],
      buckets: ABCI_BUCKETS,
      registers,
    });
    // One child per method, made once: observing then costs no label lookup.
    const children = new Map<AbciMethodName, { observe(v: number): void }>();
    const child = (method: AbciMethodName) => {
      let found = children.get(method);
      if (found === undefined) {
        found = abciTiming.labels({ method, type: method === "check_tx" ? "async" : "sync" });
        children.set(method, found);
      }
      return found;
    };
    this.abciObserver = {
      timing(method, seconds) {
        child(method).observe(seconds);
        if (method === "finalize_block") processing.observe(seconds * 1000);
      },
    };
  }

  /** Adds the process metrics (CPU, memory, heap, event-loop lag, GC) under their usual names. */
  collectProcessMetrics(): void {
    collectDefaultMetrics({ register: this.registry });
  }

  /** Starts reading `engine` (its state at scrape time, and each committed block). Returns the detach function. */
  attach(engine: Engine): () => void {
    this.engine = engine;
    const last = engine.state.lastBlockTime;
    if (engine.state.lastBlockHeight >= engine.state.initialHeight) this.lastBlockSeconds = seconds(last);
    return engine.onNewBlock((event) => {
      const txs = event.block.txs.length;
      this.numTxs.set(txs);
      this.totalTxs.inc(txs);
      if (event.blockSize !== undefined) this.blockSize.set(event.blockSize);
      const now = seconds(event.block.header.time);
      if (this.lastBlockSeconds !== undefined) this.blockInterval.observe(Math.max(0, now - this.lastBlockSeconds));
      this.lastBlockSeconds = now;
    });
  }
}

function seconds(time: { seconds: bigint; nanos: number }): number {
  return Number(time.seconds) + time.nanos / 1e9;
}
