// `--block FILE`: CometBFT's /block answer read as block H+1, and the one-line errors for a file that is not one.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { defineChain } from "../../runtime/release.ts";
import { readCometBlock } from "./comet-block.ts";
import { RehearsalError } from "./errors.ts";

const answer = {
  jsonrpc: "2.0",
  id: -1,
  result: {
    block_id: { hash: "AB".repeat(32), parts: { total: 1, hash: "CD".repeat(32) } },
    block: {
      header: { height: "100", time: "2026-11-29T11:40:00.123456789Z", proposer_address: "0A".repeat(20) },
      data: { txs: [Buffer.from("first").toString("base64"), Buffer.from("second").toString("base64")] },
    },
  },
};

async function withFile(content: string, run: (file: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "comet-block-"));
  try {
    await writeFile(join(dir, "block.json"), content);
    await run(join(dir, "block.json"));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test("the /block answer (whole or its result) becomes block H+1 with its time, proposer, hash and txs", async () => {
  for (const content of [answer, answer.result]) {
    await withFile(JSON.stringify(content), async (file) => {
      const block = await readCometBlock(file, 100n);
      assert.equal(block.height, 100n);
      assert.deepEqual(
        [block.time?.seconds, block.time?.nanos],
        [BigInt(Date.UTC(2026, 10, 29, 11, 40) / 1000), 123456789],
      );
      assert.equal(Buffer.from(block.proposerAddress).toString("hex"), "0a".repeat(20));
      assert.equal(Buffer.from(block.hash).toString("hex"), "ab".repeat(32));
      assert.deepEqual(
        block.txs.map((tx) => Buffer.from(tx).toString()),
        ["first", "second"],
      );
    });
  }
});

test("a file that is not block H+1 is refused with one line saying what was expected", async () => {
  const cases: [string, RegExp][] = [
    ["not json", /not JSON; expected CometBFT's \/block answer for height 100$/],
    [JSON.stringify({ result: {} }), /no block\.header; expected/],
    [
      JSON.stringify({
        ...answer.result,
        block: { ...answer.result.block, header: { ...answer.result.block.header, height: "99" } },
      }),
      /is block 99, but the upgrade runs in block 100/,
    ],
    [
      JSON.stringify({
        ...answer.result,
        block: { ...answer.result.block, header: { ...answer.result.block.header, time: "yesterday" } },
      }),
      /block\.header\.time is not an RFC 3339 time/,
    ],
    [
      JSON.stringify({ ...answer.result, block: { ...answer.result.block, data: { txs: ["%%"] } } }),
      /block\.data\.txs is not a list of base64 transactions/,
    ],
  ];
  for (const [content, message] of cases) {
    await withFile(content, async (file) => {
      await assert.rejects(readCometBlock(file, 100n), (err: unknown) => {
        assert.ok(err instanceof RehearsalError);
        assert.match(err.message, message);
        assert.doesNotMatch(err.message, /\n/);
        return true;
      });
    });
  }
  await assert.rejects(
    readCometBlock("/nonexistent/block.json", 100n),
    /--block \/nonexistent\/block\.json: cannot read it/,
  );
});

test("--block gives block H+1 whole: with --follow, --block-time or --proposer it is refused before anything is read", async () => {
  const { rehearseUpgrade } = await import("./rehearse.ts");
  // A chain whose v2 performs "v2": the flags are refused before the upgrade could run.
  const chain = defineChain({
    name: "flags",
    releases: [
      { name: "v1", version: "1.0.0", modules: () => [] },
      {
        name: "v2",
        version: "2.0.0",
        upgradesFrom: ["v1"],
        modules: () => [],
        upgrade: { name: "v2", handler: async (_c, _p, vm) => vm },
      },
    ],
  });
  const others = [{ follow: 2 }, { blockTime: { seconds: 1n, nanos: 0 } }, { proposer: new Uint8Array(20) }];
  for (const other of others) {
    await assert.rejects(
      rehearseUpgrade({ home: "/nonexistent-home", name: "v2", chain, blockFile: "/nonexistent/block.json", ...other }),
      (err: unknown) => {
        assert.ok(err instanceof RehearsalError, String(err));
        assert.equal(err.message, "--block gives block H+1 whole: it excludes --follow, --block-time and --proposer");
        return true;
      },
    );
  }
});
