// Signed bank sends per second through FinalizeBlock + Commit on a LevelDB state store (docs/CONTRACT.md §11:
// ≥ 1,500/s). Baseline, measured in the same run: raw secp256k1 signature verifications per second
// with the verifier the node uses (libsecp256k1, or OpenSSL where its addon cannot load); the ratio shows how much of a
// verification's budget the rest of the pipeline costs.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, toBinary } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { sha256, signSecp256k1, verifySecp256k1 } from "../src/crypto/index.ts";
import { MsgSendSchema } from "../src/gen/chain/bank/v1beta1/tx_pb.js";
import { RequestFinalizeBlockSchema } from "../src/gen/tendermint/abci/types_pb.js";
import { openMultiStore } from "../src/store/index.ts";
import { createTestApp, packAny, signTx, testKey } from "../src/testing/app.ts";
import { type BenchRow, opsPerSecond } from "./harness.ts";

const SENDERS = 250;
const BLOCKS = 6;
const TARGET = 1500;

/** Runs the benchmark and returns its row. */
export async function run(): Promise<BenchRow[]> {
  const dir = await mkdtemp(join(tmpdir(), "chaind-bench-send-"));
  try {
    const senders = Array.from({ length: SENDERS }, (_, i) => testKey(`bench-sender-${i}`));
    const recipient = testKey("bench-recipient");
    const balances = Object.fromEntries(senders.map((k) => [k.bech32, [{ denom: "stake", amount: 10n ** 12n }]]));
    const t = await createTestApp({
      balances,
      openStore: (o) => openMultiStore({ path: dir, storeNames: o.storeNames, upgrades: o.upgrades }),
    });
    await t.nextBlock();
    // Account numbers follow genesis order (0..SENDERS-1).
    const blocks: Uint8Array[][] = [];
    for (let b = 0; b < BLOCKS; b++) {
      blocks.push(
        senders.map((key, i) =>
          signTx({
            key,
            chainId: t.chainId,
            accountNumber: BigInt(i),
            sequence: BigInt(b),
            fee: [{ denom: "stake", amount: 200n }],
            messages: [
              packAny(
                MsgSendSchema,
                create(MsgSendSchema, {
                  fromAddress: key.bech32,
                  toAddress: recipient.bech32,
                  amount: [{ denom: "stake", amount: "1" }],
                }),
              ),
            ],
          }),
        ),
      );
    }

    // The first block warms caches (keys, JIT); measure the rest.
    let height = t.app.lastBlockHeight();
    const runBlock = async (txs: Uint8Array[]) => {
      height += 1n;
      const response = await t.app.finalizeBlock(
        create(RequestFinalizeBlockSchema, {
          height,
          time: timestampFromMs(1_700_000_000_000 + Number(height) * 1000),
          txs,
        }),
      );
      for (const result of response.txResults) {
        if (result.code !== 0) throw new Error(`bench tx failed: ${result.log}`);
      }
      await t.app.commit();
    };
    await runBlock(blocks[0]);
    const start = performance.now();
    for (const txs of blocks.slice(1)) await runBlock(txs);
    const seconds = (performance.now() - start) / 1000;
    const sendsPerSecond = ((BLOCKS - 1) * SENDERS) / seconds;
    await t.app.close();

    const message = toBinary(MsgSendSchema, create(MsgSendSchema, { fromAddress: senders[0].bech32 }));
    const signature = signSecp256k1(senders[0].privateKey, message);
    const digestCheck = sha256(message);
    const verifies = await opsPerSecond(() => {
      if (!verifySecp256k1(senders[0].publicKey, message, signature) || digestCheck.length !== 32) {
        throw new Error("baseline verification failed");
      }
    }, 1000);

    return [
      {
        name: "signed bank sends (FinalizeBlock + Commit, LevelDB)",
        value: sendsPerSecond,
        baseline: verifies,
        unit: "tx/s",
        target: `>= ${TARGET} tx/s (baseline: raw secp256k1 verifies/s, with the verifier the node uses)`,
        met: sendsPerSecond >= TARGET,
        ratio: sendsPerSecond / verifies,
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
