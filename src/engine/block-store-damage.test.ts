// A damaged `blocks.db` (real LevelDB files, bytes flipped or a table file cut in half) is detected:
// reads verify each block's header against its stored id and its txs against the header's data_hash,
// each block's results against the next header, and each tx record against the tx index, so a damaged
// height is refused with an error naming the store (never an absolute path) instead of being served; a
// height missing inside the stored range is damage too, not "not found"; the start verifies the last
// heights and stops with that error; /health stops saying OK once damage is known. A store whose
// CURRENT file is lost is refused before LevelDB could create a new one over its files.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { cp, readdir, readFile, rm, stat, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ClassicLevel } from "classic-level";
import { makeTestChain, type TestChain, waitForHeight } from "../../test/support/engine/fixtures.ts";
import { KvApp } from "../../test/support/engine/kv-app.ts";
import { NotALevelStoreError } from "../store/errors.ts";
import { BlockStore, BlockStoreCorruptError, VERIFIED_AT_START } from "./block-store.ts";
import { PREFIX, prefixedKey, u64 } from "./block-store-keys.ts";
import { Engine } from "./engine.ts";
import { txHash } from "./hashing/hashes.ts";
import { RpcServer } from "./rpc/rpc-server.ts";

const HEIGHT = VERIFIED_AT_START + 30n;
const DAMAGED = 10n; // below the heights verified at start: only a read finds it
let chain: TestChain;
let pristine: string;
/** Txs with incompressible values (so their bytes show in the table files as they are) and their heights. */
const TXS: { tx: Uint8Array; value: string; height: bigint }[] = [];

// The app keeps its state in a file, so a restart handshakes at its height instead of replaying.
async function startEngine(blocksDb: string): Promise<Engine> {
  return Engine.start({
    app: new KvApp({ file: chain.appFile }),
    store: await BlockStore.open(blocksDb),
    genesis: chain.genesis,
    privValidator: await chain.privValidator(),
    consensus: { timeoutCommitMs: 1, createEmptyBlocks: true, createEmptyBlocksIntervalMs: 0 },
  });
}

before(async () => {
  chain = await makeTestChain({ appState: { seeded: "1" } });
  const engine = await startEngine(chain.blocksDb);
  const running = engine.run();
  for (let i = 0; i < 3; i++) {
    const value = randomBytes(24).toString("hex");
    const tx = new TextEncoder().encode(`k${i}=${value}`);
    assert.equal((await engine.mempool.checkTx(tx)).code, 0);
    TXS.push({ tx, value, height: 0n });
  }
  await waitForHeight(engine, HEIGHT);
  for (const t of TXS) {
    const found = await engine.store.tx(txHash(t.tx));
    assert.ok(found !== undefined && found.height < HEIGHT - VERIFIED_AT_START, `tx ${t.value} not in an early block`);
    t.height = found.height;
  }
  await engine.stop();
  await running;
  await engine.store.close();
  // Reopening makes LevelDB move its log into a table file (.ldb), where damage is looked for. The manual compaction
  // rewrites every table without snappy: compressed, an id stored twice within one table block (a meta and the next
  // header's last_block_id) can be kept once plus a back reference, so a raw byte flip would miss the copy a read
  // uses and the damage would go unseen (a CI run saw height 10 served intact after its id was "flipped").
  const raw = new ClassicLevel<Uint8Array, Uint8Array>(chain.blocksDb, {
    keyEncoding: "view",
    valueEncoding: "view",
    compression: false,
  });
  await raw.open();
  await raw.compactRange(new Uint8Array([0]), new Uint8Array(64).fill(0xff));
  await raw.close();
  await (await BlockStore.open(chain.blocksDb)).close();
  assert.ok(
    (await readdir(chain.blocksDb)).some((f) => f.endsWith(".ldb")),
    "no .ldb table was written",
  );
  pristine = join(chain.dir, "blocks.pristine");
  await cp(chain.blocksDb, pristine, { recursive: true });
});

after(async () => {
  await chain?.cleanup();
});

/** A fresh copy of the pristine store, named `data/blocks.db` as in a home. */
async function copyStore(name: string): Promise<string> {
  const path = join(chain.dir, name, "data", "blocks.db");
  await cp(pristine, path, { recursive: true });
  return path;
}

async function tables(path: string): Promise<string[]> {
  return (await readdir(path)).filter((f) => f.endsWith(".ldb")).map((f) => join(path, f));
}

/** Flips one byte (the bits of `mask`) in every occurrence of `needle` in the store's table files; returns how many. */
async function flipEvery(path: string, needle: Uint8Array, mask = 0xff): Promise<number> {
  let flipped = 0;
  for (const file of await tables(path)) {
    const bytes = await readFile(file);
    for (let at = bytes.indexOf(needle); at >= 0; at = bytes.indexOf(needle, at + 1)) {
      bytes[at + 16] ^= mask;
      flipped++;
    }
    await writeFile(file, bytes);
  }
  return flipped;
}

/** An engine on the store at `path` with the consensus RPC on a loopback port; `use` gets its URL. */
async function withRpc(path: string, use: (url: string) => Promise<void>): Promise<void> {
  const engine = await startEngine(path);
  const rpc = await RpcServer.listen({
    context: {
      engine,
      node: {
        moniker: "damaged",
        nodeId: "0123456789abcdef0123456789abcdef01234567",
        p2pListenAddr: "tcp://0.0.0.0:26656",
        rpcListenAddr: "tcp://127.0.0.1:0",
        timeoutBroadcastTxCommitMs: 5000,
      },
    },
    listen: { host: "127.0.0.1", port: 0 },
  });
  try {
    await use(rpc.url);
  } finally {
    await rpc.close();
    await engine.store.close();
  }
}

/** GETs `path` and expects the damage answer (500, the store named, no absolute path) matching `detail`. */
async function assertDamageAnswer(url: string, path: string, detail: RegExp): Promise<void> {
  const response = await fetch(`${url}${path}`);
  const body = await response.text();
  assert.equal(response.status, 500, `${path}: ${body}`);
  assert.match(body, /the block store \(data\/blocks\.db\) is damaged/, path);
  assert.match(body, detail, path);
  assert.ok(!body.includes(chain.dir), body);
}

/** Changes the store at `path` through LevelDB itself (a record lost or replaced, not a damaged file). */
async function editStore(path: string, edit: (db: ClassicLevel<Uint8Array, Uint8Array>) => Promise<void>) {
  const db = new ClassicLevel<Uint8Array, Uint8Array>(path, { keyEncoding: "view", valueEncoding: "view" });
  await db.open({ createIfMissing: false });
  try {
    await edit(db);
  } finally {
    await db.close();
  }
}

function assertNamesStore(err: unknown): true {
  assert.ok(err instanceof BlockStoreCorruptError, String(err));
  assert.match(err.message, /the block store \(data\/blocks\.db\) is damaged/);
  assert.ok(!err.message.includes(chain.dir), `an absolute path in: ${err.message}`);
  return true;
}

test("flipped bytes: the damaged height is refused, not served; /health then fails; the start checks the tail", async () => {
  const path = await copyStore("flipped");
  const store = await BlockStore.open(path);
  const id = (await store.blockMeta(DAMAGED))?.blockId.hash;
  await store.close();
  assert.ok(id !== undefined);
  assert.ok((await flipEvery(path, id)) > 0, "the block id was not found in the table files");

  // The tail verifies, so the node starts; the damaged height is refused with a clear error.
  const engine = await startEngine(path);
  const rpc = await RpcServer.listen({
    context: {
      engine,
      node: {
        moniker: "damaged",
        nodeId: "0123456789abcdef0123456789abcdef01234567",
        p2pListenAddr: "tcp://0.0.0.0:26656",
        rpcListenAddr: "tcp://127.0.0.1:0",
        timeoutBroadcastTxCommitMs: 5000,
      },
    },
    listen: { host: "127.0.0.1", port: 0 },
  });
  try {
    const health = await fetch(`${rpc.url}/health`);
    assert.equal(health.status, 200, await health.text());
    const block = await fetch(`${rpc.url}/block?height=${DAMAGED}`);
    const body = await block.text();
    assert.equal(block.status, 500, body);
    assert.match(body, /block store \(data\/blocks\.db\) is damaged/);
    assert.match(body, new RegExp(`block ${DAMAGED}`));
    assert.ok(!body.includes(chain.dir), body);
    // Block 11 links to the damaged id: it does not verify either. Undamaged heights are served.
    assert.equal((await fetch(`${rpc.url}/block?height=${DAMAGED + 1n}`)).status, 500);
    assert.equal((await fetch(`${rpc.url}/block?height=${DAMAGED + 5n}`)).status, 200);
    const after = await fetch(`${rpc.url}/health`);
    const afterBody = await after.text();
    assert.equal(after.status, 500, afterBody);
    assert.match(afterBody, /damaged/);
  } finally {
    await rpc.close();
    await engine.store.close();
  }

  // The same damage within the last heights stops the start, naming the store.
  const recent = await copyStore("flipped-recent");
  const probe = await BlockStore.open(recent);
  const recentId = (await probe.blockMeta(HEIGHT - 3n))?.blockId.hash;
  await probe.close();
  assert.ok(recentId !== undefined && (await flipEvery(recent, recentId)) > 0);
  const opened = await BlockStore.open(recent);
  await assert.rejects(
    Engine.start({
      app: new KvApp({ file: chain.appFile }),
      store: opened,
      genesis: chain.genesis,
      privValidator: await chain.privValidator(),
      consensus: { timeoutCommitMs: 1, createEmptyBlocks: true, createEmptyBlocksIntervalMs: 0 },
    }),
    assertNamesStore,
  );
  await opened.close();
});

test("a table file cut in half: the start stops with an error naming data/blocks.db", async () => {
  const path = await copyStore("truncated");
  for (const file of await tables(path)) {
    const size = (await readFile(file)).length;
    await truncate(file, Math.floor(size / 2));
  }
  let store: BlockStore | undefined;
  try {
    store = await BlockStore.open(path);
    await assert.rejects(store.verifyRecent(), assertNamesStore);
    assert.ok(store.damaged !== undefined);
  } catch (err) {
    // LevelDB may refuse the damaged files at open already: that also names the store.
    if (store !== undefined) throw err;
    assert.match((err as Error).message, /blocks\.db/);
  } finally {
    await store?.close();
  }
});

test("no CURRENT file: every open is refused before LevelDB sees the store, and no file is removed", async () => {
  const path = await copyStore("no-current");
  await rm(join(path, "CURRENT"));
  const sizes = async () => {
    const out: Record<string, number> = {};
    for (const name of await readdir(path)) out[name] = (await stat(join(path, name))).size;
    return out;
  };
  const before = await sizes();
  assert.ok((await tables(path)).length > 0, "no .ldb table to lose");
  // The node's start (create-if-missing) and status's read-only open alike.
  for (const options of [{}, { createIfMissing: false }]) {
    await assert.rejects(BlockStore.open(path, options), (err: unknown) => {
      assert.ok(err instanceof NotALevelStoreError, String(err));
      assert.match(err.message, /^data\/blocks\.db holds \d+ files but no CURRENT file/);
      assert.ok(!err.message.includes(chain.dir), err.message);
      return true;
    });
  }
  assert.deepEqual(await sizes(), before);
});

test("damaged tx bytes: the block is refused against its data_hash, the tx against its hash; /health then fails", async () => {
  const path = await copyStore("tx-bytes");
  const [target] = TXS;
  assert.ok(target !== undefined);
  // The value's bytes sit in the block record and in the tx's own record (and its events); all are damaged, one
  // bit, so the text stays valid UTF-8 and the records still decode: only the hashes can tell.
  const flipped = await flipEvery(path, new TextEncoder().encode(target.value), 0x01);
  assert.ok(flipped > 0, "the tx was not found in the tables");
  await withRpc(path, async (url) => {
    assert.equal((await fetch(`${url}/health`)).status, 200);
    await assertDamageAnswer(
      url,
      `/block?height=${target.height}`,
      new RegExp(`the txs of block ${target.height} hash to [0-9a-f]+ but its header's data_hash is`),
    );
    await assertDamageAnswer(url, `/tx?hash=0x${Buffer.from(txHash(target.tx)).toString("hex")}`, /hashes to/);
    await assertDamageAnswer(url, `/tx_search?query="tx.height=${target.height}"`, /hashes to/);
    // The block's neighbours are served; the node no longer reports itself healthy.
    assert.equal((await fetch(`${url}/block?height=${target.height + 40n}`)).status, 200);
    await assertDamageAnswer(url, "/health", /data_hash/);
  });
});

test("a height missing inside [base, height] is damage, not block: null; outside it is still not found", async () => {
  const path = await copyStore("missing-height");
  const missing = DAMAGED + 3n;
  await editStore(path, async (db) => {
    await db.batch([
      { type: "del", key: prefixedKey(PREFIX.block, u64(missing)) },
      { type: "del", key: prefixedKey(PREFIX.meta, u64(missing)) },
      { type: "del", key: prefixedKey(PREFIX.results, u64(missing + 1n)) },
    ]);
  });
  await withRpc(path, async (url) => {
    await assertDamageAnswer(
      url,
      `/block?height=${missing}`,
      new RegExp(`height ${missing} has no block, though the store holds every height from 1 to`),
    );
    await assertDamageAnswer(url, `/header?height=${missing}`, new RegExp(`height ${missing} has no block meta`));
    await assertDamageAnswer(
      url,
      `/block_results?height=${missing + 1n}`,
      new RegExp(`height ${missing + 1n} has no results`),
    );
    await assertDamageAnswer(url, "/health", /has no block/);
  });
  const store = await BlockStore.open(path);
  try {
    assert.equal(await store.block(store.height + 5n), undefined, "a height never saved is not found");
  } finally {
    await store.close();
  }
});

test("results that do not hash to the next header's last_results_hash are refused", async () => {
  const path = await copyStore("swapped-results");
  const [target] = TXS;
  assert.ok(target !== undefined);
  // An empty block's results in place of those of the block with the tx: they decode, but the chain disagrees.
  await editStore(path, async (db) => {
    const empty = await db.get(prefixedKey(PREFIX.results, u64(target.height + 50n)));
    assert.ok(empty !== undefined);
    await db.put(prefixedKey(PREFIX.results, u64(target.height)), empty);
  });
  await withRpc(path, async (url) => {
    await assertDamageAnswer(
      url,
      `/block_results?height=${target.height}`,
      new RegExp(
        `the results of block ${target.height} hash to [0-9a-f]+ but the header of block ${target.height + 1n} has last_results_hash`,
      ),
    );
    assert.equal((await fetch(`${url}/block_results?height=${target.height + 50n}`)).status, 200);
  });
});
