// `npm run bench`: runs every bench/*.bench.ts (or those named on the command line), each in a process of its own
// (bench/run-file.ts), prints one table row per figure and never fails on a missed target: the figures are for
// people to read.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchRow } from "./harness.ts";

const here = dirname(fileURLToPath(import.meta.url));
// `--quick` shortens the long figures (memory under load, floods) for development runs; the
// default is the full figure the issue states.
const args = process.argv.slice(2);
if (args.includes("--quick")) process.env.CHAIND_BENCH_QUICK = "1";
const only = args.filter((a) => a !== "--quick");
const files = readdirSync(here)
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  return Math.abs(n) >= 100 ? n.toFixed(0) : n.toPrecision(3);
}

console.log(
  `cores: ${availableParallelism()}, load average now: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
console.log("| figure | value | baseline | ratio | target | | load before → after |");
console.log("|---|---|---|---|---|---|---|");
const rows: BenchRow[] = [];
const work = mkdtempSync(join(tmpdir(), "chaind-bench-rows-"));
try {
  for (const file of files) {
    try {
      const got = await runFile(file, join(work, `${file}.json`));
      rows.push(...got);
      for (const r of got) printRow(r);
    } catch (err) {
      console.log(`| ${file} | failed to run: ${(err as Error).message} |`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** Runs one bench file in its own process (its output passed through) and reads back the rows it wrote. */
async function runFile(file: string, out: string): Promise<BenchRow[]> {
  const child = spawn(process.execPath, [...process.execArgv, join(here, "run-file.ts"), file, out], {
    stdio: ["ignore", "inherit", "inherit"],
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", resolve);
  });
  if (!existsSync(out)) throw new Error(`its process exited with ${code} before writing its rows`);
  const result = JSON.parse(readFileSync(out, "utf8"), (_key, value) => (value === "NaN" ? Number.NaN : value)) as
    | { rows: BenchRow[] }
    | { error: string };
  if ("error" in result) throw new Error(result.error);
  return result.rows;
}

function printRow(r: BenchRow): void {
  const load = r.load === undefined ? "" : `${r.load.before.toFixed(2)} → ${r.load.after.toFixed(2)}`;
  if (r.skipped !== undefined) {
    console.log(`| ${r.name} | skipped: ${r.skipped} | | | ${r.target} | skipped | ${load} |`);
    return;
  }
  const ratio = r.ratio ?? r.value / r.baseline;
  console.log(
    `| ${r.name} | ${fmt(r.value)} ${r.unit} | ${fmt(r.baseline)} ${r.unit} | ${fmt(ratio)}x | ${r.target} | ${r.met ? "met" : "MISSED"} | ${load} |`,
  );
}

const skipped = rows.filter((r) => r.skipped !== undefined).length;
console.log(
  `\n${rows.length - skipped} figures, ${rows.filter((r) => r.met).length} targets met${skipped > 0 ? `, ${skipped} skipped` : ""}`,
);
