// Child process for test/e2e/large-upgrade-kill.test.ts, on a home of the records chain (test/support/records-chain/):
// `prepare` makes the home (v1 halted at the plan) and prints the last block's time; `hold` and `commit` open it as
// v2, whose upgrade handler rewrites every record, and run the upgrade's block through the ABCI calls the engine
// makes. `hold` stops after FinalizeBlock — the version is staged, its early parts (history rows, updates' latest rows
// and tree pages, written before the commit point: src/store/README.md, "A large version's memory") are on disk — and
// waits for the parent's SIGKILL; `commit` commits it and exits. Prints one JSON line per step.
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { RequestFinalizeBlockSchema } from "../../../src/gen/tendermint/abci/types_pb.js";
import { startTestNode } from "../../../src/testing/test-node.ts";
import { closeVerifyPool } from "../../../src/x/auth/verify-pool.ts";
import { oneHandler } from "../../support/records-chain/chain.ts";
import { prepareRecordsHome } from "../../support/records-chain/prepare.ts";

const [home, records, clockOrPrepare, mode] = process.argv.slice(2);
if (home !== undefined && records !== undefined && clockOrPrepare === "prepare") {
  const clock = await prepareRecordsHome(home, Number(records));
  await closeVerifyPool();
  process.stdout.write(`${JSON.stringify({ clock })}\n`);
  process.exit(0);
}
const clock = clockOrPrepare;
if (home === undefined || records === undefined || clock === undefined || (mode !== "hold" && mode !== "commit")) {
  process.stderr.write(
    "usage: large-upgrade-child.ts <home> <records> prepare | <home> <records> <last block time, ms> hold|commit\n",
  );
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
