// State sync at the ABCI level, over a real socket: a snapshot of a LevelDB state is served by one handler
// (ListSnapshots, LoadSnapshotChunk) and restored through the ABCI server of a real chain App by another
// (OfferSnapshot, ApplySnapshotChunk) — with the offer answers of upstream, a corrupted chunk refused and
// refetched (its sender rejected), a wrong trusted app hash refused without touching the state, and after the
// restore Info reporting the snapshot height and app hash and queries below it answering the pruned error.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { pino } from "pino";
import { tempDir } from "../../test/support/node/chaind.ts";
import { AbciClient } from "../abci/client.ts";
import { AbciServer } from "../abci/server.ts";
import {
  ResponseApplySnapshotChunk_Result as Apply,
  ResponseOfferSnapshot_Result as Offer,
} from "../gen/tendermint/abci/types_pb.js";
import { buildChainApp, type ChainApp } from "../runtime/build-app.ts";
import { STANDARD_CHAIN } from "../runtime/current-chain.ts";
import { type MultiStore, openMultiStore } from "../store/index.ts";
import { createSnapshot } from "./create-snapshot.ts";
import { encodeMetadata } from "./metadata.ts";
import { metadataOf, type SnapshotInfo, SnapshotStore } from "./snapshot-store.ts";
import { StateSync } from "./state-sync.ts";

const silent = pino({ level: "silent" });
const bytes = (text: string) => new TextEncoder().encode(text);
let dir: Awaited<ReturnType<typeof tempDir>>;
let source: MultiStore;
let sourceSnapshots: SnapshotStore;
let info: SnapshotInfo;
let chain: ChainApp;
let server: AbciServer;
let client: AbciClient;
let target: StateSync;

before(async () => {
  dir = await tempDir("chaind-state-sync-");
  chain = await buildChainApp({
    chain: STANDARD_CHAIN,
    home: join(dir.path, "target"),
    chainId: "sync-test",
    logger: silent,
  });
  const storeNames = chain.moduleManager.storeKeys();
  source = await openMultiStore({
    path: join(dir.path, "source.db"),
    storeNames,
    pruning: { strategy: "nothing", keepRecent: 0n, interval: 0n },
  });
  for (let v = 1; v <= 12; v++) {
    const block = source.branch();
    for (let i = 0; i < 30; i++) block.store("bank").set(bytes(`balance/${(v * 31 + i) % 97}`), bytes(`${v}:${i}`));
    block.store(storeNames[0]).set(bytes(`k${v}`), bytes(`v${v}`));
    await source.stage(block);
    await source.commit();
  }
  sourceSnapshots = new SnapshotStore(join(dir.path, "source-snapshots"));
  info = await createSnapshot(source, sourceSnapshots, 10n, 256); // small chunks: several of them
  target = new StateSync({
    snapshots: new SnapshotStore(join(dir.path, "target", "data", "snapshots")),
    app: {
      storeNames: () => chain.moduleManager.storeKeys(),
      close: () => chain.app.close(),
      reload: () => chain.app.reload(),
    },
    applicationDb: join(dir.path, "target", "data", "application.db"),
    logger: silent,
  });
  server = await AbciServer.listen({ app: chain.app, address: "tcp://127.0.0.1:0", snapshots: target, logger: silent });
  client = await AbciClient.connect(server.address);
});

after(async () => {
  await client?.close();
  await server?.close();
  await chain?.app.close();
  await source?.close();
  await dir?.remove();
});

const snapshotMessage = (overrides: Partial<{ format: number; chunks: number; metadata: Uint8Array }> = {}) => ({
  height: info.height,
  format: overrides.format ?? info.format,
  chunks: overrides.chunks ?? info.chunks,
  hash: info.hash,
  metadata: overrides.metadata ?? metadataOf(info),
});

describe("state sync over ABCI", () => {
  test("a node serves its snapshots and their chunks", async () => {
    const serving = new StateSync({
      snapshots: sourceSnapshots,
      app: { storeNames: () => [], close: async () => {}, reload: async () => {} },
      applicationDb: "/nonexistent",
      logger: silent,
    });
    const listed = await serving.listSnapshots();
    assert.equal(listed.snapshots.length, 1);
    assert.equal(listed.snapshots[0].height, 10n);
    assert.ok(info.chunks > 2, `expected several chunks, got ${info.chunks}`);
    assert.deepEqual(listed.snapshots[0].metadata, metadataOf(info));
    const chunk = await serving.loadSnapshotChunk({ height: 10n, format: info.format, chunk: 1 } as never);
    assert.deepEqual(chunk.chunk, await sourceSnapshots.loadChunk(10n, info.format, 1));
    assert.equal((await serving.loadSnapshotChunk({ height: 11n, format: 1, chunk: 0 } as never)).chunk.length, 0);
    assert.equal((await client.call("listSnapshots", {})).snapshots.length, 0, "the fresh target has none");
  });

  test("offers: unknown format, bad metadata, inconsistent chunk count, no snapshot", async () => {
    const trusted = (await source.view(10n)).appHash as Uint8Array;
    assert.equal(
      (await client.call("offerSnapshot", { snapshot: snapshotMessage({ format: 3 }), appHash: trusted })).result,
      Offer.REJECT_FORMAT,
    );
    assert.equal(
      (await client.call("offerSnapshot", { snapshot: snapshotMessage({ metadata: bytes("junk") }), appHash: trusted }))
        .result,
      Offer.REJECT,
    );
    assert.equal(
      (await client.call("offerSnapshot", { snapshot: snapshotMessage({ chunks: info.chunks + 1 }), appHash: trusted }))
        .result,
      Offer.REJECT,
    );
    assert.equal((await client.call("offerSnapshot", { appHash: trusted })).result, Offer.REJECT);
    assert.equal(
      (await client.call("applySnapshotChunk", { index: 0, chunk: bytes("x"), sender: "p" })).result,
      Apply.ABORT,
    );
  });

  test("offers of height 0 or without an app hash are refused; a chunk index past the last ends the restore", async () => {
    const trusted = (await source.view(10n)).appHash as Uint8Array;
    const zero = { ...snapshotMessage(), height: 0n };
    assert.equal((await client.call("offerSnapshot", { snapshot: zero, appHash: trusted })).result, Offer.REJECT);
    assert.equal((await client.call("offerSnapshot", { snapshot: snapshotMessage() })).result, Offer.REJECT);
    assert.equal(
      (await client.call("offerSnapshot", { snapshot: snapshotMessage(), appHash: trusted })).result,
      Offer.ACCEPT,
    );
    const first = (await sourceSnapshots.loadChunk(10n, info.format, 0)) as Uint8Array;
    assert.equal(
      (await client.call("applySnapshotChunk", { index: info.chunks, chunk: first, sender: "p" })).result,
      Apply.REJECT_SNAPSHOT,
    );
    // The snapshot is dropped: its next chunk has no accepted offer to go to, and the state is as it was.
    assert.equal(
      (await client.call("applySnapshotChunk", { index: 0, chunk: first, sender: "p" })).result,
      Apply.ABORT,
    );
    assert.equal((await client.call("info", {})).lastBlockHeight, 0n);
    assert.equal(existsSync(join(dir.path, "target", "data", "application.db.restoring")), false);
  });

  test("a wrong trusted app hash is refused after the last chunk and leaves the state as it was", async () => {
    assert.equal(
      (await client.call("offerSnapshot", { snapshot: snapshotMessage(), appHash: new Uint8Array(32) })).result,
      Offer.ACCEPT,
    );
    const chunks = [...Array(info.chunks).keys()];
    for (const i of chunks.slice(0, -1)) {
      const chunk = (await sourceSnapshots.loadChunk(10n, info.format, i)) as Uint8Array;
      assert.equal(
        (await client.call("applySnapshotChunk", { index: i, chunk, sender: "peer-a" })).result,
        Apply.ACCEPT,
      );
    }
    const last = (await sourceSnapshots.loadChunk(10n, info.format, info.chunks - 1)) as Uint8Array;
    assert.equal(
      (await client.call("applySnapshotChunk", { index: info.chunks - 1, chunk: last, sender: "peer-a" })).result,
      Apply.REJECT_SNAPSHOT,
    );
    assert.equal((await client.call("info", {})).lastBlockHeight, 0n);
  });

  test("chunks whose hashes match but whose bytes are not format 1 are refused, the state untouched", async () => {
    const garbage = [new Uint8Array([9, 1, 2, 3]), new Uint8Array([4, 5, 6])];
    const hashes = garbage.map((c) => new Uint8Array(createHash("sha256").update(c).digest()));
    const bogus = { height: 10n, format: 1, chunks: 2, hash: new Uint8Array(32), metadata: encodeMetadata(hashes) };
    assert.equal(
      (await client.call("offerSnapshot", { snapshot: bogus, appHash: new Uint8Array(32) })).result,
      Offer.ACCEPT,
    );
    const results = [];
    for (const [index, chunk] of garbage.entries()) {
      const r = await client.call("applySnapshotChunk", { index, chunk, sender: "peer-x" });
      results.push(r.result);
      if (r.result === Apply.REJECT_SNAPSHOT) break;
    }
    assert.equal(results.at(-1), Apply.REJECT_SNAPSHOT);
    assert.equal((await client.call("info", {})).lastBlockHeight, 0n);
  });

  test("a corrupted chunk is refetched and its sender rejected; the restore then lands on the trusted app hash", async () => {
    const trusted = (await source.view(10n)).appHash as Uint8Array;
    // A restore abandoned half-way (one chunk in, one ahead of its turn) for a new offer of the same snapshot.
    assert.equal(
      (await client.call("offerSnapshot", { snapshot: snapshotMessage(), appHash: trusted })).result,
      Offer.ACCEPT,
    );
    for (const index of [0, 2]) {
      const chunk = (await sourceSnapshots.loadChunk(10n, info.format, index)) as Uint8Array;
      assert.equal((await client.call("applySnapshotChunk", { index, chunk, sender: "peer-a" })).result, Apply.ACCEPT);
    }
    const started = performance.now();
    assert.equal(
      (await client.call("offerSnapshot", { snapshot: snapshotMessage(), appHash: trusted })).result,
      Offer.ACCEPT,
    );
    let applied = 0;
    for (let i = 0; i < info.chunks; i++) {
      const chunk = (await sourceSnapshots.loadChunk(10n, info.format, i)) as Uint8Array;
      if (i === 1) {
        const bad = chunk.slice();
        bad[5] ^= 0xff;
        const refused = await client.call("applySnapshotChunk", { index: 1, chunk: bad, sender: "peer-bad" });
        assert.equal(refused.result, Apply.RETRY);
        assert.deepEqual(refused.refetchChunks, [1]);
        assert.deepEqual(refused.rejectSenders, ["peer-bad"]);
      }
      const ok = await client.call("applySnapshotChunk", { index: i, chunk, sender: "peer-good" });
      assert.equal(ok.result, Apply.ACCEPT);
      applied++;
    }
    console.log(
      `restored height 10 from ${applied} chunks (1 refetched) in ${Math.round(performance.now() - started)} ms`,
    );
    assert.deepEqual(
      target.lastRestore && {
        height: target.lastRestore.height,
        chunks: target.lastRestore.chunks,
        refetched: target.lastRestore.refetched,
      },
      { height: 10n, chunks: info.chunks, refetched: 1 },
    );
    const infoAfter = await client.call("info", {});
    assert.equal(infoAfter.lastBlockHeight, 10n);
    assert.equal(Buffer.from(infoAfter.lastBlockAppHash).toString("hex"), Buffer.from(trusted).toString("hex"));
    // Every key of every store is the source's at 10.
    const restored = await chain.app.store.view();
    const original = await source.view(10n);
    for (const name of chain.moduleManager.storeKeys()) {
      const a: string[] = [];
      const b: string[] = [];
      for await (const [k, v] of restored.store(name).iterate())
        a.push(`${Buffer.from(k).toString("hex")}=${Buffer.from(v).toString("hex")}`);
      for await (const [k, v] of original.store(name).iterate())
        b.push(`${Buffer.from(k).toString("hex")}=${Buffer.from(v).toString("hex")}`);
      assert.deepEqual(a, b, name);
    }
    const below = await client.call("query", { path: "/store/bank/key", data: bytes("balance/1"), height: 9n });
    assert.notEqual(below.code, 0);
    assert.match(below.log, /earliest available height: 10/);
    const at = await client.call("query", { path: "/store/bank/key", data: bytes("balance/1"), height: 10n });
    assert.equal(at.code, 0);
  });
});
