// Kills a node running the embedded engine with SIGKILL at random moments, many times, and checks after every
// restart that every block and tx a client saw as committed is still there unchanged, and at the end that the
// whole chain links up, the app hash of every height is what the next header says, and the tx index is complete.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { makeTestChain, type TestChain } from "../../test/support/engine/fixtures.ts";
import { KvApp } from "../../test/support/engine/kv-app.ts";
import { renderConfigToml } from "../config/config-toml-template.ts";
import { BlockStore } from "./block-store.ts";
import { Engine } from "./engine.ts";
import { loadEngineGenesis } from "./genesis.ts";
import { headerHash, lastResultsHash, txHash } from "./hashing/hashes.ts";
import { PrivValidator } from "./priv-validator.ts";

const ITERATIONS = 12;
// After each restart the newest blocks (where a kill lands) are checked over RPC, plus a random sample of older
// ones; the final in-process pass checks every block the client ever saw.
const CHECK_NEWEST = 15;
const CHECK_SAMPLE = 10;
const target = fileURLToPath(new URL("../../test/support/engine/kill-target.ts", import.meta.url));
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex").toUpperCase();

async function writeHome(chain: TestChain): Promise<string> {
  const home = join(chain.dir, "home");
  await mkdir(join(home, "config"), { recursive: true });
  await mkdir(join(home, "data"), { recursive: true });
  await writeFile(
    join(home, "config", "config.toml"),
    renderConfigToml({
      moniker: "kill-test",
      "rpc.laddr": "tcp://127.0.0.1:0",
      "consensus.timeout_commit": "5ms",
    }),
  );
  await writeFile(join(home, "config", "genesis.json"), chain.genesisJson);
  const pv = PrivValidator.fromSeed(chain.seed);
  const priv = Buffer.concat([Buffer.from(chain.seed), Buffer.from(pv.pubKey)]).toString("base64");
  await writeFile(
    join(home, "config", "priv_validator_key.json"),
    JSON.stringify({
      address: hex(pv.address),
      pub_key: { type: "tendermint/PubKeyEd25519", value: Buffer.from(pv.pubKey).toString("base64") },
      priv_key: { type: "tendermint/PrivKeyEd25519", value: priv },
    }),
  );
  return home;
}

function startChild(home: string): Promise<{ child: ChildProcess; rpc: string; lines: AsyncIterator<string> }> {
  const child = spawn(process.execPath, [target, home], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (d) => {
    stderr += d;
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
    lines.next().then((first) => {
      if (first.done) reject(new Error(`node exited early: ${stderr}`));
      else resolve({ child, rpc: (JSON.parse(first.value) as { rpc: string }).rpc, lines });
    }, reject);
  });
}

/** Parsed JSON answers, walked freely by the assertions. */
// biome-ignore lint/suspicious/noExplicitAny: test code navigates arbitrary JSON-RPC answers
type Answer = any;

async function rpc(url: string, method: string, params: Record<string, unknown> = {}): Promise<Answer> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const json = (await res.json()) as { result?: unknown; error?: { data?: string } };
  if (json.error !== undefined) throw new Error(`${method}: ${json.error.data}`);
  return json.result;
}

describe("embedded engine under SIGKILL", () => {
  let chain: TestChain;
  after(() => chain?.cleanup());

  it(`survives ${ITERATIONS} kills at random moments without losing or changing anything committed`, async () => {
    chain = await makeTestChain();
    const home = await writeHome(chain);
    const seenBlocks = new Map<string, { hash: string; appHash: string }>();
    const seenTxs = new Map<string, string>(); // tx hash → height
    const seenTxHeights = new Map<string, bigint>();
    let txCounter = 0;
    const log: string[] = [];

    for (let i = 0; i < ITERATIONS; i++) {
      const { child, rpc: url } = await startChild(home);
      const exited = new Promise((r) => child.once("exit", r));
      try {
        const heights = [...seenBlocks.keys()];
        const toCheck = new Set(heights.slice(-CHECK_NEWEST));
        for (let k = 0; k < CHECK_SAMPLE && heights.length > 0; k++) {
          toCheck.add(heights[Math.floor(Math.random() * heights.length)]);
        }
        for (const h of toCheck) {
          const rec = seenBlocks.get(h)!;
          const b = await rpc(url, "block", { height: h });
          assert.equal(b.block_id.hash, rec.hash, `block ${h} changed after restart ${i} (${log.join(", ")})`);
          const r = await rpc(url, "block_results", { height: h });
          assert.equal(
            hex(Buffer.from(r.app_hash, "base64")),
            rec.appHash,
            `app hash of ${h} changed after restart ${i}`,
          );
        }
        for (const [hash, height] of [...seenTxs].slice(-40)) {
          const t = await rpc(url, "tx", { hash: Buffer.from(hash, "hex").toString("base64") });
          assert.equal(t.height, height, `tx ${hash} moved or vanished after restart ${i}`);
        }
        const runFor = 50 + Math.floor(Math.random() * 400);
        log.push(`run ${runFor}ms`);
        const deadline = Date.now() + runFor;
        const pending = new Set<string>();
        // Run for the random time, and at least until this round has seen a new block (and, by the last
        // round, a committed tx): progress is waited for, so a slow machine only makes rounds longer.
        const blocksBefore = seenBlocks.size;
        const madeProgress = () => seenBlocks.size > blocksBefore && (i < ITERATIONS - 1 || seenTxs.size > 0);
        while (Date.now() < deadline || !madeProgress()) {
          for (let k = 0; k < 3; k++) {
            const tx = new TextEncoder().encode(`k${txCounter++}=v${i}`);
            pending.add(hex(txHash(tx)));
            rpc(url, "broadcast_tx_sync", { tx: Buffer.from(tx).toString("base64") }).catch(() => {});
          }
          const status = await rpc(url, "status");
          const latest = BigInt(status.sync_info.latest_block_height);
          for (let h = 1n; h <= latest; h++) {
            if (seenBlocks.has(h.toString())) continue;
            const b = await rpc(url, "block", { height: h.toString() });
            const r = await rpc(url, "block_results", { height: h.toString() });
            seenBlocks.set(h.toString(), { hash: b.block_id.hash, appHash: hex(Buffer.from(r.app_hash, "base64")) });
          }
          for (const hash of [...pending]) {
            try {
              const t = await rpc(url, "tx", { hash: Buffer.from(hash, "hex").toString("base64") });
              seenTxs.set(hash, t.height);
              pending.delete(hash);
            } catch {
              // not committed yet
            }
          }
        }
      } finally {
        child.kill("SIGKILL");
        await exited;
      }
    }
    assert.ok(seenBlocks.size >= ITERATIONS, `only ${seenBlocks.size} blocks were produced`);
    assert.ok(seenTxs.size > 0, "no tx was ever seen committed");
    for (const [hash, height] of seenTxs) {
      seenTxHeights.set(hash, BigInt(height));
    }

    // A last start in-process replays whatever the app missed and must agree with the store.
    const app = new KvApp({ file: join(home, "data", "kv-app.json") });
    const store = await BlockStore.open(join(home, "data", "blocks.db"));
    const engine = await Engine.start({
      app,
      store,
      genesis: await loadEngineGenesis(join(home, "config", "genesis.json")),
      privValidator: await PrivValidator.withStateFile(chain.seed, join(home, "data", "priv_validator_state.json")),
    });
    const top = store.height;
    assert.equal(app.height, top);
    assert.equal(hex(app.appHash), hex(engine.state.appHash));
    let previous: Awaited<ReturnType<BlockStore["block"]>>;
    let previousResults: Awaited<ReturnType<BlockStore["results"]>>;
    for (let h = 1n; h <= top; h++) {
      const stored = await store.block(h);
      const results = await store.results(h);
      assert.ok(stored && results, `height ${h} is complete`);
      assert.equal(hex(headerHash(stored.block.header)), hex(stored.blockId.hash));
      if (previous !== undefined && previousResults !== undefined) {
        assert.equal(hex(stored.block.header.lastBlockId.hash), hex(previous.blockId.hash), `link ${h}`);
        assert.equal(hex(stored.block.header.appHash), hex(previousResults.appHash), `app hash into ${h}`);
        assert.equal(hex(stored.block.header.lastResultsHash), hex(lastResultsHash(previousResults.txResults)));
      }
      for (const [index, tx] of stored.block.txs.entries()) {
        seenTxHeights.delete(hex(txHash(tx)));
        const indexed = await store.tx(txHash(tx));
        assert.deepEqual([indexed?.height, indexed?.index], [h, index], `tx index of ${hex(txHash(tx))}`);
      }
      const seen = seenBlocks.get(h.toString());
      if (seen !== undefined) {
        assert.equal(hex(stored.blockId.hash), seen.hash, `block ${h} differs from what a client saw`);
        assert.equal(hex(results.appHash), seen.appHash, `app hash of ${h} differs from what a client saw`);
      }
      previous = stored;
      previousResults = results;
    }
    assert.deepEqual([...seenTxHeights.keys()], [], "every tx a client saw committed is in a block");
    await store.close();
  });

  it("SIGTERM stops after the current block, with exit status 0, and the next start continues", async () => {
    const termChain = await makeTestChain();
    try {
      const home = await writeHome(termChain);
      const first = await startChild(home);
      const status = await rpc(first.rpc, "status");
      const exitCode = new Promise<number | null>((r) => first.child.once("exit", (code) => r(code)));
      first.child.kill("SIGTERM");
      assert.equal(await exitCode, 0);
      const last = await first.lines.next();
      assert.equal(JSON.parse(last.value as string).exit, "stopped");
      const second = await startChild(home);
      try {
        const again = await rpc(second.rpc, "status");
        assert.ok(BigInt(again.sync_info.latest_block_height) >= BigInt(status.sync_info.latest_block_height));
      } finally {
        second.child.kill("SIGKILL");
      }
    } finally {
      await termChain.cleanup();
    }
  });
});
