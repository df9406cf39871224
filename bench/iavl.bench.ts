// Our store against IAVL (issue 38, goal 1): cosmos/iavl v1.2.2 on goleveldb, the store every Cosmos SDK v0.50 chain
// commits to, run by bench/iavl (a Go program built here with `go build`) on the same machine in the same run.
// Workloads, the same on both sides (iavl/main.go and store-workloads.ts):
// - commit: 10k writes a version into every key of a 10k-key tree, and into random keys of a 100k-key tree, each
//   version durable before the next (our synced commit; IAVL's SaveVersion and a synced commit-info batch, as the
//   SDK's root multistore commits); median round, the two sides alternating;
// - reads of random keys at the latest version and 1,000 versions back, and membership proofs at the latest version
//   (ours: the store op and the multistore op; IAVL: the store op), on a 100k-key tree with 1,001 more versions;
//   IAVL's program holds its tree open (`serve-reads`) and times one phase when asked, so each round runs every
//   phase on both sides back to back, the side that goes first alternating; medians of the rounds.
// Targets: commit >= 2x IAVL's rate, reads and proofs >= 1x. Where Go is absent the rows say so and are skipped.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BenchRow, loadNow, quickMode } from "./harness.ts";
import {
  buildIavlProgram,
  type IavlCommitResult,
  type IavlReadSession,
  type ReadPhase,
  runIavlProgram,
  startIavlReads,
} from "./iavl-program.ts";
import { median, type OurReadSession, openOurReads, ourCommitRounds } from "./store-workloads.ts";

const WRITES = 10_000;
const ROUNDS = 9;
const READ_KEYS = 100_000;
const READ_VERSIONS = 1001;
const READ_SAMPLES = 20_000;
const READ_ROUNDS = 9;

const COMMIT_WORKLOADS = [
  { keys: 10_000, what: "every key of a 10k-key tree" },
  { keys: 100_000, what: "random keys of a 100k-key tree" },
];
const READ_ROWS: { phase: ReadPhase; name: string; unit: string; target: string }[] = [
  { phase: "latest", name: "store read at latest vs IAVL v1.2.2 (100k keys)", unit: "reads/s", target: ">= 1x IAVL" },
  {
    phase: "back",
    name: "store read 1,000 versions back vs IAVL v1.2.2 (100k keys)",
    unit: "reads/s",
    target: ">= 1x IAVL",
  },
  {
    phase: "proofs",
    name: "store proof generation at latest vs IAVL v1.2.2 (100k keys)",
    unit: "proofs/s",
    target: ">= 1x IAVL",
  },
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
    rows.push(...(await readRows(program.path, work)));
    return rows;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * The read rows: both sides build the same shape of store (IAVL's program in its own process, at the same time as
 * ours), then each round runs every phase on both sides back to back, the side that goes first alternating by round,
 * so a change of load on the busy machine meets both alike; the figures are the medians of the rounds.
 */
async function readRows(programPath: string, work: string): Promise<BenchRow[]> {
  const keys = quickMode() ? 20_000 : READ_KEYS;
  const shape = [String(keys), String(READ_VERSIONS), String(READ_SAMPLES)];
  const [iavl, ours] = await Promise.allSettled([
    startIavlReads(programPath, [join(work, "reads-iavl"), ...shape]),
    openOurReads(work, keys, READ_VERSIONS, READ_SAMPLES),
  ]);
  if (iavl.status === "rejected" || ours.status === "rejected") {
    if (iavl.status === "fulfilled") await iavl.value.close().catch(() => {});
    if (ours.status === "fulfilled") await ours.value.close();
    throw iavl.status === "rejected" ? iavl.reason : (ours as PromiseRejectedResult).reason;
  }
  const sides: { ours: OurReadSession; iavl: IavlReadSession } = { ours: ours.value, iavl: iavl.value };
  try {
    const before = loadNow();
    const oursUs = new Map<ReadPhase, number[]>(READ_ROWS.map((r) => [r.phase, []]));
    const iavlUs = new Map<ReadPhase, number[]>(READ_ROWS.map((r) => [r.phase, []]));
    for (let round = 0; round < READ_ROUNDS; round++) {
      for (const { phase } of READ_ROWS) {
        if (round % 2 === 0) {
          iavlUs.get(phase)?.push(await sides.iavl.phase(phase));
          oursUs.get(phase)?.push(await sides.ours.phase(phase));
        } else {
          oursUs.get(phase)?.push(await sides.ours.phase(phase));
          iavlUs.get(phase)?.push(await sides.iavl.phase(phase));
        }
      }
    }
    const load = { before, after: loadNow() };
    return READ_ROWS.map((r) => {
      const oursMedian = median(oursUs.get(r.phase) ?? []);
      const iavlMedian = median(iavlUs.get(r.phase) ?? []);
      return {
        name: quickMode() ? r.name.replace("100k keys", "20k keys, --quick") : r.name,
        value: 1e6 / oursMedian,
        baseline: 1e6 / iavlMedian,
        unit: r.unit,
        target: r.target,
        met: oursMedian <= iavlMedian,
        load,
      };
    });
  } finally {
    await sides.ours.close();
    await sides.iavl.close();
  }
}
