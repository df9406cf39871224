// Replay speed (issue 19): blocks per second that `chaind replay` re-executes from another home's block store with
// the release line, against live block execution of the same blocks — the embedded engine producing them (propose,
// process, finalize, sign, save, commit) with timeout_commit 0 — measured in the same run on the same machine.
// The chain: a dev chain with bank sends from three keys in its blocks.
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { referenceChain } from "../chain/app.ts";
import { v1, v2 } from "../chain/releases.ts";
import { openKeyring } from "../src/client/keyring/index.ts";
import { packAny, signTx } from "../src/client/tx/index.ts";
import { homePaths, setTomlValues } from "../src/config/index.ts";
import { MsgSendSchema } from "../src/gen/chain/bank/v1beta1/tx_pb.js";
import { DEV_CHAIN, prepareDevHome } from "../src/node/dev-chain.ts";
import { createNodeLogger } from "../src/node/logger.ts";
import { startNode } from "../src/node/start-node.ts";
import { openChainSwitchingApp } from "../src/replay/chain-line.ts";
import { replayHome } from "../src/replay/replay-home.ts";
import { closeVerifyPool } from "../src/x/auth/verify-pool.ts";
import { latestHeight, rpcCall, tempDir, waitForHeight } from "../test/support/node/chaind.ts";
import type { BenchRow } from "./harness.ts";

const BLOCKS = 200n;
const SENDS_PER_KEY = 100;

/** Runs the benchmark: produce BLOCKS blocks live, then replay them into a new home. */
export async function run(): Promise<BenchRow[]> {
  const dir = await tempDir("chaind-replay-bench-");
  const logger = createNodeLogger({ level: "silent" });
  try {
    const dev = await prepareDevHome({ home: join(dir.path, "source") });
    const paths = homePaths(dev.home);
    await writeFile(
      paths.configToml,
      setTomlValues(await readFile(paths.configToml, "utf8"), { "consensus.timeout_commit": "0s" }),
    );
    const node = await startNode({
      home: dev.home,
      logger,
      chain: referenceChain,
      release: v1,
      overrides: { rpcLaddr: "tcp://127.0.0.1:0", apiAddress: "tcp://127.0.0.1:0", grpcAddress: "127.0.0.1:0" },
    });
    let liveMs: number;
    let live: { from: bigint; to: bigint };
    try {
      const rpc = node.endpoints.rpc as string;
      await waitForHeight(rpc, 2n);
      await broadcastSends(rpc, node.endpoints.rest as string, dev.home, dev.keys);
      const from = await latestHeight(rpc);
      const started = performance.now();
      const to = await waitForHeight(rpc, from + BLOCKS, 600_000);
      liveMs = performance.now() - started;
      live = { from, to };
    } finally {
      await node.stop();
    }
    const liveRate = (Number(live.to - live.from) * 1000) / liveMs;

    // The replay runs from genesis; its rate is taken over the same heights the live figure covers.
    const at = new Map<bigint, number>();
    await replayHome({
      sourceHome: dev.home,
      home: join(dir.path, "replayed"),
      openApp: (home, store) =>
        openChainSwitchingApp({
          chain: referenceChain,
          home,
          chainId: DEV_CHAIN.chainId,
          logger,
          release: v2,
          syncCommits: store.syncCommits,
        }),
      onProgress: (p) => {
        if (p.height === live.from || p.height === live.to) at.set(p.height, p.elapsedMs);
      },
    });
    const replayMs = (at.get(live.to) ?? 0) - (at.get(live.from) ?? 0);
    const replayRate = (Number(live.to - live.from) * 1000) / replayMs;
    return [
      {
        name: `chaind replay (v2 line) vs live execution of the same ${live.to - live.from} blocks with bank sends`,
        value: replayRate,
        baseline: liveRate,
        unit: "blocks/s",
        // No SPEC figure: replay does the live path's execution, saving and commit minus proposing and signing.
        target: ">= 0.8x live",
        met: replayRate >= 0.8 * liveRate,
      },
    ];
  } finally {
    await closeVerifyPool();
    await rm(dir.path, { recursive: true, force: true });
  }
}

/** Queues SENDS_PER_KEY bank sends from each dev key (sequences in order) so the measured blocks carry txs. */
async function broadcastSends(
  rpc: string,
  rest: string,
  home: string,
  keys: readonly { name: string; address: string }[],
): Promise<void> {
  const keyring = openKeyring({ home, backend: "test" });
  const recipient = keys[keys.length - 1] as { address: string };
  for (const key of keys) {
    const signer = await keyring.signer(key.name);
    const address = key.address;
    const account = (await (await fetch(`${rest}/chain/auth/v1beta1/accounts/${address}`)).json()) as {
      account: { account_number: string; sequence: string };
    };
    for (let i = 0; i < SENDS_PER_KEY; i++) {
      const signed = await signTx({
        messages: [
          packAny(
            MsgSendSchema,
            create(MsgSendSchema, {
              fromAddress: address,
              toAddress: recipient.address,
              amount: [{ denom: "stake", amount: "1" }],
            }),
          ),
        ],
        fee: { amount: [], gasLimit: 200_000n },
        chainId: DEV_CHAIN.chainId,
        accountNumber: BigInt(account.account.account_number),
        sequence: BigInt(account.account.sequence) + BigInt(i),
        signer,
      });
      const checked = await rpcCall<{ code: number; log: string }>(rpc, "broadcast_tx_sync", {
        tx: Buffer.from(signed.txBytes).toString("base64"),
      });
      if (checked.code !== 0) throw new Error(`bench send rejected: ${checked.log}`);
    }
  }
}
