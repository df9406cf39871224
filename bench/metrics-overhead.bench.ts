// What the metrics cost (issue 34): the end-to-end signed-send rate of e2e-send.bench.ts (a real node, 8 senders with
// broadcast_tx_sync from a separate client process, 1 s blocks) with config.toml [instrumentation] and app.toml
// [telemetry] on — both endpoints scraped every second while the sends run, as Prometheus would — against the same
// run with them off. Off and on alternate (twice each, once in --quick) and each side keeps its best run, so a burst
// of load from the machine's other work lands on either side alike.
// Target: metrics on >= 0.95x metrics off.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testKey } from "../src/testing/app.ts";
import { accountNumbers, benchKeys, signedSends, startBenchNode } from "./bench-node.ts";
import { runClient } from "./e2e-send.bench.ts";
import { type BenchRow, quickMode } from "./harness.ts";

const SENDERS = 8;
const RATIO = 0.95;

/** One node, one warm-up and one measured client run; the committed tx/s and how many scrapes ran meanwhile. */
async function sendRate(metrics: boolean, perSender: number): Promise<{ rate: number; scrapes: number }> {
  const keys = benchKeys(SENDERS);
  const recipient = testKey("bench-e2e-recipient");
  const dir = await mkdtemp(join(tmpdir(), "chaind-bench-metrics-"));
  const node = await startBenchNode({ accounts: keys, metrics });
  let scrapes = 0;
  let timer: NodeJS.Timeout | undefined;
  try {
    if (metrics && node.metrics === undefined) throw new Error("the node did not print its metrics endpoints");
    const numbers = await accountNumbers(
      node.rest,
      keys.map((k) => k.bech32),
    );
    const warm = 20;
    const all = keys.map((key, i) =>
      signedSends(key, {
        chainId: node.chainId,
        accountNumber: numbers[i],
        from: 0n,
        count: warm + perSender,
        to: recipient.bech32,
      }),
    );
    await runClient(
      node.rpc,
      all.map((txs) => txs.slice(0, warm)),
      dir,
    );
    const urls = node.metrics === undefined ? [] : [node.metrics.consensus, node.metrics.app];
    const scrape = async () => {
      for (const url of urls) {
        const response = await fetch(url);
        await response.text();
        if (response.status !== 200) throw new Error(`GET ${url}: ${response.status}`);
        scrapes++;
      }
    };
    if (metrics) timer = setInterval(() => void scrape().catch(() => undefined), 1000);
    const report = await runClient(
      node.rpc,
      all.map((txs) => txs.slice(warm)),
      dir,
    );
    return { rate: report.txs / report.seconds, scrapes };
  } finally {
    clearInterval(timer);
    await node.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs the benchmark and returns its row. */
export async function run(): Promise<BenchRow[]> {
  const perSender = quickMode() ? 100 : 1000;
  const rounds = quickMode() ? 1 : 2;
  let off = 0;
  let on = 0;
  let scrapes = 0;
  for (let round = 0; round < rounds; round++) {
    off = Math.max(off, (await sendRate(false, perSender)).rate);
    const measured = await sendRate(true, perSender);
    on = Math.max(on, measured.rate);
    scrapes += measured.scrapes;
  }
  return [
    {
      name: `signed bank sends end to end with consensus and app metrics on, both scraped every second (${scrapes} scrapes), against off (best of ${rounds} each)`,
      value: on,
      baseline: off,
      unit: "tx/s",
      target: `>= ${RATIO}x the same run with metrics off`,
      met: on >= RATIO * off,
    },
  ];
}
