import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { ClassicLevel } from "classic-level";
import { makeTestChain, saveTestBlocks, type TestChain } from "../../test/support/engine/fixtures.ts";
import { EventSchema, ExecTxResultSchema, ResponseFinalizeBlockSchema } from "../gen/tendermint/abci/types_pb.js";
import { emptyCommit, makeBlock } from "./block-execution.ts";
import { encodeBlockMeta } from "./block-records.ts";
import { type BlockStore, BlockStoreError } from "./block-store.ts";
import { encodeCommit } from "./hashing/encode.ts";
import { txHash } from "./hashing/hashes.ts";
import { PrivValidator } from "./priv-validator.ts";
import type { EngineState } from "./state.ts";
import { fromStoreJson, toStoreJson } from "./store-json.ts";
import { parseTxQuery, TxQueryError } from "./tx-query.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

const chains: TestChain[] = [];
after(async () => {
  for (const c of chains) await c.cleanup();
});

function resultFor(tx: string, height: bigint) {
  const [key, value] = tx.split("=");
  return create(ExecTxResultSchema, {
    code: key === "bad" ? 5 : 0,
    gasUsed: 10n,
    events: [
      create(EventSchema, {
        type: "transfer",
        attributes: [
          { key: "recipient", value: `chain1${key}`, index: true },
          { key: "amount", value: String(Number(value) * 10), index: true },
          { key: "memo", value: "hidden", index: false },
        ],
      }),
      create(EventSchema, { type: "message", attributes: [{ key: "sender", value: `s${height % 2n}`, index: true }] }),
      // Txs "ca" and "cb" carry (type, key) pairs that join to the same composite key "x.y.z".
      ...(key === "ca"
        ? [create(EventSchema, { type: "x.y", attributes: [{ key: "z", value: "v", index: true }] })]
        : []),
      ...(key === "cb"
        ? [create(EventSchema, { type: "x", attributes: [{ key: "y.z", value: "v", index: true }] })]
        : []),
    ],
  });
}

/** Saves heights 1..blocks.length into the store, each with the given txs, and returns the states. */
function fill(store: BlockStore, chain: TestChain, blocks: string[][]): Promise<EngineState> {
  const dec = (b: Uint8Array) => new TextDecoder().decode(b);
  return saveTestBlocks(
    store,
    chain,
    blocks.map((txs) => txs.map(enc)),
    (txs, height) =>
      create(ResponseFinalizeBlockSchema, {
        txResults: txs.map((t) => resultFor(dec(t), height)),
        appHash: new Uint8Array(32).fill(Number(height)),
      }),
    { signatureFill: 9 },
  );
}

/**
 * Fills a store with 40 empty blocks, then prunes them one by one while four readers run `read`
 * (given the height being pruned) over and over until that prune has committed; `check` looks at the
 * store after each prune.
 */
async function raceReadsWithPrunes(
  read: (store: BlockStore, base: bigint) => Promise<void>,
  check?: (store: BlockStore, base: bigint) => void,
): Promise<void> {
  const chain = await makeTestChain();
  chains.push(chain);
  const store = await chain.openStore();
  await fill(
    store,
    chain,
    Array.from({ length: 40 }, () => []),
  );
  while (store.base < 39n) {
    const base = store.base;
    let pruned = false;
    const reader = async () => {
      while (!pruned) await read(store, base);
    };
    const readers = [reader(), reader(), reader(), reader()];
    assert.equal(await store.prune(base + 1n), 1n);
    pruned = true;
    await Promise.all(readers);
    check?.(store, base);
  }
  await store.close();
}

describe("block store", () => {
  it("the earliest block's meta read racing a prune is always found, at the base it names", async () => {
    // Status reads the base and then its meta: a prune deleting that height in between left the
    // earliest hash empty (seen in rpc-compare's pruned run beside two CPU loops).
    await raceReadsWithPrunes(async (store, base) => {
      const earliest = await store.earliestMeta();
      assert.ok(earliest !== undefined, `the earliest meta while height ${base} was pruned`);
      assert.equal(earliest.meta.header.height, earliest.height);
    });
  });

  it("reads racing a prune see a block whole or not at all, and never call the store damaged", async () => {
    // A read that saw a block but not its meta (deleted in between) used to record damage, and /health
    // failed from then on.
    await raceReadsWithPrunes(
      async (store, base) => {
        const read = await store.block(base);
        if (read !== undefined) assert.equal(read.block.header.height, base);
      },
      (store, base) => assert.equal(store.damaged, undefined, `after pruning height ${base}`),
    );
  });

  it("prunes below a retain height: blocks and their records go, the tx index stays, the base survives a reopen", async () => {
    const chain = await makeTestChain();
    chains.push(chain);
    let store = await chain.openStore();
    await fill(store, chain, [["a=1"], ["b=2"], ["c=3"], [], []]);
    const id2 = (await store.blockMeta(2n))!.blockId.hash;
    assert.equal(await store.prune(1n), 0n, "nothing below the base");
    assert.equal(await store.prune(3n), 2n);
    assert.equal(store.base, 3n);
    for (const h of [1n, 2n]) {
      assert.equal(await store.block(h), undefined);
      assert.equal(await store.blockMeta(h), undefined);
      assert.equal(await store.results(h), undefined);
      assert.equal(await store.seenCommit(h), undefined);
      assert.equal(await store.validatorsAt(h), undefined);
    }
    assert.equal(await store.heightOfHash(id2), undefined);
    assert.equal((await store.block(3n))?.block.header.height, 3n);
    const tx = await store.tx(txHash(enc("a=1")));
    assert.equal(tx?.height, 1n, "the tx index keeps pruned txs, as CometBFT's");
    assert.equal(await store.prune(99n), 2n, "never the latest height: 3 and 4 go, 5 stays");
    assert.equal(store.base, 5n);
    await store.verifyRecent();
    await store.close();
    store = await chain.openStore();
    assert.equal(store.base, 5n);
    assert.equal(store.height, 5n);
    await store.verifyRecent();
  });

  it("round-trips blocks, metas, commits, results and validator sets, across a reopen", async () => {
    const chain = await makeTestChain();
    chains.push(chain);
    let store = await chain.openStore();
    assert.equal(store.height, 0n);
    assert.equal(store.state, undefined);
    const state = await fill(store, chain, [["a=1", "b=2"], [], ["c=3"]]);
    await store.close();
    store = await chain.openStore();
    assert.equal(store.height, 3n);
    assert.equal(store.base, 1n);
    assert.deepEqual(store.state, state);
    const b1 = await store.block(1n);
    assert.ok(b1);
    assert.deepEqual(
      b1.block.txs.map((t) => new TextDecoder().decode(t)),
      ["a=1", "b=2"],
    );
    const meta = await store.blockMeta(1n);
    assert.equal(meta?.numTxs, 2n);
    assert.equal(meta?.blockSize, BigInt(b1.size));
    assert.deepEqual(meta?.header, b1.block.header);
    assert.equal(await store.heightOfHash(b1.blockId.hash), 1n);
    const b3 = await store.block(3n);
    assert.deepEqual(b3?.block.lastCommit, await store.seenCommit(2n), "block 3 carries the seen commit of 2");
    assert.equal(hex((await store.results(3n))?.appHash ?? new Uint8Array()), "03".repeat(32));
    assert.equal((await store.validatorsAt(2n))?.length, 1);
    assert.equal(await store.block(4n), undefined);
    // Each tx's result is stored once encoded, inside the block's results and its own tx record.
    const results1 = await store.results(1n);
    assert.ok(results1);
    assert.deepEqual(
      toBinary(ResponseFinalizeBlockSchema, results1),
      toBinary(
        ResponseFinalizeBlockSchema,
        create(ResponseFinalizeBlockSchema, {
          txResults: [resultFor("a=1", 1n), resultFor("b=2", 1n)],
          appHash: new Uint8Array(32).fill(1),
        }),
      ),
    );
    const tx = await store.tx(txHash(enc("c=3")));
    assert.deepEqual([tx?.height, tx?.index, new TextDecoder().decode(tx?.tx)], [3n, 0, "c=3"]);
    assert.ok(tx?.result);
    assert.deepEqual(toBinary(ExecTxResultSchema, tx.result), toBinary(ExecTxResultSchema, resultFor("c=3", 3n)));
    assert.deepEqual((await store.tx(txHash(enc("b=2"))))?.index, 1);
    assert.equal(await store.tx(txHash(enc("nope"))), undefined);
    await store.close();
  });

  it("reads blocks and commits in plain byte arrays, which the engine state stores as a live node's", async () => {
    const chain = await makeTestChain();
    chains.push(chain);
    let store = await chain.openStore();
    await fill(store, chain, [["a=1"], ["b=2"]]);
    await store.close();
    store = await chain.openStore();
    const stored = await store.block(2n);
    const seenCommit = await store.seenCommit(2n);
    assert.ok(stored);
    // LevelDB hands back Buffers, which JSON.stringify writes as {"type":"Buffer",…} before the store's replacer
    // sees them: a replay's engine state is made of these ids and must be stored as a live node's is.
    for (const bytes of [stored.blockId.hash, stored.block.header.appHash, seenCommit?.signatures[0].signature]) {
      assert.equal(Object.getPrototypeOf(bytes), Uint8Array.prototype);
    }
    const json = toStoreJson({ lastBlockId: stored.blockId, time: stored.block.header.time });
    assert.doesNotMatch(json, /Buffer/);
    assert.deepEqual(fromStoreJson(json), { lastBlockId: stored.blockId, time: stored.block.header.time });
    await store.close();
  });

  it("reads a block with its seen commit in one read, as the two reads give them", async () => {
    const chain = await makeTestChain();
    chains.push(chain);
    const store = await chain.openStore();
    await fill(store, chain, [["a=1"], ["b=2"]]);
    const { stored, seenCommit, seenCommitBytes } = await store.blockAndSeenCommit(2n);
    assert.deepEqual({ stored, seenCommit }, { stored: await store.block(2n), seenCommit: await store.seenCommit(2n) });
    // The bytes a replay saves as they are: the ones the store wrote for them.
    assert.ok(stored?.metaBytes && seenCommit && seenCommitBytes);
    assert.deepEqual(
      new Uint8Array(stored.metaBytes),
      encodeBlockMeta({
        blockId: stored.blockId,
        blockSize: BigInt(stored.size),
        header: stored.block.header,
        numTxs: 1n,
      }),
    );
    assert.deepEqual(new Uint8Array(seenCommitBytes), encodeCommit(seenCommit));
    assert.deepEqual(await store.blockAndSeenCommit(3n), {
      stored: undefined,
      seenCommit: undefined,
      seenCommitBytes: undefined,
    });
    await store.close();
  });

  it("refuses out-of-order heights and result counts that do not match the block", async () => {
    const chain = await makeTestChain();
    chains.push(chain);
    const store = await chain.openStore();
    await fill(store, chain, [["a=1"]]);
    const pv = PrivValidator.fromSeed(chain.seed);
    const state = store.state as EngineState;
    const { block, blockId, blockBytes } = makeBlock(
      state,
      [enc("x=1")],
      emptyCommit(),
      state.lastBlockTime,
      pv.address,
    );
    const results = create(ResponseFinalizeBlockSchema, { txResults: [] });
    await assert.rejects(
      store.saveHeight({
        block,
        blockBytes,
        blockId,
        seenCommit: emptyCommit(),
        results,
        validators: [],
        state: { ...state, lastBlockHeight: 2n },
      }),
      (e: unknown) =>
        e instanceof BlockStoreError && /block 2 has 1 txs but FinalizeBlock returned 0 results/.test(e.message),
    );
    const skipped = { ...block, header: { ...block.header, height: 5n } };
    await assert.rejects(
      store.saveHeight({
        block: skipped,
        blockBytes,
        blockId,
        seenCommit: emptyCommit(),
        results,
        validators: [],
        state,
      }),
      { message: "cannot save height 5: the next height to save is 2" },
    );
    assert.equal(store.height, 1n);
    await store.close();
  });

  it("leaves a block's extended-commit tx (its first) out of the tx index, and keeps the user txs at their positions", async () => {
    const chain = await makeTestChain();
    chains.push(chain);
    const store = await chain.openStore();
    // The marker's bytes (src/app/extended-commit.ts) then anything: what PrepareProposal puts first.
    const extended = "\0chaind/extended-commit/v1\0commit";
    await fill(store, chain, [["a=1"], [extended, "b=2"], [`x${extended}`]]);
    const search = async (q: string) => {
      const r = await store.searchTxs(parseTxQuery(q), { page: 1, perPage: 30, descending: false });
      return { total: r.totalCount, txs: r.txs.map((t) => `${t.height}/${t.index}`) };
    };
    assert.deepEqual(await search("tx.height=2"), { total: 1, txs: ["2/1"] });
    assert.equal(await store.tx(txHash(enc(extended))), undefined);
    assert.equal((await store.tx(txHash(enc("b=2"))))?.index, 1);
    assert.deepEqual(await search("transfer.amount EXISTS"), { total: 3, txs: ["1/0", "2/1", "3/0"] });
    // Only a first tx that starts with the marker is left out.
    assert.deepEqual(await search("tx.height=3"), { total: 1, txs: ["3/0"] });
    assert.equal((await store.block(2n))?.block.txs.length, 2, "the block itself keeps both");
    await store.close();
  });

  it("answers tx_search queries through its indexes", async () => {
    const chain = await makeTestChain();
    chains.push(chain);
    const store = await chain.openStore();
    await fill(store, chain, [["a=1", "b=2"], ["c=3"], ["bad=4", "a=5"], [], ["d=6"]]);
    const search = async (q: string, page = 1, perPage = 30, descending = false) => {
      const r = await store.searchTxs(parseTxQuery(q), { page, perPage, descending });
      return { total: r.totalCount, txs: r.txs.map((t) => `${t.height}/${t.index}`) };
    };
    assert.deepEqual(await search("tx.height=3"), { total: 2, txs: ["3/0", "3/1"] });
    assert.deepEqual(await search("tx.height >= 2 AND tx.height < 5"), { total: 3, txs: ["2/0", "3/0", "3/1"] });
    assert.deepEqual(await search(`tx.hash='${hex(txHash(enc("c=3"))).toUpperCase()}'`), { total: 1, txs: ["2/0"] });
    assert.deepEqual(await search("transfer.recipient='chain1a'"), { total: 2, txs: ["1/0", "3/1"] });
    assert.deepEqual(await search("transfer.recipient='chain1a' AND tx.height=3"), { total: 1, txs: ["3/1"] });
    assert.deepEqual(await search("message.sender='s1' AND transfer.amount > 20"), {
      total: 3,
      txs: ["3/0", "3/1", "5/0"],
    });
    assert.deepEqual(await search("transfer.recipient CONTAINS 'chain1b'"), { total: 2, txs: ["1/1", "3/0"] });
    assert.deepEqual(await search("transfer.amount EXISTS", 2, 2), { total: 6, txs: ["2/0", "3/0"] });
    assert.deepEqual(await search("transfer.amount EXISTS", 1, 2, true), { total: 6, txs: ["5/0", "3/1"] });
    assert.deepEqual(
      await search("transfer.memo='hidden'"),
      { total: 0, txs: [] },
      "non-indexed attributes are not searchable",
    );
    assert.deepEqual(await search("nothing.here='x'"), { total: 0, txs: [] });
    const failed = await store.searchTxs(parseTxQuery("transfer.recipient='chain1bad'"), {
      page: 1,
      perPage: 30,
      descending: false,
    });
    assert.equal(failed.txs[0]?.result?.code, 5, "failed txs are indexed too");
    await store.close();
  });
});

describe("block store event index layouts", () => {
  it("writes one entry per distinct attribute value and block, and still reads entries of the earlier layout", async () => {
    const chain = await makeTestChain();
    chains.push(chain);
    let store = await chain.openStore();
    await fill(store, chain, [["a=1", "b=2", "a=1x"], ["c=3"]]);
    await store.close();
    const db = new ClassicLevel<Uint8Array, Uint8Array>(chain.blocksDb, { keyEncoding: "view", valueEncoding: "view" });
    await db.open();
    const entries: [string, string][] = [];
    for await (const [k, v] of db.iterator({ gte: Uint8Array.of(0x65), lt: Uint8Array.of(0x66) })) {
      entries.push([Buffer.from(k).toString("latin1"), hex(v)]);
    }
    // Height 1: message.sender=s1 for all three txs, transfer.recipient=chain1a for txs 0 and 2 (one entry each).
    const height1 = `${"\0".repeat(7)}\x01`;
    const of = (ck: string, value: string) =>
      entries.filter(([k]) => k.includes(ck) && k.includes(`${value}${height1}`));
    assert.deepEqual(
      of("message.sender", "s1").map(([, v]) => v),
      ["000000000000000100000002"],
    );
    assert.deepEqual(
      of("transfer.recipient", "chain1a").map(([, v]) => v),
      ["0000000000000002"],
    );
    // An entry as stores wrote them before (… ‖ value ‖ height ‖ index → empty) for a tx of height 2.
    const ck = Buffer.from("transfer.recipient");
    const value = Buffer.from("chain1old");
    const u32 = (n: number) => Buffer.from([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);
    const oldKey = Buffer.concat([
      Buffer.of(0x65),
      u32(ck.length),
      ck,
      u32(value.length),
      value,
      Buffer.alloc(7),
      Buffer.of(2),
      u32(0),
    ]);
    await db.put(oldKey, new Uint8Array(0));
    await db.close();
    store = await chain.openStore();
    const found = async (q: string) =>
      (await store.searchTxs(parseTxQuery(q), { page: 1, perPage: 30, descending: false })).txs.map(
        (t) => `${t.height}/${t.index}`,
      );
    assert.deepEqual(await found("transfer.recipient='chain1old'"), ["2/0"]);
    assert.deepEqual(await found("transfer.recipient CONTAINS 'chain1'"), ["1/0", "1/1", "1/2", "2/0"]);
    assert.deepEqual(await found("message.sender='s1'"), ["1/0", "1/1", "1/2"]);
    await store.close();
  });

  it("merges the postings of (type, key) pairs that join to the same composite key", async () => {
    const chain = await makeTestChain();
    chains.push(chain);
    const store = await chain.openStore();
    await fill(store, chain, [["cb=1", "a=2", "ca=3", "cb=4"]]);
    const found = (await store.searchTxs(parseTxQuery("x.y.z='v'"), { page: 1, perPage: 30, descending: false })).txs;
    assert.deepEqual(
      found.map((t) => `${t.height}/${t.index}`),
      ["1/0", "1/2", "1/3"],
    );
    await store.close();
  });
});

describe("tx query parser", () => {
  it("parses conditions, operands and AND", () => {
    assert.deepEqual(parseTxQuery("tx.height=5"), [
      { key: "tx.height", op: "=", operand: { kind: "number", value: 5, integer: 5n }, text: "tx.height = 5" },
    ]);
    const q = parseTxQuery(
      "message.sender = 'chain1x' AND tx.height>=7 AND a.b EXISTS AND t.x > TIME 2024-01-02T03:04:05Z",
    );
    assert.deepEqual(
      q.map((c) => c.op),
      ["=", ">=", "EXISTS", ">"],
    );
    assert.equal(q[3].operand?.kind, "time");
  });

  it("reports what was expected where", () => {
    const cases: [string, RegExp][] = [
      ["", /expected at least one condition/],
      ["tx.height", /offset 9: expected an operator/],
      ["tx.height=", /expected a 'quoted string', a number, TIME or DATE/],
      ["a.b='x", /expected a closing quote/],
      ["a.b='x' OR c.d='y'", /expected AND or the end of the query/],
      ["tx.height=5 AND", /offset 15: expected a condition after AND/],
      ["tx.height=5 AND ", /offset 16: expected a key such as tx.height/],
      ["a.b CONTAINS 5", /expected a quoted string after CONTAINS/],
      ["a.b > DATE 2024-13-01", /expected a date like 2024-01-31/],
    ];
    for (const [text, re] of cases)
      assert.throws(
        () => parseTxQuery(text),
        (e: unknown) => e instanceof TxQueryError && re.test(e.message),
        text,
      );
  });
});
