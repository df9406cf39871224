import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { KvApp, kvAppHash } from "../../test/support/engine/kv-app.ts";
import type { AbciApp } from "../engine/abci-app.ts";
import {
  CheckTxType,
  RequestSchema,
  ResponseApplySnapshotChunk_Result,
  ResponseCheckTxSchema,
  ResponseExtendVoteSchema,
  ResponseOfferSnapshot_Result,
  ResponseProcessProposal_ProposalStatus,
  ResponseVerifyVoteExtension_VerifyStatus,
  ResponseVerifyVoteExtensionSchema,
} from "../gen/tendermint/abci/types_pb.js";
import { AbciClient } from "./client.ts";
import { INTERNAL_ERROR } from "./dispatch.ts";
import { AbciClientError, AbciExceptionError, AbciServerError } from "./errors.ts";
import { encodeFrame } from "./framing.ts";
import type { AbciLogger } from "./logger.ts";
import { AbciServer, type AbciServerOptions } from "./server.ts";

const utf8 = (text: string) => new TextEncoder().encode(text);
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

const tempDirs: string[] = [];
after(async () => {
  for (const dir of tempDirs) await rm(dir, { recursive: true, force: true });
});
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "abci-server-"));
  tempDirs.push(dir);
  return dir;
}

interface LogEntry {
  level: "info" | "warn" | "error";
  obj: object;
  msg: string | undefined;
}
function recordingLogger(): AbciLogger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  return {
    entries,
    info: (obj, msg) => entries.push({ level: "info", obj, msg }),
    warn: (obj, msg) => entries.push({ level: "warn", obj, msg }),
    error: (obj, msg) => entries.push({ level: "error", obj, msg }),
  };
}

/** Runs `body` against a server on 127.0.0.1:0 and always closes it and the clients it opened. */
async function withServer(
  app: AbciApp,
  body: (ctx: { server: AbciServer; client: () => Promise<AbciClient> }) => Promise<void>,
  options: Partial<AbciServerOptions> = {},
): Promise<void> {
  const server = await AbciServer.listen({ app, address: "tcp://127.0.0.1:0", ...options });
  const clients: AbciClient[] = [];
  try {
    await body({
      server,
      client: async () => {
        const c = await AbciClient.connect(server.address);
        clients.push(c);
        return c;
      },
    });
  } finally {
    for (const c of clients) await c.close();
    await server.close();
  }
}

test("every ABCI method round trips through the server", async () => {
  const kv = new KvApp();
  await withServer(kv, async ({ client }) => {
    const c = await client();
    assert.equal((await c.call("echo", { message: "hello" })).message, "hello");
    await c.call("flush");

    const info = await c.call("info", { version: "0.38.25", blockVersion: 11n, p2pVersion: 8n, abciVersion: "2.0.0" });
    assert.equal(info.lastBlockHeight, 0n);
    assert.equal(info.lastBlockAppHash.length, 0);

    const init = await c.call("initChain", { chainId: "kv-test", appStateBytes: utf8('{"g":"1"}'), initialHeight: 1n });
    assert.equal(hex(init.appHash), hex(kvAppHash({ g: "1" })));

    assert.equal((await c.call("checkTx", { tx: utf8("a=1") })).code, 0);
    const bad = await c.call("checkTx", { tx: utf8("no-equals"), type: CheckTxType.RECHECK });
    assert.equal(bad.code, 1, "a CheckTx failure is a normal response with a code");
    assert.match(bad.log, /expected key=value/);

    // max_tx_bytes 8 fits "a=1" (1 + 1 + 3 = 5 bytes) but not also "b=2".
    const prepared = await c.call("prepareProposal", { txs: [utf8("a=1"), utf8("b=2")], maxTxBytes: 8n, height: 1n });
    assert.deepEqual(prepared.txs.map(text), ["a=1"]);
    const processed = await c.call("processProposal", { txs: prepared.txs, height: 1n });
    assert.equal(processed.status, ResponseProcessProposal_ProposalStatus.ACCEPT);

    const finalized = await c.call("finalizeBlock", { txs: [utf8("a=1"), utf8("junk")], height: 1n });
    assert.deepEqual(
      finalized.txResults.map((r) => r.code),
      [0, 1],
    );
    assert.equal(hex(finalized.appHash), hex(kvAppHash({ g: "1", a: "1" })));
    assert.equal(kv.height, 0n, "nothing is committed by FinalizeBlock");
    assert.equal((await c.call("commit")).retainHeight, 0n);
    assert.equal(kv.height, 1n);

    const after = await c.call("info");
    assert.equal(after.lastBlockHeight, 1n);
    assert.equal(hex(after.lastBlockAppHash), hex(finalized.appHash));

    const found = await c.call("query", { data: utf8("a") });
    assert.equal(found.code, 0);
    assert.equal(text(found.value), "1");
    assert.equal(found.height, 1n);
    assert.equal((await c.call("query", { data: utf8("zz") })).code, 22);

    assert.equal((await c.call("extendVote", { height: 2n })).voteExtension.length, 0);
    const empty = await c.call("verifyVoteExtension", { height: 2n });
    assert.equal(empty.status, ResponseVerifyVoteExtension_VerifyStatus.ACCEPT);
    const nonEmpty = await c.call("verifyVoteExtension", { height: 2n, voteExtension: utf8("x") });
    assert.equal(nonEmpty.status, ResponseVerifyVoteExtension_VerifyStatus.REJECT);

    assert.equal((await c.call("listSnapshots")).snapshots.length, 0);
    assert.equal((await c.call("loadSnapshotChunk", { height: 1n })).chunk.length, 0);
    const offer = await c.call("offerSnapshot", { snapshot: { height: 1n, format: 1 }, appHash: finalized.appHash });
    assert.equal(offer.result, ResponseOfferSnapshot_Result.ABORT);
    assert.equal((await c.call("applySnapshotChunk", { index: 0 })).result, ResponseApplySnapshotChunk_Result.ABORT);
  });
});

test("an App with vote extensions answers ExtendVote and VerifyVoteExtension itself", async () => {
  // The KV app plus the two optional methods: the server must ask the App instead of answering for it.
  const kv = new KvApp();
  const seen: bigint[] = [];
  const app: AbciApp = Object.assign(kv, {
    async extendVote(request: { height: bigint }) {
      seen.push(request.height);
      return create(ResponseExtendVoteSchema, { voteExtension: utf8(`ext-${request.height}`) });
    },
    async verifyVoteExtension(request: { voteExtension: Uint8Array }) {
      const status = text(request.voteExtension).startsWith("ext-")
        ? ResponseVerifyVoteExtension_VerifyStatus.ACCEPT
        : ResponseVerifyVoteExtension_VerifyStatus.REJECT;
      return create(ResponseVerifyVoteExtensionSchema, { status });
    },
  });
  await withServer(app, async ({ client }) => {
    const c = await client();
    assert.equal(text((await c.call("extendVote", { height: 7n })).voteExtension), "ext-7");
    assert.deepEqual(seen, [7n]);
    const good = await c.call("verifyVoteExtension", { height: 7n, voteExtension: utf8("ext-7") });
    assert.equal(good.status, ResponseVerifyVoteExtension_VerifyStatus.ACCEPT);
    const empty = await c.call("verifyVoteExtension", { height: 7n });
    assert.equal(empty.status, ResponseVerifyVoteExtension_VerifyStatus.REJECT, "the App decides, even for empty");
  });
});

test("the exact wire bytes: Flush and Echo answered byte for byte, several frames in one write", async () => {
  await withServer(new KvApp(), async ({ server }) => {
    const port = Number(server.address.split(":").at(-1));
    const socket = connect({ host: "127.0.0.1", port });
    const received: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    await new Promise((resolve) => socket.once("connect", resolve));
    // [Echo "hello"][Flush] in a single write, as CometBFT sends a synchronous call.
    socket.write(Buffer.from("090a070a0568656c6c6f" + "021200", "hex"));
    // ResponseEcho is Response field 2 (tag 0x12), ResponseFlush field 3 (tag 0x1a).
    const expected = "0912070a0568656c6c6f021a00";
    await waitUntil(() => Buffer.concat(received).length >= expected.length / 2);
    assert.equal(Buffer.concat(received).toString("hex"), expected);
    socket.destroy();
  });
});

test("a request split into single bytes, varint included, is answered once complete", async () => {
  await withServer(new KvApp(), async ({ client }) => {
    const c = await client();
    const frame = encodeFrame(
      toBinary(RequestSchema, create(RequestSchema, { value: { case: "echo", value: { message: "x".repeat(200) } } })),
    );
    const [response] = c.writeRaw(frame.subarray(0, 1), 1);
    for (let i = 1; i < frame.length; i++) {
      c.writeRaw(frame.subarray(i, i + 1));
      await new Promise((resolve) => setImmediate(resolve));
    }
    const got = await response!;
    assert.equal(got.value.case, "echo");
    assert.equal(got.value.value.message, "x".repeat(200));
  });
});

test("a 5 MB FinalizeBlock crosses many TCP chunks intact", async () => {
  const kv = new KvApp();
  await withServer(kv, async ({ client }) => {
    const c = await client();
    const big = `big=${"v".repeat(5 * 1024 * 1024)}`;
    const res = await c.call("finalizeBlock", { txs: [utf8(big)], height: 1n });
    assert.equal(res.txResults[0]!.code, 0);
    assert.equal(res.txResults[0]!.data.length, 5 * 1024 * 1024);
  });
});

test("responses keep request order on a connection, and App calls never overlap across connections", async () => {
  let active = 0;
  let maxActive = 0;
  const kv = new KvApp();
  // Later requests finish their App call faster: a server that answered when ready would reorder them.
  const app: AbciApp = {
    ...bind(kv),
    checkTx: async (request) => {
      active++;
      maxActive = Math.max(maxActive, active);
      const n = Number(text(request.tx).split("=")[1]);
      await new Promise((resolve) => setTimeout(resolve, (20 - (n % 20)) / 4));
      active--;
      const res = await kv.checkTx(request);
      res.log = text(request.tx);
      return res;
    },
  };
  await withServer(app, async ({ client }) => {
    const connections = [await client(), await client(), await client()];
    const all = connections.map((c, ci) =>
      Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          i % 10 === 9
            ? c.call("flush").then(() => "flush")
            : c.call("checkTx", { tx: utf8(`c${ci}=${i}`) }).then((r) => r.log),
        ),
      ),
    );
    const results = await Promise.all(all);
    results.forEach((logs, ci) => {
      assert.deepEqual(
        logs,
        Array.from({ length: 40 }, (_, i) => (i % 10 === 9 ? "flush" : `c${ci}=${i}`)),
      );
    });
    assert.equal(maxActive, 1, "one App call at a time across all connections");
  });
});

test("CheckTx: the precheck answers garbage without the App's lock, and a tx being prepared does not hold it", async () => {
  const kv = new KvApp();
  const finish = new Map<string, () => void>();
  const prepared: string[] = [];
  const checked: string[] = [];
  let infoGate: Promise<void> = Promise.resolve();
  const app: AbciApp = {
    ...bind(kv),
    info: async (r) => {
      await infoGate;
      return kv.info(r);
    },
    precheckTx: (tx) =>
      text(tx).includes("=")
        ? undefined
        : create(ResponseCheckTxSchema, { code: 2, codespace: "sdk", log: "tx parse error" }),
    prepareCheckTx: (tx) => {
      prepared.push(text(tx));
      return new Promise<void>((resolve) => finish.set(text(tx), resolve));
    },
    checkTx: async (request) => {
      checked.push(text(request.tx));
      return kv.checkTx(request);
    },
  };
  await withServer(app, async ({ client }) => {
    const [mempool, consensus, other] = [await client(), await client(), await client()];
    // Two txs arrive; their preparations start at once and have not finished.
    const answers = [mempool.call("checkTx", { tx: utf8("a=1") }), mempool.call("checkTx", { tx: utf8("b=2") })];
    await waitUntil(() => prepared.length === 2);
    // Meanwhile the App's lock is free: another connection's call goes through.
    await consensus.call("info", {});
    // With the lock held (a slow App call), garbage is still answered, by the precheck alone.
    let openGate = (): void => {};
    infoGate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    let infoDone = false;
    const slowInfo = consensus.call("info", {}).then(() => {
      infoDone = true;
    });
    const garbage = await other.call("checkTx", { tx: utf8("garbage") });
    assert.equal(garbage.code, 2);
    assert.equal(garbage.log, "tx parse error");
    assert.equal(infoDone, false, "answered while the App's lock was held");
    openGate();
    await slowInfo;
    // Preparations finishing in reverse order: CheckTx still runs, and answers, in the order of the requests.
    finish.get("b=2")?.();
    finish.get("a=1")?.();
    assert.deepEqual(
      (await Promise.all(answers)).map((r) => r.code),
      [0, 0],
    );
    assert.deepEqual(checked, ["a=1", "b=2"], "CheckTx in request order; garbage never reached it");
    assert.deepEqual(prepared, ["a=1", "b=2"], "garbage is never prepared");
  });
});

test("an oversize frame closes only its connection, with a logged error; others keep working", async () => {
  const logger = recordingLogger();
  await withServer(
    new KvApp(),
    async ({ server, client }) => {
      const healthy = await client();
      const bad = await client();
      // A complete echo first: it is still answered before the connection closes.
      const [echoed] = bad.writeRaw(
        Buffer.concat([
          encodeFrame(
            toBinary(RequestSchema, create(RequestSchema, { value: { case: "echo", value: { message: "before" } } })),
          ),
          Buffer.from("e907", "hex"), // announces 1001 bytes
        ]),
        1,
      );
      assert.equal((await echoed!).value.value?.$typeName, "tendermint.abci.ResponseEcho");
      await bad.closed;
      const error = logger.entries.find((e) => e.level === "error");
      assert.ok(error !== undefined, "an error was logged");
      assert.equal(error.msg, "malformed ABCI frame; closing the connection");
      assert.match(
        String((error.obj as { err: Error }).err.message),
        /announces 1001 bytes, more than the limit of 1000/,
      );
      assert.equal((await healthy.call("echo", { message: "still here" })).message, "still here");
      assert.equal(server.connectionCount, 1);
    },
    { logger, maxFrameBytes: 1000 },
  );
});

test("an undecodable body closes the connection; a request with no method gets an exception first", async () => {
  const logger = recordingLogger();
  await withServer(
    new KvApp(),
    async ({ client }) => {
      const garbage = await client();
      garbage.writeRaw(Buffer.from("02ffff", "hex"));
      await garbage.closed;
      assert.ok(logger.entries.some((e) => e.msg === "undecodable ABCI request; closing the connection"));

      const empty = await client();
      const [response] = empty.writeRaw(Uint8Array.from([0x00]), 1);
      const got = await response!;
      assert.equal(got.value.case, "exception");
      assert.match(got.value.value.error, /unknown request type/);
      await empty.closed;

      assert.equal((await (await client()).call("echo", { message: "ok" })).message, "ok");
    },
    { logger },
  );
});

test("a halt in FinalizeBlock: exception, connection closed, nothing committed, done carries the exit code", async () => {
  const dir = await tempDir();
  const stateFile = join(dir, "kv.json");
  const kv = new KvApp({ file: stateFile, haltAtHeight: 2n, haltExitCode: 7 });
  const server = await AbciServer.listen({ app: kv, address: "tcp://127.0.0.1:0" });
  const consensus = await AbciClient.connect(server.address);
  const query = await AbciClient.connect(server.address);
  try {
    await consensus.call("initChain", { chainId: "kv" });
    await consensus.call("finalizeBlock", { height: 1n, txs: [utf8("a=1")] });
    await consensus.call("commit");
    const rejected = consensus.call("finalizeBlock", { height: 2n, txs: [utf8("b=2")] });
    await assert.rejects(rejected, (e: unknown) => {
      assert.ok(e instanceof AbciExceptionError);
      assert.equal(e.method, "finalizeBlock");
      assert.equal(e.exception, "KV app halts at height 2");
      return true;
    });
    const exit = await server.done;
    assert.equal(exit.reason, "app-halt");
    assert.equal(exit.exitCode, 7);
    assert.equal(exit.reason === "app-halt" ? exit.height : undefined, 2n);
    await consensus.closed;
    await query.closed;
    assert.equal(server.connectionCount, 0);
    // Height 2 left no trace: the restarted app reports height 1, so CometBFT replays FinalizeBlock(2).
    const restarted = new KvApp({ file: stateFile });
    assert.equal((await restarted.info()).lastBlockHeight, 1n);
    assert.deepEqual(restarted.committed, { a: "1" });
    // Stopped means stopped: no new connection is served.
    await assert.rejects(async () => (await AbciClient.connect(server.address)).call("echo"), AbciClientError);
  } finally {
    await consensus.close();
    await query.close();
    await server.close();
  }
});

test("an unexpected error in Commit is fatal: exception, and done reports app-failure with exit code 1", async () => {
  const kv = new KvApp();
  const logger = recordingLogger();
  await withServer(
    { ...bind(kv), commit: async () => Promise.reject(new Error("disk on fire")) },
    async ({ server, client }) => {
      const c = await client();
      await c.call("initChain", { chainId: "kv" });
      await c.call("finalizeBlock", { height: 1n });
      await assert.rejects(c.call("commit"), /answered commit with an exception: disk on fire/);
      const exit = await server.done;
      assert.deepEqual([exit.reason, exit.exitCode], ["app-failure", 1]);
      assert.ok(logger.entries.some((e) => e.level === "error" && e.msg === "the application failed; stopping"));
    },
    { logger },
  );
});

test("CheckTx and Query that throw are answered in band; the server keeps serving", async () => {
  const kv = new KvApp();
  const logger = recordingLogger();
  const app: AbciApp = {
    ...bind(kv),
    checkTx: async () => Promise.reject(new Error("ante bug")),
    query: async () => Promise.reject(new Error("query bug")),
  };
  await withServer(
    app,
    async ({ client }) => {
      const c = await client();
      const check = await c.call("checkTx", { tx: utf8("a=1") });
      assert.deepEqual(
        [check.code, check.codespace, check.log],
        [INTERNAL_ERROR.code, INTERNAL_ERROR.codespace, "internal error: ante bug"],
      );
      const query = await c.call("query", { path: "/x" });
      assert.deepEqual([query.code, query.log], [INTERNAL_ERROR.code, "internal error: query bug"]);
      assert.equal((await c.call("echo", { message: "alive" })).message, "alive");
      assert.equal(logger.entries.filter((e) => e.level === "error").length, 2);
    },
    { logger },
  );
});

test("close() ends connections and resolves done with exit code 0", async () => {
  const server = await AbciServer.listen({ app: new KvApp(), address: "tcp://127.0.0.1:0" });
  const c = await AbciClient.connect(server.address);
  await c.call("echo");
  assert.deepEqual(await server.close(), { reason: "closed", exitCode: 0 });
  await c.closed;
  assert.deepEqual(await server.done, { reason: "closed", exitCode: 0 });
});

test("unix socket: serves, and replaces a stale socket file left by a killed process", async () => {
  const dir = await tempDir();
  const path = join(dir, "app.sock");
  // A process killed with SIGKILL while listening leaves its socket file behind.
  const killed = spawnSync(process.execPath, [
    "-e",
    `require("node:net").createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, "SIGKILL"))`,
  ]);
  assert.equal(killed.signal, "SIGKILL");
  const server = await AbciServer.listen({ app: new KvApp(), address: `unix://${path}` });
  try {
    assert.equal(server.address, `unix://${path}`);
    const c = await AbciClient.connect(server.address);
    assert.equal((await c.call("echo", { message: "via unix" })).message, "via unix");
    await c.close();
  } finally {
    await server.close();
  }
});

test("listen errors say what is wrong: bad address, port in use, a live socket or a file in the way", async () => {
  await assert.rejects(AbciServer.listen({ app: new KvApp(), address: "http://x" }), (e: unknown) => {
    assert.ok(e instanceof AbciServerError);
    assert.equal(
      e.message,
      'invalid ABCI listen address: expected "tcp://<host>:<port>" or "unix:///<path>", got "http://x"',
    );
    return true;
  });

  const first = await AbciServer.listen({ app: new KvApp(), address: "tcp://127.0.0.1:0" });
  try {
    await assert.rejects(AbciServer.listen({ app: new KvApp(), address: first.address }), (e: unknown) => {
      assert.ok(e instanceof AbciServerError);
      assert.equal(e.message, `cannot listen on ${first.address}: the address is already in use`);
      return true;
    });
  } finally {
    await first.close();
  }

  const dir = await tempDir();
  const live = join(dir, "live.sock");
  const other = createServer();
  await new Promise<void>((resolve) => other.listen(live, resolve));
  try {
    await assert.rejects(
      AbciServer.listen({ app: new KvApp(), address: `unix://${live}` }),
      /cannot listen on unix:\/\/.*live\.sock: another process is serving this socket/,
    );
  } finally {
    await new Promise((resolve) => other.close(resolve));
  }
  const file = join(dir, "file.sock");
  await writeFile(file, "not a socket");
  await assert.rejects(
    AbciServer.listen({ app: new KvApp(), address: `unix://${file}` }),
    /cannot listen on unix:\/\/.*file\.sock: the path exists and is not a socket/,
  );
  // Node reports a missing directory as EACCES ("permission denied"); the error names the directory instead.
  const lost = join(dir, "no-such-dir", "app.sock");
  await assert.rejects(AbciServer.listen({ app: new KvApp(), address: `unix://${lost}` }), {
    message: `cannot listen on unix://${lost}: the directory ${join(dir, "no-such-dir")} does not exist`,
  });
});

test("the client rejects pending calls when the server goes away", async () => {
  const server = await AbciServer.listen({ app: new KvApp(), address: "tcp://127.0.0.1:0" });
  const c = await AbciClient.connect(server.address);
  // A partial frame the server will never complete: the call below stays pending until the close.
  const [pending] = c.writeRaw(Uint8Array.from([0x05, 0x0a]), 1);
  await server.close();
  await assert.rejects(pending!, /ABCI connection closed: the server closed the connection before answering/);
  await assert.rejects(AbciClient.connect("nonsense"), /invalid ABCI address/);
});

// The KvApp's methods as a plain object, so a test can override some of them.
function bind(kv: KvApp): AbciApp {
  return {
    info: (r) => kv.info(r),
    initChain: (r) => kv.initChain(r),
    checkTx: (r) => kv.checkTx(r),
    prepareProposal: (r) => kv.prepareProposal(r),
    processProposal: (r) => kv.processProposal(r),
    finalizeBlock: (r) => kv.finalizeBlock(r),
    commit: (r) => kv.commit(r),
    query: (r) => kv.query(r),
  };
}

async function waitUntil(condition: () => boolean): Promise<void> {
  for (let i = 0; !condition(); i++) {
    if (i > 2000) throw new Error("condition not reached");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
