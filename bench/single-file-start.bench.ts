// Start-up of the single-file release (issue 13: cold start within 2× of today's `node dist/chain/cmd/chaind.js
// version`). Cold: a fresh cache directory every run, so the payload is unpacked each time; warm: the cache kept.
// The baseline, in the same run on the same machine: the compiled tree run by the same Node. Medians of 5.
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildRelease, ENTRY } from "../scripts/release.ts";
import { projectToPackage } from "../test/e2e/support/project-build.ts";
import type { BenchRow } from "./harness.ts";

const RUNS = 5;

function startMs(command: string, args: string[], env: Record<string, string>): number {
  const started = performance.now();
  const result = spawnSync(command, args, { env: { PATH: "/usr/bin:/bin", ...env }, encoding: "utf8" });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${result.status}: ${result.stderr}`);
  return ms;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Runs the benchmark: cold and warm starts of the single file against the compiled tree. */
export async function run(): Promise<BenchRow[]> {
  const work = await mkdtemp(join(tmpdir(), "chaind-start-bench-"));
  try {
    const root = await projectToPackage(work);
    const built = await buildRelease({ release: "v1", outDir: join(work, "out"), skipBuild: true, projectRoot: root });
    const home = { HOME: work };
    const baseline: number[] = [];
    const cold: number[] = [];
    const warm: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      baseline.push(startMs(process.execPath, [join(root, ENTRY), "version"], home));
      cold.push(startMs(built.executable, ["version"], { ...home, CHAIND_CACHE_DIR: join(work, `cold-${i}`) }));
      warm.push(startMs(built.executable, ["version"], { ...home, CHAIND_CACHE_DIR: join(work, "warm") }));
    }
    const base = median(baseline);
    const row = (name: string, value: number): BenchRow => ({
      name,
      value,
      baseline: base,
      unit: "ms",
      target: "<= 2x node dist/chain/cmd/chaind.js version",
      met: value <= 2 * base,
    });
    return [
      row("single-file `chaind version`, cold (unpacks)", median(cold)),
      row("single-file `chaind version`, warm", median(warm)),
    ];
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
