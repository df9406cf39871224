// Our store against IAVL (issue 38, goal 1): cosmos/iavl v1.2.2 on goleveldb, the store every Cosmos SDK v0.50 chain
// commits to, run by bench/iavl (a Go program built here with `go build`) on the same machine in the same run.
// Workloads, the same on both sides (iavl/main.go and store-workloads.ts):
// - commit: 10k writes a version into every key of a 10k-key tree, and into random keys of a 100k-key tree, each
//   version durable before the next (our synced commit; IAVL's SaveVersion and a synced commit-info batch, as the
//   SDK's root multistore commits); median round, the two sides alternating;
// - reads of random keys at the latest version and 1,000 versions back, and membership proofs at the latest version
//   (ours: the store op and the multistore op; IAVL: the store op), on a 100k-key tree with 1,001 more versions.
// Targets: commit >= 2x IAVL's rate, reads and proofs >= 1x. Where Go is absent the rows say so and are skipped.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BenchRow, quickMode } from "./harness.ts";
import { buildIavlProgram, type IavlCommitResult, type IavlReadsResult, runIavlProgram } from "./iavl-program.ts";
import { median, ourCommitRounds, ourReads } from "./store-workloads.ts";

const WRITES = 10_000;
const ROUNDS = 9;
const READ_KEYS = 100_000;
const READ_VERSIONS = 1001;
const READ_SAMPLES = 20_000;
const READ_ROUNDS = 5;

const COMMIT_WORKLOADS = [
  { keys: 10_000, what: "every key of a 10k-key tree" },
  { keys: 100_000, what: "random keys of a 100k-key tree" },
];
const READ_ROWS = [
  { name: "store read at latest vs IAVL v1.2.2 (100k keys)", target: ">= 1x IAVL" },
  { name: "store read 1,000 versions back vs IAVL v1.2.2 (100k keys)", target: ">= 1x IAVL" },
  { name: "store proof generation at latest vs IAVL v1.2.2 (100k keys)", target: ">= 1x IAVL" },
];

function commitName(what: string): string {
  return `store commit of 10k writes/version (${what}), durable, vs IAVL v1.2.2 on goleveldb`;
}

function skippedRows(reason: string): BenchRow[] {
  const rows = [...COMMIT_WORKLOADS.map((w) => ({ name: commitName(w.what), target: ">= 2x IAVL" })), ...READ_ROWS];
  return rows.map((r) => ({ ...r, value: Number.NaN, baseline: Number.NaN, unit: "", met: false, skipped: reason }));
}

/** Runs the benchmark. */
export async function run(): Promise<BenchRow[]> {
  const program = await buildIavlProgram();
  if ("skipped" in program) return skippedRows(program.skipped);
  const pairs = quickMode() ? 1 : 2;
  const work = await mkdtemp(join(tmpdir(), "chaind-iavl-bench-"));
  try {
    const rows: BenchRow[] = [];
    for (const w of COMMIT_WORKLOADS) {
      const ours: number[] = [];
      const theirs: number[] = [];
      const oursCpu: number[] = [];
      const theirsCpu: number[] = [];
      // Alternating which side goes first, so a burst of load on the busy machine hits both alike.
      for (let p = 0; p < pairs; p++) {
        const dir = join(work, `commit-${w.keys}-${p}`);
        const runIavl = async () => {
          const got = await runIavlProgram<IavlCommitResult>(program.path, [
            "commit",
            join(dir, "iavl"),
            String(w.keys),
            String(WRITES),
            String(ROUNDS),
          ]);
          theirs.push(...got.roundsMs);
          theirsCpu.push(...got.roundsCpuMs);
        };
        const runOurs = async () => {
          const got = await ourCommitRounds(dir, w.keys, WRITES, ROUNDS);
          ours.push(...got.ms);
          oursCpu.push(...got.cpuMs);
        };
        if (p % 2 === 0) {
          await runIavl();
          await runOurs();
        } else {
          await runOurs();
          await runIavl();
        }
        await rm(dir, { recursive: true, force: true });
      }
      const oursRate = (WRITES * 1000) / median(ours);
      const iavlRate = (WRITES * 1000) / median(theirs);
      // CPU per commit (every thread of each process) depends far less on what else the machine runs than wall time.
      const cpu = `CPU per commit, all threads: ours ${median(oursCpu).toFixed(0)} ms, IAVL ${median(theirsCpu).toFixed(0)} ms`;
      rows.push({
        name: `${commitName(w.what)} (${cpu})`,
        value: oursRate,
        baseline: iavlRate,
        unit: "writes/s",
        target: ">= 2x IAVL",
        met: oursRate >= 2 * iavlRate,
      });
    }
    const readKeys = quickMode() ? 20_000 : READ_KEYS;
    const iavl = await runIavlProgram<IavlReadsResult>(program.path, [
      "reads",
      join(work, "reads-iavl"),
      String(readKeys),
      String(READ_VERSIONS),
      String(READ_SAMPLES),
      String(READ_ROUNDS),
    ]);
    const ours = await ourReads(work, readKeys, READ_VERSIONS, READ_SAMPLES, READ_ROUNDS);
    const pairsOfUs: [number, number][] = [
      [ours.latestUsPerRead, iavl.latestUsPerRead],
      [ours.backUsPerRead, iavl.backUsPerRead],
      [ours.proofUsPerProof, iavl.proofUsPerProof],
    ];
    READ_ROWS.forEach((r, i) => {
      const [oursUs, iavlUs] = pairsOfUs[i];
      rows.push({
        name: quickMode() ? r.name.replace("100k keys", "20k keys, --quick") : r.name,
        value: 1e6 / oursUs,
        baseline: 1e6 / iavlUs,
        unit: i === 2 ? "proofs/s" : "reads/s",
        target: r.target,
        met: oursUs <= iavlUs,
      });
    });
    return rows;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
