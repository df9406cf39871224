// Child process used by the store's tests (not part of the public API).
//   hold <dir>     open the store, print "ready", keep it open until stdin closes
//   writer <dir>   commit versions in a loop forever, printing "committed <v>" after each (the crash
//                  test kills it at random moments once it has seen progress)

import { CRASH_PRUNING, CRASH_STORES, crashWorkload } from "./crash-workload.ts";
import { openMultiStore } from "./multistore.ts";

const [mode, dir] = process.argv.slice(2);

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
  });
  process.stdout.write("ready\n");
  for (;;) {
    const version = Number(store.lastCommit().version) + 1;
    const block = store.branch();
    crashWorkload(version, block);
    await store.stage(block);
    await store.commit();
    process.stdout.write(`committed ${version}\n`);
  }
} else {
  process.stderr.write(`unknown mode ${mode}\n`);
  process.exit(2);
}
