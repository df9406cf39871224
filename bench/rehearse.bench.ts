// The rehearsal's time against the real upgrade's on the same 1M-record state (issue 33: target ≤ 1.5× for the
// single run, the second determinism run excluded).
//
// A v1 home of the rehearsal test chain (test/e2e/support/rehearse-chain.ts) is made by its binary (`dev
// --halt-height 2`), then its `notes` store gets 1M records through ordinary commits. Baseline: the real upgrade's
// own work on a copy — the v2 release opens the state with the store loader, FinalizeBlock(H+1) applies the upgrade,
// Commit. Figure: `rehearseUpgrade` on the home (work copy, the same upgrade, key counts, report) with
// `determinism: false`, minus the time of the chain's declared checks and invariants (its own code, printed beside
// the figure: the test chain's `notes-kept` reads every note twice). CHAIND_BENCH_QUICK=1 uses 100k records.
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
import { openMultiStore, readCommittedStoreNames, readLastCommittedVersion } from "../src/store/index.ts";
import { LOOPBACK_PORT_FLAGS, spawnChainBinary } from "../src/testing/index.ts";
import { closeVerifyPool } from "../src/x/auth/verify-pool.ts";
import { rehearseChain } from "../test/e2e/support/rehearse-chain.ts";
import type { BenchRow } from "./harness.ts";

const RECORDS = process.env.CHAIND_BENCH_QUICK === "1" ? 100_000 : 1_000_000;
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

    // Baseline: what the node does at the height, on a copy (the copy itself is not timed).
    const copy = join(work, "real");
    await cp(home, copy, { recursive: true });
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
    const realMs = performance.now() - realStarted;
    await chain.app.close();
    await closeVerifyPool();

    const rehearsalStarted = performance.now();
    const report = await rehearseUpgrade({
      home,
      name: "v2",
      chain: rehearseChain,
      determinism: false,
      tempRoot: work,
    });
    // The chain's declared checks are its own code (the test chain's `notes-kept` counts every note, before and
    // after): they cost the same in any tool that runs them, so they are shown beside the figure, not in it.
    const checksMs = report.durations.checksMs;
    const rehearsalMs = performance.now() - rehearsalStarted - checksMs;
    if (!report.passed) throw new Error(`the rehearsal failed: ${report.failures.join("; ")}`);
    return [
      {
        name: `upgrade rehearsal (single run) vs the real upgrade, ${RECORDS.toLocaleString("en-US")}-record state (the chain's own checks, ${Math.round(checksMs)} ms, excluded)`,
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
