// The mempool's defences in front of the app lock: the app's state-free precheck answers a tx without the lock
// (and without the app's CheckTx), no more than `maxWaitingChecks` CheckTx calls may wait for the lock, and the
// app's preparation of a tx (signature checks) runs without the lock while CheckTx keeps arrival order.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { KvApp } from "../../test/support/engine/kv-app.ts";
import { type ResponseCheckTx, ResponseCheckTxSchema } from "../gen/tendermint/abci/types_pb.js";
import { DEFAULT_MEMPOOL_LIMITS, Mempool, MempoolError } from "./mempool.ts";
import { Mutex } from "./mutex.ts";

const enc = (text: string) => new TextEncoder().encode(text);

/** The KV app with a precheck: anything without "=" is refused before the lock, as an App refuses garbage. */
class PrecheckingKvApp extends KvApp {
  prechecked = 0;
  precheckTx(tx: Uint8Array): ResponseCheckTx | undefined {
    this.prechecked++;
    return Buffer.from(tx).includes(0x3d)
      ? undefined
      : create(ResponseCheckTxSchema, { code: 2, codespace: "sdk", log: "tx parse error" });
  }
}

/** Takes the lock and keeps it until the test calls the returned release. */
async function heldLock(lock: Mutex): Promise<() => void> {
  let release = (): void => {};
  const taken = new Promise<void>((resolveTaken) => {
    void lock.run(
      () =>
        new Promise<void>((resolve) => {
          release = resolve;
          resolveTaken();
        }),
    );
  });
  await taken;
  return release;
}

describe("mempool admission", () => {
  test("a tx the precheck refuses is answered while the app lock is held, and never reaches CheckTx", async () => {
    const app = new PrecheckingKvApp();
    const lock = new Mutex();
    const pool = new Mempool({
      app,
      limits: DEFAULT_MEMPOOL_LIMITS,
      maxGas: () => -1n,
      run: (fn) => lock.run(fn),
    });
    const release = await heldLock(lock);
    const res = await pool.checkTx(enc("garbage"));
    assert.deepEqual([res.code, res.codespace, res.log], [2, "sdk", "tx parse error"]);
    assert.equal(pool.size, 0);
    assert.deepEqual(app.calls, [], "CheckTx was not called");
    // Refused txs leave the cache (keep_invalid_txs_in_cache = false): the same bytes are checked again.
    await pool.checkTx(enc("garbage"));
    assert.equal(app.prechecked, 2);

    const valid = pool.checkTx(enc("a=1"));
    assert.equal(pool.waitingChecks, 1);
    release();
    assert.equal((await valid).code, 0);
    assert.deepEqual(app.calls, ["checkTx"]);
    assert.equal(pool.size, 1);
    assert.equal(pool.waitingChecks, 0);
  });

  test("beyond maxWaitingChecks a tx is refused at once as a full mempool, and admitted again later", async () => {
    const app = new KvApp();
    const lock = new Mutex();
    const pool = new Mempool({
      app,
      limits: { ...DEFAULT_MEMPOOL_LIMITS, maxWaitingChecks: 2 },
      maxGas: () => -1n,
      run: (fn) => lock.run(fn),
    });
    const release = await heldLock(lock);
    const first = pool.checkTx(enc("a=1"));
    const second = pool.checkTx(enc("b=2"));
    assert.throws(
      () => pool.beginCheckTx(enc("c=3")),
      (err: unknown) =>
        err instanceof MempoolError &&
        err.kind === "check-queue-full" &&
        /^mempool is full: 2 txs are waiting for CheckTx \(max: 2\)/.test(err.message),
    );
    release();
    assert.equal((await first).code, 0);
    assert.equal((await second).code, 0);
    // The refused tx was not remembered in the cache, so it is admitted once the queue has room.
    assert.equal((await pool.checkTx(enc("c=3"))).code, 0);
    assert.equal(pool.size, 3);
    assert.equal(app.calls.filter((c) => c === "checkTx").length, 3);
  });

  test("the app's preparation starts on arrival, outside the lock, and CheckTx still runs in arrival order", async () => {
    // Preparations that finish in reverse order (as signature checks on a busy worker may).
    class PreparingKvApp extends PrecheckingKvApp {
      readonly prepared: string[] = [];
      readonly checked: string[] = [];
      readonly finish = new Map<string, () => void>();
      prepareCheckTx(tx: Uint8Array): Promise<void> {
        const text = Buffer.from(tx).toString();
        this.prepared.push(text);
        return new Promise((resolve) => this.finish.set(text, resolve));
      }
      override async checkTx(req: Parameters<KvApp["checkTx"]>[0]): Promise<ResponseCheckTx> {
        this.checked.push(Buffer.from(req.tx).toString());
        return super.checkTx(req);
      }
    }
    const app = new PreparingKvApp();
    const lock = new Mutex();
    const pool = new Mempool({ app, limits: DEFAULT_MEMPOOL_LIMITS, maxGas: () => -1n, run: (fn) => lock.run(fn) });
    const release = await heldLock(lock);
    const answers = ["a=1", "b=2", "c=3"].map((t) => pool.checkTx(enc(t)));
    assert.deepEqual(app.prepared, ["a=1", "b=2", "c=3"], "every preparation started while a block held the lock");
    assert.deepEqual(app.checked, []);
    release();
    for (const text of ["c=3", "b=2", "a=1"]) app.finish.get(text)?.();
    assert.deepEqual(
      (await Promise.all(answers)).map((r) => r.code),
      [0, 0, 0],
    );
    assert.deepEqual(app.checked, ["a=1", "b=2", "c=3"], "CheckTx in arrival order");
    assert.equal(pool.size, 3);
    // Garbage is refused by the precheck and never prepared.
    await pool.checkTx(enc("garbage"));
    assert.deepEqual(app.prepared, ["a=1", "b=2", "c=3"]);

    // A tx being prepared does not hold the lock: a block takes it meanwhile, and the tx is checked after.
    const pending = pool.checkTx(enc("d=4"));
    assert.equal(await lock.run(async () => "a block ran"), "a block ran");
    assert.deepEqual(app.checked, ["a=1", "b=2", "c=3"]);
    app.finish.get("d=4")?.();
    assert.equal((await pending).code, 0);
    assert.deepEqual(app.checked, ["a=1", "b=2", "c=3", "d=4"]);
  });
});

describe("mempool CheckTx options", () => {
  test("the caller's events option reaches the app's CheckTx (the default asks for events)", async () => {
    const seen: (boolean | undefined)[] = [];
    class RecordingKvApp extends KvApp {
      override async checkTx(
        req: Parameters<KvApp["checkTx"]>[0],
        options?: { events?: boolean },
      ): Promise<ResponseCheckTx> {
        seen.push(options?.events);
        return super.checkTx(req);
      }
    }
    const lock = new Mutex();
    const pool = new Mempool({
      app: new RecordingKvApp(),
      limits: DEFAULT_MEMPOOL_LIMITS,
      maxGas: () => -1n,
      run: (fn) => lock.run(fn),
    });
    assert.equal((await pool.checkTx(enc("a=1"))).code, 0);
    assert.equal((await pool.checkTx(enc("b=2"), { events: false })).code, 0);
    assert.equal((await pool.beginCheckTx(enc("c=3"), { events: false })).code, 0);
    assert.deepEqual(seen, [undefined, false, false]);
  });
});
