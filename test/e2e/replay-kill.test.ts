// A `chaind replay` killed in the middle (SIGKILL) leaves a home the engine takes up: the replay writes its heights
// unsynced and flushes them every FLUSH_EVERY heights, but in the engine's order (a height saved before the app
// commits it), so whatever the kill interrupts, the new home's app is at or one height behind its block store and
// the engine's handshake replays the rest, with the source's app hash at the top. The kill lands past a flush, so
// heights written since the last flush are part of what must survive.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { create } from "@bufbuild/protobuf";
import { referenceChain } from "../../chain/app.ts";
import { v1, v2 } from "../../chain/releases.ts";
import { homePaths } from "../../src/config/home.ts";
import { BlockStore } from "../../src/engine/block-store.ts";
import { ENGINE_VERSION, Engine } from "../../src/engine/engine.ts";
import { loadEngineGenesis } from "../../src/engine/genesis.ts";
import { PrivValidator } from "../../src/engine/priv-validator.ts";
import { RequestInfoSchema } from "../../src/gen/tendermint/abci/types_pb.js";
import { createNodeLogger } from "../../src/node/logger.ts";
import { startNode } from "../../src/node/start-node.ts";
import { openChainSwitchingApp } from "../../src/replay/chain-line.ts";
import { FLUSH_EVERY } from "../../src/replay/replay-home.ts";
import { closeVerifyPool } from "../../src/x/auth/verify-pool.ts";
import { fastDevHome, waitForHeight } from "../support/node/chaind.ts";

const child = fileURLToPath(new URL("./support/replay-child.ts", import.meta.url));
const logger = createNodeLogger({ level: "silent" });
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex").toUpperCase();
/** The source's length: the replay must still be far from its end when the kill lands. */
const SOURCE_HEIGHTS = 320n;
/** The kill is sent once the child reports this height: past the first flush, before the second. */
const KILL_AT = FLUSH_EVERY + FLUSH_EVERY / 2n;

let fixture: Awaited<ReturnType<typeof fastDevHome>>;

before(async () => {
  fixture = await fastDevHome("chaind-replay-kill-", "0s");
  const node = await startNode({
    home: fixture.dev.home,
    logger,
    chain: referenceChain,
    release: v1,
    overrides: { rpcLaddr: "tcp://127.0.0.1:0", apiAddress: "tcp://127.0.0.1:0", grpcAddress: "127.0.0.1:0" },
  });
  try {
    await waitForHeight(node.endpoints.rpc as string, SOURCE_HEIGHTS, 600_000);
  } finally {
    await node.stop();
  }
});

after(async () => {
  await closeVerifyPool();
  await fixture?.dir.remove();
});

/** Runs the replay child until it reports `height`, then SIGKILLs it; resolves with the last height it reported. */
async function replayUntilKilled(source: string, target: string, height: bigint): Promise<bigint> {
  const proc = spawn(process.execPath, [child, source, target], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  proc.stderr.on("data", (d) => {
    stderr += d;
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => proc.once("exit", (_code, signal) => resolve(signal)));
  let reported = 0n;
  for await (const line of createInterface({ input: proc.stdout })) {
    const message = JSON.parse(line) as { height?: string; done?: string };
    assert.equal(message.done, undefined, "the replay finished before the kill: the source is too short");
    reported = BigInt(message.height as string);
    if (reported >= height) {
      proc.kill("SIGKILL");
      break;
    }
  }
  assert.equal(await exited, "SIGKILL", `the replay child was not killed: ${stderr.slice(-2000)}`);
  return reported;
}

test("a replay killed mid-way leaves a home the engine's handshake takes up at the source's app hash", async () => {
  const source = fixture.dev.home;
  const target = join(fixture.dir.path, "replayed");
  const killedAt = await replayUntilKilled(source, target, KILL_AT);

  const paths = homePaths(target);
  const store = await BlockStore.open(paths.blocksDb, { createIfMissing: false });
  const switching = await openChainSwitchingApp({
    chain: referenceChain,
    home: target,
    chainId: fixture.dev.chainId,
    logger,
    release: v2,
  });
  try {
    // Every height reported before the kill was saved and committed; the kill may have come between the block
    // store's save of the next height and the app's commit of it.
    const saved = store.height;
    assert.ok(saved >= killedAt && saved < SOURCE_HEIGHTS, `saved ${saved}, killed after ${killedAt}`);
    const info = await switching.info(create(RequestInfoSchema, { version: ENGINE_VERSION.core }));
    assert.ok(
      info.lastBlockHeight === saved || info.lastBlockHeight === saved - 1n,
      `app at ${info.lastBlockHeight}, block store at ${saved}`,
    );

    const engine = await Engine.start({
      app: switching,
      store,
      genesis: await loadEngineGenesis(paths.genesis),
      privValidator: await PrivValidator.load(paths.privValidatorKey, paths.privValidatorState),
    });
    const sourceBlocks = await BlockStore.open(homePaths(source).blocksDb, { createIfMissing: false });
    try {
      const expected = (await sourceBlocks.results(saved))?.appHash;
      assert.ok(expected !== undefined);
      assert.equal(hex(engine.state.appHash), hex(expected), `app hash at ${saved} after the handshake`);
    } finally {
      await sourceBlocks.close();
    }
    const resumed = await switching.info(create(RequestInfoSchema, { version: ENGINE_VERSION.core }));
    assert.equal(resumed.lastBlockHeight, saved);
  } finally {
    await switching.close();
    await store.close();
  }
});
