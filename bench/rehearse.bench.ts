// The rehearsal's time against the real upgrade's on the same 1M-record state (issue 33: target ≤ 1.5× for the
// single run, the second determinism run excluded).
//
// A v1 home of the rehearsal test chain (test/e2e/support/rehearse-chain.ts) is made by its binary (`dev
// --halt-height 2`), then its `notes` store gets 1M records through ordinary commits. Baseline: the real upgrade's
// own work on a copy — the v2 release opens the state with the store loader, FinalizeBlock(H+1) applies the upgrade,
// Commit (the copy, and then its removal, are written out before the next timed run). Figure: `rehearseUpgrade` on the home (work copy, the same upgrade, key counts, report, removing the work
// folder) with `determinism: false`, on the chain without the upgrade's declared checks (the chain's own code, timed
// in a run of their own and printed beside the figure). Medians of ROUNDS alternating runs: on the busy 2-core
// machine one run of either side can take three times another, so three rounds left the median to chance.
// CHAIND_BENCH_QUICK=1 uses 100k records.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { homePaths, loadGenesis } from "../src/config/index.ts";
import { RequestFinalizeBlockSchema } from "../src/gen/tendermint/abci/types_pb.js";
import { releaseForUpgrade } from "../src/node/dry-run.ts";
import { rehearseUpgrade } from "../src/node/rehearse/rehearse.ts";
import { runUpgrade } from "../src/node/rehearse/upgrade-run.ts";
import { defineChain } from "../src/runtime/release.ts";
import { openMultiStore, readCommittedStoreNames, readLastCommittedVersion } from "../src/store/index.ts";
import { LOOPBACK_PORT_FLAGS, spawnChainBinary } from "../src/testing/index.ts";
import { closeVerifyPool } from "../src/x/auth/verify-pool.ts";
import { rehearseChain } from "../test/e2e/support/rehearse-chain.ts";
import type { BenchRow } from "./harness.ts";

const RECORDS = process.env.CHAIND_BENCH_QUICK === "1" ? 100_000 : 1_000_000;
const ROUNDS = 7;

/**
 * The test chain with v2's declared checks left out, for the timed runs: they are the chain's own code (`notes-kept`
 * walks every note before and after, tens of seconds at 1M), and subtracting their time from a run's left the
 * figure a small difference of two large, noisy numbers. Their time is measured in a run of its own.
 */
const UNCHECKED = defineChain({
  ...rehearseChain,
  releases: rehearseChain.releases.map((release) => ({
    ...release,
    upgrade: release.upgrade === undefined ? undefined : { ...release.upgrade, checks: [] },
  })),
});

/**
 * Waits until the kernel has written out what the untimed steps wrote (the baseline's 600 MB copy, its removal), so
 * neither side is timed while that writeback competes with it: the baseline, timed right after its copy, was.
 */
function settleWrites(): void {
  execFileSync("sync");
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
const BINARY = {
  node: process.execPath,
  entry: join(import.meta.dirname, "..", "test", "e2e", "support", "rehearse-chaind.ts"),
  cwd: join(import.meta.dirname, ".."),
  releaseEnv: "REHEARSE_RELEASE",
};

/** Runs the benchmark: the real upgrade's work, then the rehearsal, on the same state. */
export async function run(): Promise<BenchRow[]> {
  const work = await mkdtemp(join(tmpdir(), "chaind-rehearse-bench-"));
  try {
    const home = join(work, "home");
    const dev = await spawnChainBinary(BINARY, ["dev", "--home", home, "--halt-height", "2", ...LOOPBACK_PORT_FLAGS], {
      userHome: join(work, "user"),
    }).exited;
    if (dev.code !== 0) throw new Error(`dev home: ${dev.stderr.slice(-500)}`);
    const db = homePaths(home).applicationDb;
    const store = await openMultiStore({ path: db, storeNames: await readCommittedStoreNames(db), sync: false });
    const value = new Uint8Array(100);
    for (let from = 0; from < RECORDS; from += 50_000) {
      const block = store.branch();
      const notes = block.store("notes");
      for (let i = from; i < Math.min(RECORDS, from + 50_000); i++) notes.set(new Uint8Array(randomBytes(32)), value);
      await store.stage(block);
      await store.commit();
    }
    await store.close();
    const height = await readLastCommittedVersion(db);
    const { chainId } = await loadGenesis(homePaths(home).genesis);

    // Each side runs ROUNDS times, alternating, and the medians are compared: on a busy machine one run of either
    // can take twice its usual time.
    const realRuns: number[] = [];
    const rehearsalRuns: number[] = [];
    let invariantsMs = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // Baseline: what the node does at the height, on a copy (the copy itself is not timed).
      const copy = join(work, "real");
      await cp(home, copy, { recursive: true });
      settleWrites();
      const realStarted = performance.now();
      const { chain } = await runUpgrade({
        home: copy,
        name: "v2",
        chain: rehearseChain,
        release: releaseForUpgrade("v2", rehearseChain),
        chainId,
        block: create(RequestFinalizeBlockSchema, { height: height + 1n, time: timestampFromMs(Date.now()), txs: [] }),
        inspect: false,
      });
      realRuns.push(performance.now() - realStarted);
      await chain.app.close();
      await closeVerifyPool();
      await rm(copy, { recursive: true, force: true });
      settleWrites();

      const rehearsalStarted = performance.now();
      const report = await rehearseUpgrade({ home, name: "v2", chain: UNCHECKED, determinism: false, tempRoot: work });
      // The modules' invariants are the chain's code too (a few ms here): left out like the upgrade's checks.
      invariantsMs = report.durations.checksMs;
      rehearsalRuns.push(performance.now() - rehearsalStarted - invariantsMs);
      if (!report.passed) throw new Error(`the rehearsal failed: ${report.failures.join("; ")}`);
    }
    // Once with the upgrade's declared checks, for their time (printed beside the figure) and their verdict.
    const checked = await rehearseUpgrade({
      home,
      name: "v2",
      chain: rehearseChain,
      determinism: false,
      tempRoot: work,
    });
    if (!checked.passed) throw new Error(`the rehearsal failed: ${checked.failures.join("; ")}`);
    const checksMs = checked.durations.checksMs;
    const realMs = median(realRuns);
    const rehearsalMs = median(rehearsalRuns);
    return [
      {
        name: `upgrade rehearsal (single run) vs the real upgrade, ${RECORDS.toLocaleString("en-US")}-record state, median of ${ROUNDS} (the chain's own checks, ${Math.round(checksMs)} ms, and invariants, ${Math.round(invariantsMs)} ms, excluded)`,
        value: rehearsalMs,
        baseline: realMs,
        unit: "ms",
        target: "≤ 1.5× the real upgrade's open + block + commit",
        met: rehearsalMs <= 1.5 * realMs,
        ratio: rehearsalMs / realMs,
      },
    ];
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
