// A start that fails after it has opened things closes every one of them before it rejects: `chaind start` then
// ends by itself (nothing left holds its event loop), and a supervisor that restarts it finds the stores unlocked.
// Two failures on a real dev home (LevelDB, loopback sockets): the REST port taken once the engine's RPC server
// listens and the gRPC server is bound, and a damaged block among the heights the start verifies (the e2e test
// test/e2e/store-damage.test.ts runs that one as a process).
import assert from "node:assert/strict";
import { cp } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ClassicLevel } from "classic-level";
import { pino } from "pino";
import { fastDevHome, type tempDir } from "../../test/support/node/chaind.ts";
import { homePaths } from "../config/home.ts";
import { BlockStore } from "../engine/block-store.ts";
import { PREFIX, prefixedKey, u64 } from "../engine/block-store-keys.ts";
import { openLevelBackend } from "../store/kv-backend.ts";
import type { DevHome } from "./dev-chain.ts";
import { NodeStartError, startNode } from "./start-node.ts";

const PORTS = { rpcLaddr: "tcp://127.0.0.1:0", apiAddress: "tcp://127.0.0.1:0", grpcAddress: "127.0.0.1:0" };
const logger = pino({ level: "silent" });

let dir: Awaited<ReturnType<typeof tempDir>>;
let dev: DevHome;
/** The last height of the dev home once its node stopped. */
let top = 0n;

before(async () => {
  ({ dir, dev } = await fastDevHome("chaind-start-failure-", "50ms"));
  const node = await startNode({ home: dev.home, logger, overrides: PORTS });
  const engine = node.embedded?.engine;
  assert.ok(engine !== undefined);
  while (engine.store.height < 3n) await new Promise((resolve) => setTimeout(resolve, 50));
  await node.stop();
  const blocks = await BlockStore.open(homePaths(dev.home).blocksDb);
  top = blocks.height;
  await blocks.close();
});

after(async () => {
  await dir?.remove();
});

/** The kinds of the resources holding the event loop (sockets, servers, file requests...), timers left out. */
function openResources(): string[] {
  return process
    .getActiveResourcesInfo()
    .filter((kind) => kind !== "Timeout" && kind !== "Immediate")
    .sort();
}

/** Both LevelDB stores of `home` open again: nothing of the failed start still holds their locks. */
async function assertStoresClosed(home: string): Promise<void> {
  const paths = homePaths(home);
  await (await BlockStore.open(paths.blocksDb, { createIfMissing: false })).close();
  await (await openLevelBackend(paths.applicationDb)).close();
}

/**
 * Asserts the open resources are back to `before`: a handle being closed leaves the list within a few ticks of its
 * close, so they are given up to 2 s; one left open stays.
 */
async function assertBackTo(before: string[]): Promise<void> {
  const until = Date.now() + 2000;
  while (Date.now() < until && JSON.stringify(openResources()) !== JSON.stringify(before)) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.deepEqual(openResources(), before, "the failed start left a socket, a server or a request open");
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as { port: number }).port;
}

test("the REST port taken after the engine and the gRPC server started: everything they opened is closed", async () => {
  const taken = createServer();
  const port = await listen(taken);
  try {
    const before = openResources();
    await assert.rejects(
      startNode({ home: dev.home, logger, overrides: { ...PORTS, apiAddress: `tcp://127.0.0.1:${port}` } }),
      (err: Error) =>
        err instanceof NodeStartError && /cannot start the REST gateway or the gRPC server/.test(err.message),
    );
    await assertBackTo(before);
    await assertStoresClosed(dev.home);
  } finally {
    await new Promise((resolve) => taken.close(resolve));
  }
});

test("a damaged block among the verified heights: the start rejects naming the store, having closed the App", async () => {
  const home = join(dir.path, "damaged");
  await cp(dev.home, home, { recursive: true });
  // The block record's last byte is the last byte of its last commit's last signature: the block still decodes, and
  // its last commit no longer hashes to the header's last_commit_hash.
  const db = new ClassicLevel<Uint8Array, Uint8Array>(homePaths(home).blocksDb, {
    keyEncoding: "view",
    valueEncoding: "view",
  });
  await db.open();
  const key = prefixedKey(PREFIX.block, u64(top - 1n));
  const bytes = Buffer.from((await db.get(key)) as Uint8Array);
  bytes[bytes.length - 1] ^= 0x01;
  await db.put(key, bytes);
  await db.close();

  const before = openResources();
  await assert.rejects(startNode({ home, logger, overrides: PORTS }), (err: Error) =>
    new RegExp(`the block store \\(data/blocks\\.db\\) is damaged: the last commit of block ${top - 1n}`).test(
      err.message,
    ),
  );
  await assertBackTo(before);
  await assertStoresClosed(home);
});
