// A development driver for the snapshot figures of big-state.bench.ts without a chain: builds a state of about the
// same shape straight through the store (two stores, four keys per account, 50,000 accounts per commit), then runs
// snapshotFigures on it and prints them. For profiling the restore and creation paths, e.g.
//   node --cpu-prof --cpu-prof-dir=/tmp/prof bench/big-state/restore-profile.ts 100000
// INTERVAL_CAP_MS=<ms> also runs the block-interval figure (snapshot-interval.ts) on the restored copy.
// The state is built in a temporary folder named on stdout (removed at the end unless KEEP=1); a folder given as
// the second argument is reused and kept.
import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openMultiStore } from "../../src/store/index.ts";
import { snapshotFigures } from "./snapshot-figures.ts";
import { snapshotInterval } from "./snapshot-interval.ts";

const PER_COMMIT = 50_000;

function address(i: number): Uint8Array {
  return new Uint8Array(createHash("sha256").update(`big-state/${i}`).digest().subarray(0, 20));
}

function join2(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Writes `accounts` accounts (an account record and a number index in "acc", a balance and an owner index in "bank"). */
async function build(path: string, accounts: number): Promise<void> {
  const store = await openMultiStore({ path, storeNames: ["acc", "bank"] });
  try {
    const account = new Uint8Array(110).fill(7);
    const balance = new TextEncoder().encode("1000000");
    for (let from = 0; from < accounts; from += PER_COMMIT) {
      const block = store.branch();
      const acc = block.store("acc");
      const bank = block.store("bank");
      for (let i = from; i < Math.min(accounts, from + PER_COMMIT); i++) {
        const a = address(i);
        acc.set(join2(Uint8Array.of(1, 20), a), account);
        const n = new Uint8Array(9);
        n[0] = 2;
        new DataView(n.buffer).setUint32(5, i);
        acc.set(n, a);
        bank.set(join2(join2(Uint8Array.of(2, 20), a), new TextEncoder().encode("stake")), balance);
        bank.set(join2(new TextEncoder().encode("\x03stake"), a), new Uint8Array(0));
      }
      await store.stage(block);
      await store.commit();
    }
  } finally {
    await store.close();
  }
}

const accounts = Number(process.argv[2] ?? 100_000);
// A second argument names a folder built before (KEEP=1): the state is not built again.
const work = process.argv[3] ?? (await mkdtemp(join(tmpdir(), "chaind-restore-profile-")));
console.log(`work: ${work}`);
try {
  if (process.argv[3] === undefined) {
    const t = performance.now();
    await build(join(work, "state.db"), accounts);
    console.log(`built ${accounts} accounts in ${(performance.now() - t).toFixed(0)} ms`);
  } else {
    await rm(join(work, "snap"), { recursive: true, force: true });
  }
  const f = await snapshotFigures(join(work, "state.db"), join(work, "snap"));
  const rate = (ms: number) => ((f.pairs * 1000) / ms).toFixed(0);
  console.log(
    `pairs ${f.pairs}: create ${f.createMs.toFixed(0)} ms, restore ${f.restoreMs.toFixed(0)} ms (${rate(f.restoreMs)}/s, CPU ${f.restoreCpuMs.toFixed(0)} ms), raw ${f.rawLoadMs.toFixed(0)} ms (${rate(f.rawLoadMs)}/s, CPU ${f.rawLoadCpuMs.toFixed(0)} ms), ratio ${(f.rawLoadMs / f.restoreMs).toFixed(3)}`,
  );
  if (process.env.INTERVAL_CAP_MS !== undefined) {
    const i = await snapshotInterval(f.restoredDb, join(work, "snap"), Number(process.env.INTERVAL_CAP_MS));
    console.log(
      `interval: before ${i.beforeMs.toFixed(0)} ms, during ${i.duringMs.toFixed(0)} ms over ${i.blocks} blocks (${(i.duringMs / i.beforeMs).toFixed(2)}x), snapshot ${i.finished ? "finished" : "cancelled"} after ${i.snapshotMs.toFixed(0)} ms`,
    );
  }
} finally {
  if (process.env.KEEP !== "1" && process.argv[3] === undefined) await rm(work, { recursive: true, force: true });
}
