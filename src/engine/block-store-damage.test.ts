// A damaged `blocks.db` (real LevelDB files, bytes flipped or a table file cut in half) is detected:
// reads verify each block's header against its stored id, so a damaged height is refused with an
// error naming the store (never an absolute path) instead of being served; the start verifies the
// last heights and stops with that error; /health stops saying OK once damage is known.
import assert from "node:assert/strict";
import { cp, readdir, readFile, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { BlockStore, BlockStoreCorruptError, VERIFIED_AT_START } from "./block-store.ts";
import { Engine } from "./engine.ts";
import { RpcServer } from "./rpc/rpc-server.ts";
import { makeTestChain, type TestChain, waitForHeight } from "./test-support/fixtures.ts";
import { KvApp } from "./test-support/kv-app.ts";

const HEIGHT = VERIFIED_AT_START + 30n;
const DAMAGED = 10n; // below the heights verified at start: only a read finds it
let chain: TestChain;
let pristine: string;

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
  await waitForHeight(engine, HEIGHT);
  await engine.stop();
  await running;
  await engine.store.close();
  // Reopening makes LevelDB move its log into a table file (.ldb), where damage is looked for.
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

/** Flips one byte in every occurrence of `needle` in the store's table files; returns how many. */
async function flipEvery(path: string, needle: Uint8Array): Promise<number> {
  let flipped = 0;
  for (const file of await tables(path)) {
    const bytes = await readFile(file);
    for (let at = bytes.indexOf(needle); at >= 0; at = bytes.indexOf(needle, at + 1)) {
      bytes[at + 16] ^= 0xff;
      flipped++;
    }
    await writeFile(file, bytes);
  }
  return flipped;
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
