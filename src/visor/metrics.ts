// chainvisor's Prometheus metrics (DAEMON_METRICS_ADDR; off when unset), served by `run` on GET /metrics: its state,
// the plan it is staging, downloads, switches, node starts, and how long the last switch took from the halt to the
// next release's first block. chainvisor shares no code with the node, so the listener is its own (prom-client only).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Counter, Gauge, Histogram, Registry } from "prom-client";

/** What chainvisor is doing. */
export type VisorState = "watching" | "staging" | "downloading" | "switching" | "failed";

const STATES: readonly VisorState[] = ["watching", "staging", "downloading", "switching", "failed"];

/**
 * The metrics of one `chainvisor run`. Every method is cheap and safe to call with metrics off (see
 * {@link NO_METRICS}).
 *
 * @example const metrics = new VisorMetrics(); const server = await metrics.listen({ host: "127.0.0.1", port: 0 });
 */
export class VisorMetrics {
  readonly registry = new Registry();
  private readonly stateGauge: Gauge;
  private readonly planHeight: Gauge;
  private readonly planInfo: Gauge;
  private readonly downloadBytes: Counter;
  private readonly downloadSeconds: Histogram;
  private readonly downloads: Counter;
  private readonly switches: Counter;
  private readonly starts: Counter;
  private readonly switchSeconds: Gauge;
  private readonly staged: Gauge;
  private current: VisorState = "watching";

  constructor() {
    const registers = [this.registry];
    this.stateGauge = new Gauge({
      name: "chainvisor_state",
      help: "1 for what chainvisor is doing now (watching, staging, downloading, switching, failed), 0 for the others.",
      labelNames: ["state"],
      registers,
    });
    this.planHeight = new Gauge({
      name: "chainvisor_plan_height",
      help: "Height of the upgrade plan chainvisor is staging or switching to, 0 when none.",
      registers,
    });
    this.planInfo = new Gauge({
      name: "chainvisor_plan_info",
      help: "1 for the name of the upgrade plan chainvisor is staging or switching to.",
      labelNames: ["name"],
      registers,
    });
    this.downloads = new Counter({
      name: "chainvisor_downloads_total",
      help: "Release downloads, by result (ok, failed).",
      labelNames: ["result"],
      registers,
    });
    this.downloadBytes = new Counter({
      name: "chainvisor_download_bytes_total",
      help: "Bytes of release archives downloaded.",
      registers,
    });
    this.downloadSeconds = new Histogram({
      name: "chainvisor_download_seconds",
      help: "Seconds a successful release download took (fetch, verify, unpack).",
      buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
      registers,
    });
    this.switches = new Counter({
      name: "chainvisor_switches_total",
      help: "Switches to an upgrade's release, by result (ok, failed).",
      labelNames: ["result"],
      registers,
    });
    this.starts = new Counter({
      name: "chainvisor_node_starts_total",
      help: "Times chainvisor started the node (the first start and every restart).",
      registers,
    });
    this.switchSeconds = new Gauge({
      name: "chainvisor_last_switch_seconds",
      help: "Seconds from the last upgrade halt being seen to the next release's first block.",
      registers,
    });
    this.staged = new Gauge({
      name: "chainvisor_plan_staged",
      help: "1 once the release of the plan in chainvisor_plan_height is in place (staged ahead or installed), else 0.",
      registers,
    });
    this.staged.set(0);
    for (const outcome of ["ok", "failed"]) {
      this.switches.inc({ result: outcome }, 0);
      this.downloads.inc({ result: outcome }, 0);
    }
    this.setState("watching");
    this.planHeight.set(0);
  }

  setState(state: VisorState): void {
    this.current = state;
    for (const s of STATES) this.stateGauge.set({ state: s }, s === state ? 1 : 0);
  }

  get state(): VisorState {
    return this.current;
  }

  /** The plan being staged or switched to (its release not yet known to be in place); undefined clears it. */
  setPlan(plan: { name: string; height: bigint } | undefined): void {
    this.planHeight.set(plan === undefined ? 0 : Number(plan.height));
    this.planInfo.reset();
    if (plan !== undefined) this.planInfo.set({ name: plan.name }, 1);
    this.staged.set(0);
  }

  /** The release of `plan` is in place: the switch will not need a download. */
  planStaged(plan: { name: string; height: bigint }): void {
    this.setPlan(plan);
    this.staged.set(1);
  }

  downloaded(result: "ok" | "failed", bytes: number, seconds: number): void {
    this.downloads.inc({ result });
    if (bytes > 0) this.downloadBytes.inc(bytes);
    if (result === "ok") this.downloadSeconds.observe(seconds);
  }

  switched(result: "ok" | "failed"): void {
    this.switches.inc({ result });
  }

  nodeStarted(): void {
    this.starts.inc();
  }

  switchTook(seconds: number): void {
    this.switchSeconds.set(seconds);
  }

  /** Serves GET /metrics on `host:port` (port 0 = any); resolves once listening. */
  async listen(at: { host: string; port: number }): Promise<{ url: string; close(): Promise<void> }> {
    const server: Server = createServer((req, res) => {
      if ((req.url ?? "/").split("?")[0] !== "/metrics" || req.method !== "GET") {
        res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("404 page not found\n");
        return;
      }
      this.registry.metrics().then(
        (text) => res.writeHead(200, { "content-type": this.registry.contentType }).end(text),
        (error: unknown) => res.writeHead(500).end(`failed to gather metrics: ${String(error)}\n`),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(at.port, at.host, () => {
        server.off("error", reject);
        resolve();
      });
    });
    // The metrics must never keep chainvisor alive once the run is over.
    server.unref();
    const address = server.address() as AddressInfo;
    const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
    return {
      url: `http://${host}:${address.port}/metrics`,
      close: () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    };
  }
}
