// CLI start-up cost (issue 15, goal 5): `chaind version` ≤ 4× a bare `node -e 0`, and
// `chaind query bank balances <addr>` against a running node ≤ 6×, all measured in the same run.
// Each figure is the median wall time of several runs, interleaved with the baseline's runs so a
// change in machine load hits both alike; the load average before and after is part of the row name.
// chaind runs from this source tree as the tests run it (Node strips the types); one warm-up run
// first, as a user's second invocation would find Node's compile cache filled.
import { spawn } from "node:child_process";
import { loadavg } from "node:os";
import { join } from "node:path";
import {
  bannerEndpoints,
  CHAIND_ENTRY,
  killAllChaind,
  LOOPBACK_PORT_FLAGS,
  NODE_BIN,
  PROJECT_ROOT,
  spawnChaind,
  tempDir,
  waitForHeight,
} from "../test/support/node/chaind.ts";
import type { BenchRow } from "./harness.ts";

const RUNS = 9;

/** Runs the benchmark: a dev chain to query, then interleaved runs of each command and the baseline. */
export async function run(): Promise<BenchRow[]> {
  const dir = await tempDir("chaind-cli-start-bench-");
  try {
    const home = join(dir.path, "home");
    const node = spawnChaind(["dev", "--home", home, ...LOOPBACK_PORT_FLAGS], { userHome: dir.path });
    const { rpc } = await bannerEndpoints(node);
    await waitForHeight(rpc, 2n);
    const alice = /^ {2}alice +(chain1\w+)$/m.exec(node.stdout)?.[1];
    if (alice === undefined) throw new Error(`the dev banner names no alice key:\n${node.stdout}`);

    const baseline = [NODE_BIN, "-e", "0"];
    const version = [NODE_BIN, CHAIND_ENTRY, "version"];
    const balances = [NODE_BIN, CHAIND_ENTRY, "query", "bank", "balances", alice, "--node", rpc];
    for (const command of [baseline, version, balances]) await timedRun(command); // warm-up
    const times = { baseline: [] as number[], version: [] as number[], balances: [] as number[] };
    const loadBefore = loadavg()[0] as number;
    for (let i = 0; i < RUNS; i++) {
      times.baseline.push(await timedRun(baseline));
      times.version.push(await timedRun(version));
      times.balances.push(await timedRun(balances));
    }
    const load = `load ${loadBefore.toFixed(1)} → ${(loadavg()[0] as number).toFixed(1)}`;
    const base = median(times.baseline);
    const row = (name: string, value: number, limit: number): BenchRow => ({
      name: `${name} (median of ${RUNS}; ${load})`,
      value,
      baseline: base,
      unit: "ms",
      target: `<= ${limit}x node -e 0`,
      met: value / base <= limit,
      ratio: value / base,
    });
    return [
      row("CLI start: chaind version", median(times.version), 4),
      row("CLI start: chaind query bank balances", median(times.balances), 6),
    ];
  } finally {
    await killAllChaind();
    await dir.remove();
  }
}

/** Wall time of one run of `command` in ms; a failed run is an error (a fast failure is no figure). */
function timedRun([command, ...args]: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(command as string, args, { cwd: PROJECT_ROOT, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("exit", (code) => {
      const ms = performance.now() - start;
      if (code === 0) resolve(ms);
      else reject(new Error(`${[command, ...args].join(" ")} exited ${code}: ${stderr}`));
    });
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}
