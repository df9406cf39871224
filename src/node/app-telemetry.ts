// The application's metrics (app.toml [telemetry]), served by the REST server at GET /metrics?format=prometheus
// with `service-name` as the prefix: transactions by result code, gas, store commit time, queries by transport and
// route, snapshots, the upgrade (plan height, blocks until it, the network's ready fraction, upgrades applied, the last one's handler and
// migration seconds), whether the node is halted, and the process (prom-client's default metrics, the Node
// ecosystem's names). Per-tx and per-query work is a cached child's inc/observe; everything the state already
// knows (the plan, the height) is read when Prometheus scrapes, not on the hot path.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { isExtendedCommitTx } from "../app/extended-commit.ts";
import type { AbciObserver } from "../engine/observed-app.ts";
import type { ResponseCheckTx } from "../gen/tendermint/abci/types_pb.js";
import type { ChainApp } from "../runtime/build-app.ts";
import type { QueryTransport, ServerTelemetry } from "../server/telemetry.ts";
import { type Readiness, readinessOf } from "../x/upgrade/readiness-query.ts";

const SECONDS_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const LONG_SECONDS_BUCKETS = [0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600];

/** Options of {@link AppTelemetry}. */
export interface AppTelemetryOptions {
  /** app.toml telemetry.service-name (the metric prefix). */
  prefix: string;
  /** The running chain (read at scrape time: the plan, the height). */
  chain: ChainApp;
}

type Child = { inc(by?: number): void };
type PlanView = { height: number; blocksUntil: number; name: string; readyFraction: number };
type TimedChild = { observe(value: number): void };

/**
 * The application metrics of one node, in their own registry.
 *
 * @example
 * const telemetry = new AppTelemetry({ prefix: "chaind", chain });
 * observers.push(telemetry.abciObserver); startServers({ ..., telemetry: telemetry.server });
 */
export class AppTelemetry {
  readonly registry = new Registry();
  readonly abciObserver: AbciObserver;
  readonly server: ServerTelemetry;
  /** Hooks for src/snapshots' attachSnapshots. */
  readonly snapshots: {
    onSnapshot(result: "ok" | "failed", seconds: number): void;
    onRestore(result: "ok" | "failed", seconds: number): void;
  };
  private readonly chain: ChainApp;
  private halted = false;
  private planRead: { at: number; view: Promise<PlanView> } | undefined;

  constructor(options: AppTelemetryOptions) {
    const p = options.prefix;
    this.chain = options.chain;
    const registers = [this.registry];
    const self = this;

    const txs = new Counter({
      name: `${p}_tx_total`,
      help: "Transactions by ABCI phase (check_tx for new txs, finalize_block) and result code (0 = success).",
      labelNames: ["phase", "code"],
      registers,
    });
    const txChildren = new Map<string, Child>();
    const countTx = (phase: "check_tx" | "finalize_block", code: number) => {
      const key = `${phase}/${code}`;
      let child = txChildren.get(key);
      if (child === undefined) {
        child = txs.labels({ phase, code: String(code) });
        txChildren.set(key, child);
      }
      child.inc();
    };
    const gasUsed = new Counter({
      name: `${p}_tx_gas_used_total`,
      help: "Gas used by the transactions of committed blocks.",
      registers,
    });
    const gasWanted = new Counter({
      name: `${p}_tx_gas_wanted_total`,
      help: "Gas wanted (the gas limits) by the transactions of committed blocks.",
      registers,
    });
    const commitSeconds = new Histogram({
      name: `${p}_store_commit_seconds`,
      help: "Seconds the ABCI Commit (the store's commit) took.",
      buckets: SECONDS_BUCKETS,
      registers,
    });
    const queryRequests = new Counter({
      name: `${p}_query_requests_total`,
      help: "Queries answered, by transport (grpc, rest, abci) and route (the method or ABCI path).",
      labelNames: ["transport", "route"],
      registers,
    });
    const querySeconds = new Histogram({
      name: `${p}_query_seconds`,
      help: "Seconds a query took, by transport and route.",
      labelNames: ["transport", "route"],
      buckets: SECONDS_BUCKETS,
      registers,
    });
    const queryChildren = new Map<string, { count: Child; seconds: TimedChild }>();
    const observeQuery = (transport: QueryTransport, route: string, seconds: number) => {
      const key = `${transport} ${route}`;
      let child = queryChildren.get(key);
      if (child === undefined) {
        child = {
          count: queryRequests.labels({ transport, route }),
          seconds: querySeconds.labels({ transport, route }),
        };
        queryChildren.set(key, child);
      }
      child.count.inc();
      child.seconds.observe(seconds);
    };

    const snapshotTotal = new Counter({
      name: `${p}_snapshot_create_total`,
      help: "State-sync snapshots created, by result (ok, failed).",
      labelNames: ["result"],
      registers,
    });
    const snapshotSeconds = new Histogram({
      name: `${p}_snapshot_create_seconds`,
      help: "Seconds a snapshot took to create.",
      buckets: LONG_SECONDS_BUCKETS,
      registers,
    });
    const restoreTotal = new Counter({
      name: `${p}_snapshot_restore_total`,
      help: "State-sync restores, by result (ok, failed).",
      labelNames: ["result"],
      registers,
    });
    const restoreSeconds = new Histogram({
      name: `${p}_snapshot_restore_seconds`,
      help: "Seconds a state-sync restore took, from the accepted offer.",
      buckets: LONG_SECONDS_BUCKETS,
      registers,
    });
    this.snapshots = {
      onSnapshot(result, seconds) {
        snapshotTotal.inc({ result });
        if (result === "ok") snapshotSeconds.observe(seconds);
      },
      onRestore(result, seconds) {
        restoreTotal.inc({ result });
        if (result === "ok") restoreSeconds.observe(seconds);
      },
    };

    new Gauge({
      name: `${p}_block_height`,
      help: "The application's last committed height.",
      registers,
      collect() {
        this.set(Number(self.chain.app.lastBlockHeight()));
      },
    });
    new Gauge({
      name: `${p}_halted`,
      help: "1 once the application has asked the node to stop (an upgrade halt, halt-height, the downgrade guard).",
      registers,
      collect() {
        this.set(self.halted ? 1 : 0);
      },
    });
    // The four plan gauges share one read of the plan per scrape (prom-client collects them concurrently).
    new Gauge({
      name: `${p}_upgrade_plan_height`,
      help: "Height of the scheduled upgrade plan, 0 when none.",
      registers,
      async collect() {
        this.set((await self.planView()).height);
      },
    });
    new Gauge({
      name: `${p}_upgrade_blocks_until`,
      help: "Blocks from the last committed height to the scheduled upgrade, 0 when none.",
      registers,
      async collect() {
        this.set((await self.planView()).blocksUntil);
      },
    });
    new Gauge({
      name: `${p}_upgrade_plan_info`,
      help: "1 for the name of the scheduled upgrade plan (no series when none).",
      labelNames: ["name"],
      registers,
      async collect() {
        const { name } = await self.planView();
        this.reset();
        if (name !== "") this.set({ name }, 1);
      },
    });
    new Gauge({
      name: `${p}_upgrade_ready_fraction`,
      help: "Share (0..1) of the bonded power whose vote extensions signal the scheduled plan, 0 when none.",
      registers,
      async collect() {
        this.set((await self.planView()).readyFraction);
      },
    });
    const applied = new Counter({
      name: `${p}_upgrade_applied_total`,
      help: "Upgrades applied by this process.",
      registers,
    });
    const handlerSeconds = new Gauge({
      name: `${p}_upgrade_last_handler_seconds`,
      help: "Seconds the last applied upgrade's handler took (its module migrations included).",
      labelNames: ["name"],
      registers,
    });
    const migrationSeconds = new Gauge({
      name: `${p}_upgrade_last_migration_seconds`,
      help: "Seconds the last applied upgrade's module migrations (RunMigrations) took.",
      labelNames: ["name"],
      registers,
    });
    const appliedHeight = new Gauge({
      name: `${p}_upgrade_last_applied_height`,
      help: "Height at which the last upgrade was applied by this process.",
      registers,
    });
    const keeper = this.chain.upgradeKeeper;
    const moduleManager = this.chain.moduleManager;
    const migrationsBefore = { seconds: moduleManager.lastMigrationSeconds };
    keeper.onApplied = (info) => {
      applied.inc();
      handlerSeconds.reset();
      handlerSeconds.set({ name: info.name }, info.handlerSeconds);
      migrationSeconds.reset();
      const ran = moduleManager.lastMigrationSeconds;
      migrationSeconds.set({ name: info.name }, ran !== undefined && ran !== migrationsBefore.seconds ? ran : 0);
      migrationsBefore.seconds = ran;
      appliedHeight.set(Number(info.height));
    };

    this.abciObserver = {
      timing(method, seconds) {
        if (method === "commit") commitSeconds.observe(seconds);
      },
      checkTx(response: ResponseCheckTx, recheck) {
        if (!recheck) countTx("check_tx", response.code);
      },
      finalizeBlock(response, request) {
        let used = 0n;
        let wanted = 0n;
        for (const [i, result] of response.txResults.entries()) {
          // The proposer's extended commit (readiness) rides as the block's first tx; it is no one's transaction.
          if (i === 0 && isExtendedCommitTx(request.txs[0])) continue;
          countTx("finalize_block", result.code);
          used += result.gasUsed;
          wanted += result.gasWanted;
        }
        if (used > 0n) gasUsed.inc(Number(used));
        if (wanted > 0n) gasWanted.inc(Number(wanted));
      },
      query(request, _response, seconds) {
        observeQuery("abci", request.path, seconds);
      },
      failed(method, error) {
        if (method === "finalize_block" && typeof (error as { exitCode?: unknown })?.exitCode === "number") {
          self.halted = true;
        }
      },
    };
    this.server = {
      observeQuery,
      gather: async () => ({ contentType: this.registry.contentType, text: await this.registry.metrics() }),
    };
  }

  /** Adds the process metrics (CPU, memory, heap, event-loop lag, GC) under their usual names. */
  collectProcessMetrics(): void {
    collectDefaultMetrics({ register: this.registry });
  }

  /** The plan as the gauges show it, read at most once per 250 ms (one scrape). */
  private planView(): Promise<PlanView> {
    const now = performance.now();
    if (this.planRead === undefined || now - this.planRead.at > 250) {
      this.planRead = {
        at: now,
        view: this.currentReadiness().then((readiness) => {
          if (readiness?.plan === undefined) return { height: 0, blocksUntil: 0, name: "", readyFraction: 0 };
          const { plan } = readiness;
          const latest = this.chain.app.lastBlockHeight();
          const until = plan.height - latest;
          return {
            height: Number(plan.height),
            blocksUntil: until > 0n ? Number(until) : 0,
            name: plan.name,
            // A 10^18-scaled LegacyDec; a double keeps the 16 digits a gauge can show.
            readyFraction: Number(readiness.readyFraction) / 1e18,
          };
        }),
      };
    }
    return this.planRead.view;
  }

  /** The plan and the network's readiness for it, as Query/UpgradeReadiness computes them (one read of the state). */
  private async currentReadiness(): Promise<Readiness | undefined> {
    const app = this.chain.app;
    if (app.lastBlockHeight() === 0n) return undefined;
    try {
      const ctx = await app.createQueryContext();
      return await readinessOf(ctx, this.chain.upgradeKeeper, this.chain.bondedValidators);
    } catch {
      // A store being swapped (a restore) or closed (a stop): no plan rather than a failed scrape.
      return undefined;
    }
  }
}
