import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { makeTestChain, saveTestBlocks, type TestChain } from "../../../test/support/engine/fixtures.ts";
import { BlockStore } from "../../engine/block-store.ts";
import { RequestFinalizeBlockSchema, ResponseFinalizeBlockSchema } from "../../gen/tendermint/abci/types_pb.js";
import { openSourceBlocks, type SourceBlocks } from "./source-blocks.ts";

const chains: TestChain[] = [];
const dirs: string[] = [];
after(async () => {
  for (const c of chains) await c.cleanup();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A closed block store of `count` heights, one tx each. */
async function sourceStore(count: number): Promise<TestChain> {
  const chain = await makeTestChain();
  chains.push(chain);
  const store = await chain.openStore();
  const blocks = Array.from({ length: count }, (_, i) => [Buffer.from(`tx${i}`)]);
  await saveTestBlocks(
    store,
    chain,
    blocks,
    (_txs, height) =>
      create(ResponseFinalizeBlockSchema, {
        txResults: [{ code: 0 }],
        appHash: new Uint8Array(32).fill(Number(height)),
      }),
    { nanos: 7 },
  );
  await store.close();
  return chain;
}

function fingerprint(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .map((name) => {
      const stat = statSync(join(dir, name));
      return `${name} ${stat.size} ${stat.mtimeMs} ${createHash("sha256")
        .update(readFileSync(join(dir, name)))
        .digest("hex")}`;
    });
}

/** Everything the rehearsal can ask of the source, encoded to compare. */
async function readAll(source: SourceBlocks, top: number): Promise<string[]> {
  const out = [`tip ${source.tip}`];
  for (let h = 0n; h <= BigInt(top) + 1n; h++) {
    const request = await source.request(h);
    const results = await source.results(h);
    out.push(
      `${h} ${request === undefined ? "-" : Buffer.from(toBinary(RequestFinalizeBlockSchema, request)).toString("hex")} ${results === undefined ? "-" : Buffer.from(toBinary(ResponseFinalizeBlockSchema, results)).toString("hex")}`,
    );
  }
  return out;
}

describe("openSourceBlocks", () => {
  it("reads a store at rest from its files: what a copy opened through LevelDB reads, and nothing written", async () => {
    const chain = await sourceStore(6);
    const work = mkdtempSync(join(tmpdir(), "chaind-source-blocks-"));
    dirs.push(work);
    const before = fingerprint(chain.blocksDb);
    const source = await openSourceBlocks(chain.blocksDb, work);
    assert.deepEqual(readdirSync(work), [], "no copy made");
    const read = await readAll(source, 6);
    await source.close();
    assert.deepEqual(fingerprint(chain.blocksDb), before, "the source is as it was");
    assert.equal(read[0], "tip 6");
    assert.equal(read.filter((line) => line.includes(" - -")).length, 2, "heights 0 and 7 are not held, 1-6 are");

    // The same reads through the copy the rehearsal used to make (the store held open here, so it must copy).
    const held = await BlockStore.open(chain.blocksDb, { createIfMissing: false });
    try {
      const copied = await openSourceBlocks(chain.blocksDb, work);
      assert.deepEqual(readdirSync(work), ["source-blocks.db"], "a store in use is copied");
      assert.deepEqual(await readAll(copied, 6), read);
      await copied.close();
      assert.deepEqual(readdirSync(work), [], "and the copy removed");
    } finally {
      await held.close();
    }
  });

  it("reads a store its file reader refuses (a damaged log record) from a copy, as before", async () => {
    const chain = await sourceStore(4);
    const log = readdirSync(chain.blocksDb).find((name) => name.endsWith(".log")) as string;
    const path = join(chain.blocksDb, log);
    const bytes = readFileSync(path);
    const damaged = Buffer.from(bytes);
    damaged[bytes.length - 20] ^= 0xff; // in the last height's batch: LevelDB drops that record
    writeFileSync(path, damaged);
    const work = mkdtempSync(join(tmpdir(), "chaind-source-blocks-"));
    dirs.push(work);
    const source = await openSourceBlocks(chain.blocksDb, work);
    assert.deepEqual(readdirSync(work), ["source-blocks.db"], "read from a copy");
    assert.equal(source.tip, 3n, "LevelDB's recovery dropped the damaged record: height 4 is not there");
    await source.close();
    assert.deepEqual(readdirSync(work), []);
    assert.deepEqual(readFileSync(path), damaged, "the source is as it was");
  });
});
