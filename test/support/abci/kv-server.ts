// Runs the ABCI server with the KV test app as its own process, so tests can kill it with SIGKILL and drive
// it from a real CometBFT. Prints one JSON object per line on stdout: {"event":"listening","address":...},
// then one line per App call ({"event":"info","lastBlockHeight":"4"}, {"event":"finalizeBlock","height":"5"},
// {"event":"commit","height":"5"}), and exits with the server's exit code.
//
//   node kv-server.ts --address tcp://127.0.0.1:0 --state-file <file>
//        [--halt-height H] [--halt-exit-code N] [--crash-in-commit-at H]
import { parseArgs } from "node:util";
import { AbciServer } from "../../../src/abci/server.ts";
import type { AbciApp } from "../../../src/engine/abci-app.ts";
import { KvApp } from "../engine/kv-app.ts";

const { values } = parseArgs({
  options: {
    address: { type: "string", default: "tcp://127.0.0.1:0" },
    "state-file": { type: "string" },
    "halt-height": { type: "string" },
    "halt-exit-code": { type: "string" },
    "crash-in-commit-at": { type: "string" },
  },
});

const emit = (event: string, fields: Record<string, string> = {}) =>
  process.stdout.write(`${JSON.stringify({ event, ...fields })}\n`);

const crashAt = values["crash-in-commit-at"] === undefined ? undefined : BigInt(values["crash-in-commit-at"]);
const kv = new KvApp({
  file: values["state-file"],
  appVersion: 1n,
  haltAtHeight: values["halt-height"] === undefined ? undefined : BigInt(values["halt-height"]),
  haltExitCode: values["halt-exit-code"] === undefined ? undefined : Number(values["halt-exit-code"]),
  beforePersist: (height) => {
    if (height === crashAt) {
      emit("crash", { height: height.toString() });
      // The harshest crash: no cleanup, no flush of anything not yet on disk.
      process.kill(process.pid, "SIGKILL");
    }
  },
});

// Records each call as it happens, so the tests can see the handshake and replay from the outside.
const app: AbciApp = {
  info: async (r) => {
    const res = await kv.info(r);
    emit("info", { lastBlockHeight: res.lastBlockHeight.toString() });
    return res;
  },
  initChain: async (r) => {
    emit("initChain", { chainId: r.chainId });
    return kv.initChain(r);
  },
  checkTx: (r) => kv.checkTx(r),
  prepareProposal: (r) => kv.prepareProposal(r),
  processProposal: (r) => kv.processProposal(r),
  finalizeBlock: async (r) => {
    emit("finalizeBlock", { height: r.height.toString() });
    const res = await kv.finalizeBlock(r);
    emit("finalized", { height: r.height.toString(), appHash: Buffer.from(res.appHash).toString("hex") });
    return res;
  },
  commit: async (r) => {
    const res = await kv.commit(r);
    emit("commit", { height: kv.height.toString(), appHash: Buffer.from(kv.appHash).toString("hex") });
    return res;
  },
  query: (r) => kv.query(r),
};

const logger = {
  info: () => {},
  warn: (obj: object, msg?: string) => process.stderr.write(`WARN ${msg} ${JSON.stringify(obj)}\n`),
  error: (obj: object, msg?: string) =>
    process.stderr.write(
      `ERROR ${msg} ${JSON.stringify(obj, (_k, v) => (v instanceof Error ? v.message : typeof v === "bigint" ? v.toString() : v))}\n`,
    ),
};

const server = await AbciServer.listen({ app, address: values.address, logger });
emit("listening", { address: server.address });
for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => void server.close());
const exit = await server.done;
emit("exit", { reason: exit.reason, exitCode: String(exit.exitCode) });
process.exitCode = exit.exitCode;
