// Child process used by the store's tests (not part of the public API).
//   hold <dir>     open the store, print "ready", keep it open until stdin closes
//   writer <dir> [parts|early]   commit versions in a loop forever, printing "committed <v>" after each (the
//                  crash test kills it at random moments once it has seen progress); `parts`: every version's tree
//                  pages written in parts of ~2 KiB (as a large version's are), so kills land between parts;
//                  `early`: every version's "bank" counts as large, its history rows and pages written by stage in
//                  parts of ~2 KiB before the commit point (README "A large version's memory"; its versions that only
//                  update keys, one in four, have their tree streamed in those parts: Step C)

import { setTimeout as sleep } from "node:timers/promises";
import type { KVBatch } from "../../../src/store/kv-backend.ts";
import { openMultiStore } from "../../../src/store/multistore.ts";
import { CRASH_PRUNING, CRASH_STORES, crashWorkload } from "./crash-workload.ts";

const [mode, dir, variant] = process.argv.slice(2);

if (mode === "hold") {
  const store = await openMultiStore({ path: dir, storeNames: ["bank"] });
  process.stdout.write("ready\n");
  process.stdin.resume();
  process.stdin.on("end", () => {
    void store.close().then(() => process.exit(0));
  });
} else if (mode === "writer") {
  const store = await openMultiStore({
    path: dir,
    storeNames: CRASH_STORES,
    pruning: CRASH_PRUNING,
    backgroundBatchSize: 7,
    pageWritePartBytes: variant === "parts" || variant === "early" ? 2048 : undefined,
    earlyWriteThreshold: variant === "early" ? 100 : undefined,
  });
  process.stdout.write("ready\n");
  // A slow disk for the commit's second write (its tree pages, started after the synced first one):
  // kills then often land between the two, where a restart has to rebuild the pages.
  const backend = store.backend;
  const batch = backend.batch.bind(backend);
  // Every other version only, so kills still land everywhere else too (in a commit's first write, in stage).
  const slowBatch = (): KVBatch => {
    const inner = batch();
    return {
      put: (key, value) => inner.put(key, value),
      del: (key) => inner.del(key),
      write: async (sync) => {
        await sleep(Math.floor(Math.random() * 20));
        await inner.write(sync);
      },
      close: () => inner.close(),
      writePart:
        inner.writePart === undefined
          ? undefined
          : async (sync) => {
              await sleep(Math.floor(Math.random() * 5));
              await (inner.writePart as (sync: boolean) => Promise<void>)(sync);
            },
    };
  };
  for (;;) {
    const version = Number(store.lastCommit().version) + 1;
    const block = store.branch();
    crashWorkload(version, block);
    // The early parts slowed too (they are written at stage), so kills land between them.
    if (variant === "early") backend.batch = slowBatch;
    try {
      await store.stage(block);
    } finally {
      backend.batch = batch;
    }
    // Only batches made during the commit (the pages'); the one stage made holds the rows.
    if (version % 2 === 0) backend.batch = slowBatch;
    try {
      await store.commit();
    } finally {
      backend.batch = batch;
    }
    process.stdout.write(`committed ${version}\n`);
    // The versions whose tree stage streamed (Step C), for the crash test's diagnostics.
    if (store.streamCounts.streamed > 0) process.stdout.write(`streamed ${store.streamCounts.streamed}\n`);
  }
} else {
  process.stderr.write(`unknown mode ${mode}\n`);
  process.exit(2);
}
