import assert from "node:assert/strict";
import { createHash, createPublicKey, verify as edVerify } from "node:crypto";
import { rm } from "node:fs/promises";
import { after, describe, it } from "node:test";
import { makeTestChain, seedOf, type TestChain, waitForHeight } from "../../test/support/engine/fixtures.ts";
import { KvApp, kvAppHash } from "../../test/support/engine/kv-app.ts";
import { Engine, EngineStartError } from "./engine.ts";
import { parseEngineGenesis } from "./genesis.ts";
import { SignedMsgType, voteSignBytes } from "./hashing/encode.ts";
import { commitHash, dataHash, headerHash, lastResultsHash, validatorSetHash } from "./hashing/hashes.ts";
import { MempoolError } from "./mempool.ts";
import { PrivValidator } from "./priv-validator.ts";
import { compareTimestamps } from "./time.ts";
import { BlockIdFlag } from "./types.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

function verifyEd25519(pubKey: Uint8Array, msg: Uint8Array, sig: Uint8Array): boolean {
  const spki = Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), pubKey]);
  return edVerify(null, msg, createPublicKey({ key: spki, format: "der", type: "spki" }), sig);
}

const chains: TestChain[] = [];
after(async () => {
  for (const c of chains) await c.cleanup();
});
async function newChain(opts?: Parameters<typeof makeTestChain>[0]) {
  const c = await makeTestChain(opts);
  chains.push(c);
  return c;
}

async function startEngine(chain: TestChain, app: KvApp, extra: Partial<Parameters<typeof Engine.start>[0]> = {}) {
  const store = await chain.openStore();
  try {
    return await Engine.start({
      app,
      store,
      genesis: chain.genesis,
      privValidator: await chain.privValidator(),
      consensus: { timeoutCommitMs: 5, createEmptyBlocks: true, createEmptyBlocksIntervalMs: 0 },
      ...extra,
    });
  } catch (error) {
    await store.close();
    throw error;
  }
}

describe("engine: block production", () => {
  it("chains headers, hashes and signed commits exactly as CometBFT does", async () => {
    const chain = await newChain({ appState: { genesis: "yes" } });
    const app = new KvApp({ file: chain.appFile });
    const engine = await startEngine(chain, app);
    const running = engine.run();
    await engine.mempool.checkTx(enc("a=1"));
    await engine.mempool.checkTx(enc("fail=x"));
    await waitForHeight(engine, 6n);
    await engine.mempool.checkTx(enc("b=2"));
    await waitForHeight(engine, engine.store.height + 2n);
    const exit = await engine.stop();
    await running;
    assert.equal(exit.reason, "stopped");
    const store = engine.store;
    const top = store.height;
    assert.ok(top >= 8n);
    assert.deepEqual(app.calls.slice(0, 2), ["info", "initChain"]);

    let txSeen = 0;
    for (let h = 1n; h <= top; h++) {
      const stored = await store.block(h);
      assert.ok(stored, `block ${h}`);
      const { block, blockId } = stored;
      const header = block.header;
      assert.equal(header.height, h);
      assert.equal(header.chainId, "test-chain");
      assert.equal(header.version.block, 11n);
      assert.equal(hex(headerHash(header)), hex(blockId.hash), `block hash ${h}`);
      assert.equal(hex(header.dataHash), hex(dataHash(block.txs)));
      assert.equal(hex(header.lastCommitHash), hex(commitHash(block.lastCommit)));
      assert.equal(hex(header.proposerAddress), hex(engine.privValidator.address));
      const results = await store.results(h);
      assert.ok(results);
      assert.equal(results.txResults.length, block.txs.length);
      txSeen += block.txs.length;
      const commit = await store.seenCommit(h);
      assert.ok(commit);
      assert.equal(hex(commit.blockId.hash), hex(blockId.hash));
      const sig = commit.signatures[0];
      assert.equal(sig.blockIdFlag, BlockIdFlag.commit);
      const signBytes = voteSignBytes({
        type: SignedMsgType.precommit,
        height: h,
        round: 0n,
        blockId,
        timestamp: sig.timestamp,
        chainId: "test-chain",
      });
      assert.ok(verifyEd25519(engine.privValidator.pubKey, signBytes, sig.signature), `signature of ${h}`);
      if (h === 1n) {
        assert.equal(block.lastCommit.signatures.length, 0);
        assert.equal(header.lastBlockId.hash.length, 0);
        assert.equal(header.time.seconds, chain.genesis.genesisTime.seconds);
        assert.equal(hex(header.appHash), hex(kvAppHash({ genesis: "yes" })), "block 1 carries InitChain's app hash");
      } else {
        const prev = await store.block(h - 1n);
        const prevResults = await store.results(h - 1n);
        const prevCommit = await store.seenCommit(h - 1n);
        assert.ok(prev && prevResults && prevCommit);
        assert.equal(hex(header.lastBlockId.hash), hex(prev.blockId.hash), `last_block_id of ${h}`);
        assert.equal(header.lastBlockId.partSetHeader.total, prev.blockId.partSetHeader.total);
        assert.equal(hex(header.appHash), hex(prevResults.appHash), `app_hash of ${h}`);
        assert.equal(
          hex(header.lastResultsHash),
          hex(lastResultsHash(prevResults.txResults)),
          `last_results_hash of ${h}`,
        );
        assert.equal(hex(commitHash(block.lastCommit)), hex(commitHash(prevCommit)), "last commit is the seen commit");
        assert.deepEqual(header.time, prevCommit.signatures[0].timestamp, "header time = last commit's time");
        assert.ok(compareTimestamps(header.time, prev.block.header.time) > 0, "block times strictly increase");
      }
    }
    assert.equal(txSeen, 3);
    assert.deepEqual(app.committed, { genesis: "yes", a: "1", b: "2" });
    assert.equal(app.height, top);
    // The failed tx is indexed with its code.
    const failed = await store.tx(new Uint8Array(createHash("sha256").update("fail=x").digest()));
    assert.equal(failed?.result?.code, 2);
    await store.close();
  });

  it("validator updates change next_validators_hash at H+1 and validators_hash at H+2", async () => {
    const chain = await newChain();
    const app = new KvApp();
    const engine = await startEngine(chain, app);
    const running = engine.run();
    await waitForHeight(engine, 2n);
    const other = PrivValidator.fromSeed(seedOf("other-validator"));
    await engine.mempool.checkTx(enc(`val:${hex(other.pubKey)}=3`));
    let updateHeight = 0n;
    const off = engine.onNewBlock((e) => {
      if (e.results.validatorUpdates.length > 0) updateHeight = e.block.header.height;
    });
    while (updateHeight === 0n) await waitForHeight(engine, engine.store.height + 1n);
    off();
    await waitForHeight(engine, updateHeight + 3n);
    await engine.stop();
    await running;
    const s = engine.store;
    const h = updateHeight;
    const hU = await s.block(h);
    const h1 = await s.block(h + 1n);
    const h2 = await s.block(h + 2n);
    const h3 = await s.block(h + 3n);
    assert.ok(hU && h1 && h2 && h3);
    assert.equal(hex(hU.block.header.nextValidatorsHash), hex(hU.block.header.validatorsHash));
    assert.notEqual(hex(h1.block.header.nextValidatorsHash), hex(h1.block.header.validatorsHash));
    assert.equal(hex(h2.block.header.validatorsHash), hex(h1.block.header.nextValidatorsHash));
    const set = await s.validatorsAt(h + 2n);
    assert.equal(set?.length, 2);
    assert.equal(hex(h2.block.header.validatorsHash), hex(validatorSetHash(set ?? [])));
    // Block h+3's last commit lists both validators in set order; the other one is absent.
    const sigs = h3.block.lastCommit.signatures;
    assert.deepEqual(
      sigs.map((x) => x.blockIdFlag),
      [BlockIdFlag.commit, BlockIdFlag.absent],
    );
    await s.close();
  });

  it("with create_empty_blocks = false makes block 1, then blocks only for txs and the proof block after them", async () => {
    const chain = await newChain();
    const app = new KvApp();
    const engine = await startEngine(chain, app, {
      consensus: { timeoutCommitMs: 5, createEmptyBlocks: false, createEmptyBlocksIntervalMs: 0 },
    });
    const running = engine.run();
    await waitForHeight(engine, 1n);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(engine.store.height, 1n, "no empty block after the first");
    await engine.mempool.checkTx(enc("k=v"));
    await waitForHeight(engine, 3n);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(engine.store.height, 3n, "the tx block and one proof block, then nothing");
    assert.equal((await engine.store.block(2n))?.block.txs.length, 1);
    assert.equal((await engine.store.block(3n))?.block.txs.length, 0);
    await engine.stop();
    await running;
    await engine.store.close();
  });

  it("with create_empty_blocks = false stops after one proof block even when every block changes the app hash", async () => {
    // As a chain with vote extensions on (each block records the readiness signals): CometBFT's rule alone would
    // make a proof block after every proof block, forever.
    const chain = await newChain();
    const app = new KvApp({ writeEveryBlock: true });
    const engine = await startEngine(chain, app, {
      consensus: { timeoutCommitMs: 5, createEmptyBlocks: false, createEmptyBlocksIntervalMs: 0 },
    });
    // The engine subscribes to new txs when it decides to wait for one: the heights it went idle at.
    const idleAt: bigint[] = [];
    const subscribe = engine.mempool.onTxAvailable.bind(engine.mempool);
    engine.mempool.onTxAvailable = (listener) => {
      idleAt.push(engine.store.height);
      return subscribe(listener);
    };
    const idleCount = async (count: number) => {
      for (const deadline = Date.now() + 60_000; idleAt.length < count; ) {
        assert.ok(
          Date.now() < deadline,
          `the engine never waited for a tx; it made blocks up to ${engine.store.height}`,
        );
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    const running = engine.run();
    await idleCount(1);
    await engine.mempool.checkTx(enc("k=v"));
    await idleCount(2);
    await engine.stop();
    await running;
    assert.deepEqual(
      idleAt,
      [2n, 4n],
      "idle after block 1 and its proof block, then after the tx's block and its proof",
    );
    const txBlock = (await engine.store.block(3n))?.block;
    assert.deepEqual(
      txBlock?.txs.map((tx) => Buffer.from(tx).toString()),
      ["k=v"],
    );
    assert.equal((await engine.store.block(4n))?.block.txs.length, 0);
    await engine.store.close();
  });

  it("create_empty_blocks_interval makes empty blocks when txs are absent", async () => {
    const chain = await newChain();
    const engine = await startEngine(chain, new KvApp(), {
      consensus: { timeoutCommitMs: 1, createEmptyBlocks: false, createEmptyBlocksIntervalMs: 20 },
    });
    const running = engine.run();
    await waitForHeight(engine, 4n);
    await engine.stop();
    await running;
    assert.equal((await engine.store.block(4n))?.block.txs.length, 0);
    await engine.store.close();
  });
});

describe("engine: mempool", () => {
  it("rejects duplicates, oversized txs and a full pool with CometBFT's texts; recheck evicts", async () => {
    const chain = await newChain();
    const engine = await startEngine(chain, new KvApp(), { mempool: { size: 2, maxTxBytes: 16 } });
    const ok = await engine.mempool.checkTx(enc("x=1"));
    assert.equal(ok.code, 0);
    await assert.rejects(engine.mempool.checkTx(enc("x=1")), (e: unknown) => {
      assert.ok(e instanceof MempoolError);
      assert.equal(e.message, "tx already exists in cache");
      return true;
    });
    await assert.rejects(engine.mempool.checkTx(enc("a-very-long-key=1")), {
      message: "Tx too large. Max size is 16, but got 17",
    });
    const bad = await engine.mempool.checkTx(enc("no-equals"));
    assert.equal(bad.code, 1);
    // A tx the app refused leaves the cache, so it may be sent again.
    assert.equal((await engine.mempool.checkTx(enc("no-equals"))).code, 1);
    await engine.mempool.checkTx(enc("y=2"));
    assert.equal(engine.mempool.rejectedTxs, 0);
    await assert.rejects(engine.mempool.checkTx(enc("z=3")), {
      message: "mempool is full: number of txs 2 (max: 2), total txs bytes 6 (max: 1073741824)",
    });
    assert.equal(engine.mempool.rejectedTxs, 1, "the mempool_rejected_txs tally");
    assert.equal(engine.mempool.size, 2);
    const running = engine.run();
    await waitForHeight(engine, 1n);
    await engine.stop();
    await running;
    assert.equal(engine.mempool.size, 0);
    assert.equal((await engine.store.block(1n))?.block.txs.length, 2);
    await assert.rejects(engine.mempool.checkTx(enc("x=1")), { message: "tx already exists in cache" });
    await engine.store.close();
  });

  it("rechecks the remaining txs after a commit and evicts those the app now refuses", async () => {
    const chain = await newChain();
    const app = new KvApp({ maxTxsPerBlock: 1 });
    const engine = await startEngine(chain, app);
    assert.equal((await engine.mempool.checkTx(enc("once:a=1"))).code, 0);
    assert.equal((await engine.mempool.checkTx(enc("once:a=2"))).code, 0);
    assert.equal(engine.mempool.size, 2);
    const running = engine.run();
    await waitForHeight(engine, 2n);
    await engine.stop();
    await running;
    assert.equal(engine.mempool.size, 0, "the second tx failed its recheck");
    assert.equal(engine.mempool.evictedTxs, 1, "the mempool_evicted_txs tally");
    assert.ok(app.calls.includes("recheckTx"));
    assert.equal(app.committed["once:a"], "1");
    assert.equal((await engine.store.block(2n))?.block.txs.length, 0);
    await engine.store.close();
  });
});

describe("engine: halts, restarts and crash recovery", () => {
  it("an app halt at H saves and commits nothing of H; the same binary halts again; another one continues", async () => {
    const chain = await newChain();
    const halting = new KvApp({ file: chain.appFile, haltAtHeight: 3n, haltExitCode: 7 });
    let engine = await startEngine(chain, halting);
    await engine.mempool.checkTx(enc("h=1"));
    const exit = await engine.run();
    assert.equal(exit.reason, "app-halt");
    assert.equal(exit.exitCode, 7);
    assert.equal(exit.height, 3n);
    assert.equal(engine.store.height, 2n);
    assert.equal(await engine.store.block(3n), undefined);
    assert.equal(halting.height, 2n);
    assert.equal(halting.calls.filter((c) => c === "commit").length, 2);
    await engine.store.close();

    const again = new KvApp({ file: chain.appFile, haltAtHeight: 3n, haltExitCode: 7 });
    engine = await startEngine(chain, again);
    const exit2 = await engine.run();
    assert.equal(exit2.reason, "app-halt");
    assert.equal(exit2.height, 3n);
    assert.deepEqual(again.calls.slice(0, 1), ["info"], "no InitChain on restart");
    await engine.store.close();

    const upgraded = new KvApp({ file: chain.appFile });
    engine = await startEngine(chain, upgraded);
    const running = engine.run();
    await waitForHeight(engine, 5n);
    await engine.stop();
    await running;
    const b3 = await engine.store.block(3n);
    const b2 = await engine.store.block(2n);
    assert.equal(
      hex(b3?.block.header.lastBlockId.hash ?? new Uint8Array()),
      hex(b2?.blockId.hash ?? new Uint8Array(1)),
    );
    await engine.store.close();
  });

  it("halt-height stops after committing that height, and at start when already there", async () => {
    const chain = await newChain();
    let engine = await startEngine(chain, new KvApp({ file: chain.appFile }), { haltHeight: 3n });
    const exit = await engine.run();
    assert.deepEqual([exit.reason, exit.height, exit.exitCode], ["halt-height", 3n, 0]);
    assert.equal(engine.store.height, 3n);
    await engine.store.close();
    engine = await startEngine(chain, new KvApp({ file: chain.appFile }), { haltHeight: 3n });
    const exit2 = await engine.run();
    assert.deepEqual([exit2.reason, exit2.height], ["halt-height", 3n]);
    assert.equal(engine.store.height, 3n);
    await engine.store.close();
  });

  it("halt-time stops after the first block whose time reaches it", async () => {
    const chain = await newChain();
    const haltTime = chain.genesis.genesisTime.seconds;
    const engine = await startEngine(chain, new KvApp(), { haltTime });
    const exit = await engine.run();
    assert.deepEqual([exit.reason, exit.height], ["halt-time", 1n]);
    await engine.store.close();
  });

  it("restarts from the last block and keeps chaining", async () => {
    const chain = await newChain();
    let engine = await startEngine(chain, new KvApp({ file: chain.appFile }));
    let running = engine.run();
    await engine.mempool.checkTx(enc("r=1"));
    await waitForHeight(engine, 3n);
    await engine.stop();
    await running;
    const top = engine.store.height;
    const lastId = (await engine.store.block(top))?.blockId;
    await engine.store.close();

    const app = new KvApp({ file: chain.appFile });
    engine = await startEngine(chain, app);
    assert.deepEqual(app.calls, ["info"]);
    running = engine.run();
    await waitForHeight(engine, top + 2n);
    await engine.stop();
    await running;
    const next = await engine.store.block(top + 1n);
    assert.equal(hex(next?.block.header.lastBlockId.hash ?? new Uint8Array()), hex(lastId?.hash ?? new Uint8Array(1)));
    assert.equal(app.committed.r, "1");
    await engine.store.close();
  });

  it("replays a saved block the app did not commit (crash between save and Commit)", async () => {
    const chain = await newChain();
    const app = new KvApp({ file: chain.appFile });
    const crashAt = 3n;
    const original = app.commit.bind(app);
    app.commit = async () => {
      if (app.height + 1n === crashAt) throw new Error("simulated crash before Commit");
      return original();
    };
    let engine = await startEngine(chain, app);
    await engine.mempool.checkTx(enc("c=1"));
    await assert.rejects(engine.run(), /simulated crash/);
    assert.equal(engine.store.height, crashAt);
    const expected = (await engine.store.results(crashAt))?.appHash;
    await engine.store.close();

    const restarted = new KvApp({ file: chain.appFile });
    assert.equal(restarted.height, crashAt - 1n);
    engine = await startEngine(chain, restarted);
    assert.deepEqual(restarted.calls, ["info", "finalizeBlock", "commit"]);
    assert.equal(restarted.height, crashAt);
    assert.equal(hex(restarted.appHash), hex(expected ?? new Uint8Array()));
    await engine.store.close();
  });

  it("refuses to start when the app is ahead of the block store, or on another chain", async () => {
    const chain = await newChain();
    const engine = await startEngine(chain, new KvApp({ file: chain.appFile }), { haltHeight: 2n });
    await engine.run();
    await engine.store.close();
    await rm(chain.blocksDb, { recursive: true, force: true });
    await assert.rejects(startEngine(chain, new KvApp({ file: chain.appFile })), (e: unknown) => {
      assert.ok(e instanceof EngineStartError);
      assert.match(e.message, /the app has committed height 2 but the block store \(data\/blocks.db\) only holds 0/);
      // What a snapshot restored without its engine state leaves looks the same, so that cause is named too.
      assert.match(e.message, /or the state was restored from a snapshot without engine-state\.json/);
      return true;
    });
    const other = await newChain();
    const engine2 = await startEngine(other, new KvApp(), { haltHeight: 1n });
    await engine2.run();
    await engine2.store.close();
    const foreign = {
      ...other,
      genesis: parseEngineGenesis(other.genesisJson.replace('"test-chain"', '"another-chain"')),
    };
    await assert.rejects(startEngine(foreign, new KvApp()), {
      message: "the block store belongs to chain test-chain but genesis.json says another-chain",
    });
  });

  it("refuses a replay whose app hash differs from the stored one", async () => {
    const chain = await newChain();
    const app = new KvApp({ file: chain.appFile });
    const original = app.commit.bind(app);
    app.commit = async () => {
      if (app.height + 1n === 2n) throw new Error("simulated crash");
      return original();
    };
    const engine = await startEngine(chain, app);
    await engine.mempool.checkTx(enc("d=1"));
    await assert.rejects(engine.run(), /simulated crash/);
    await engine.store.close();
    const divergent = new KvApp({ file: chain.appFile });
    const fin = divergent.finalizeBlock.bind(divergent);
    divergent.finalizeBlock = async (req) => {
      const res = await fin(req);
      res.appHash = new Uint8Array(32).fill(1);
      return res;
    };
    await assert.rejects(startEngine(chain, divergent), /replaying height 2 gave app hash 0101/);
  });
});
