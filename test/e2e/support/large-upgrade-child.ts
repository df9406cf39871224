// Child process for test/e2e/large-upgrade-kill.test.ts: opens a home the stepped-migration bench prepared (v1 halted
// at the plan) as the bench's v2, whose upgrade handler rewrites every record, and runs the upgrade's block through the
// ABCI calls the engine makes. `hold` stops after FinalizeBlock — the version is staged, its early parts (history
// rows and tree pages, written before the commit point: src/store/README.md, "A large version's memory") are on
// disk — and waits for the parent's SIGKILL; `commit` commits it and exits. Prints one JSON line per step.
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { oneHandler } from "../../../bench/stepped-migration/records-chain.ts";
import { RequestFinalizeBlockSchema } from "../../../src/gen/tendermint/abci/types_pb.js";
import { startTestNode } from "../../../src/testing/test-node.ts";
import { closeVerifyPool } from "../../../src/x/auth/verify-pool.ts";

const [home, records, clock, mode] = process.argv.slice(2);
if (home === undefined || records === undefined || clock === undefined || (mode !== "hold" && mode !== "commit")) {
  process.stderr.write("usage: large-upgrade-child.ts <home> <records> <last block time, ms> hold|commit\n");
  process.exit(2);
}
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex").toUpperCase();
const print = (line: Record<string, string>) => process.stdout.write(`${JSON.stringify(line)}\n`);

const node = await startTestNode({ home, release: oneHandler(Number(records)) });
const height = node.app.lastBlockHeight() + 1n;
print({ opened: String(node.app.lastBlockHeight()) });
// The block time is the prepared chain's last plus 1 s, in both runs: the app hash depends on it.
const finalized = await node.app.finalizeBlock(
  create(RequestFinalizeBlockSchema, { height, time: timestampFromMs(Number(clock) + 1000), txs: [] }),
);
print({ finalized: String(height), appHash: hex(finalized.appHash) });
if (mode === "hold") {
  // Killed here by the parent; the timer only keeps the process alive until then.
  setInterval(() => {}, 60_000);
} else {
  await node.app.commit();
  await node.app.settledAfterCommit();
  print({ committed: String(height) });
  await node.close();
  await closeVerifyPool();
}
