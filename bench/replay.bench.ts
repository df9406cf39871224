// Replay speed (issue 19; issue 38 goal 4: ≥ 2× live, on a chain with an upgrade in its history): blocks per
// second that `chaind replay` re-executes from another home's block store with the release line, against live block
// execution of the same blocks — the embedded engine producing them (propose, process, finalize, sign, save,
// commit) with timeout_commit 0 — measured in the same run on the same machine.
// The chain: a dev chain whose governance passes the upgrade `v2` for height H; v1 runs to the halt at H, v2 (the
// halt-and-switch path) carries on. Live is timed from the engine's new-block events over two stretches that meet
// at H: v1 restarted at full pace up to H − 1, then v2 from H (the upgrade's block) for 2 × BLOCKS blocks; each
// stretch starts with 300 bank sends (signed beforehand) broadcast to the node, so their CheckTx and their blocks
// are in it: posted one at a time from this process (bench/raw-http-poster.ts, the e2e bench's cheap client), each
// CheckTx waiting for the block in progress, so most blocks of a stretch carry a send. The halt and the restart
// between the two are not. Replay: the v2 line from genesis, timed over the same heights, the in-process
// switch to v2 at H included.
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { referenceChain } from "../chain/app.ts";
import { v1, v2 } from "../chain/releases.ts";
import { openKeyring } from "../src/client/keyring/index.ts";
import { packAny, signTx } from "../src/client/tx/index.ts";
import { homePaths, loadGenesis, saveGenesis, setTomlValues } from "../src/config/index.ts";
import { MsgSendSchema } from "../src/gen/chain/bank/v1beta1/tx_pb.js";
import { DEV_CHAIN, type DevHome, prepareDevHome } from "../src/node/dev-chain.ts";
import { createNodeLogger } from "../src/node/logger.ts";
import { type RunningNode, startNode } from "../src/node/start-node.ts";
import { openChainSwitchingApp } from "../src/replay/chain-line.ts";
import { replayHome } from "../src/replay/replay-home.ts";
import type { Release } from "../src/runtime/index.ts";
import { scheduleUpgradeByVote } from "../src/testing/governance.ts";
import { closeVerifyPool } from "../src/x/auth/verify-pool.ts";
import { latestHeight, pollUntil, tempDir, waitForHeight } from "../test/support/node/chaind.ts";
import type { BenchRow } from "./harness.ts";
import { RawHttpPoster } from "./raw-http-poster.ts";

/** Half the blocks timed from H on; before H, those from the restart to the halt (at least BLOCKS). */
const BLOCKS = 100n;
const SENDS_PER_KEY = 100;
/**
 * How far ahead of the vote the plan is: the 2 s voting period at the slow pace (100 ms blocks, ~20 blocks), then
 * the v1 stretch, which must hold every one of its 300 sends before v1 halts at H (each send posted once the
 * previous one's CheckTx answered, a block or so apart when blocks are fast: ~300 heights at most), or the v2
 * stretch's sends, signed for the sequences after them, are refused.
 */
const PLAN_AHEAD = 100n + 3n * BLOCKS;
const logger = createNodeLogger({ level: "silent" });
/** The upgrade entering v2. */
const upgradeName = v2.upgrade?.name as string;

/** A stretch of live blocks: heights `from` (exclusive) to `to`, produced in `ms`. */
interface Stretch {
  from: bigint;
  to: bigint;
  ms: number;
}

/** Runs the benchmark: produce the chain live (through the upgrade), then replay it into a new home. */
export async function run(): Promise<BenchRow[]> {
  const dir = await tempDir("chaind-replay-bench-");
  try {
    const dev = await prepareDevHome({ home: join(dir.path, "source") });
    const paths = homePaths(dev.home);
    const genesis = await loadGenesis(paths.genesis);
    const appState = structuredClone(genesis.appState ?? {}) as { gov: { params: Record<string, unknown> } };
    appState.gov.params.voting_period = "2s";
    appState.gov.params.expedited_voting_period = "1s";
    await saveGenesis(paths.genesis, { ...genesis, appState: appState as never });

    // The vote at a slow pace (100 ms blocks), so the plan's height is reached well after the voting period ends.
    // The sends of both stretches are signed then, so broadcasting them at full pace takes few blocks.
    await setTimeoutCommit(dev.home, "100ms");
    const { upgradeHeight, sends } = await withNode(dev.home, v1, async (node) => {
      const rpc = node.endpoints.rpc as string;
      const rest = node.endpoints.rest as string;
      await waitForHeight(rpc, 2n);
      const validator = dev.keys.find((key) => key.name === "validator")?.address as string;
      const height = (await latestHeight(rpc)) + PLAN_AHEAD;
      await scheduleUpgradeByVote({
        rpc,
        rest,
        home: dev.home,
        chainId: DEV_CHAIN.chainId,
        keyName: "validator",
        address: validator,
        name: upgradeName,
        height,
      });
      await pollUntil(
        async () => {
          const answer = (await (await fetch(`${rest}/chain/upgrade/v1beta1/current_plan`)).json()) as {
            plan?: { name: string } | null;
          };
          return answer.plan?.name === upgradeName ? true : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 100, what: "the upgrade plan to pass" },
      );
      return { upgradeHeight: height, sends: await signSends(rest, dev, 2) };
    });

    // Live, at full pace: v1's blocks up to the halt at H, then v2's (the halt-and-switch path) after it.
    await setTimeoutCommit(dev.home, "0s");
    const before = await withNode(dev.home, v1, async (node) => {
      const stretch = timeBlocks(node, () => upgradeHeight - 1n);
      await broadcast(node, sends[0] as Uint8Array[]);
      const timed = await stretch;
      const exit = await node.done;
      if (exit.reason !== "app-halt")
        throw new Error(`v1 stopped (${exit.reason}) instead of halting at ${upgradeHeight}`);
      return timed;
    });
    if (before.to - before.from < BLOCKS) {
      throw new Error(`only ${before.to - before.from} v1 blocks timed before the plan: the vote took too long`);
    }
    const after = await withNode(dev.home, v2, async (node) => {
      const stretch = timeBlocks(node, (from) => from + 2n * BLOCKS);
      await broadcast(node, sends[1] as Uint8Array[]);
      return stretch;
    });
    const liveBlocks = Number(before.to - before.from + (after.to - after.from));
    const liveRate = (liveBlocks * 1000) / (before.ms + after.ms);

    // The replay runs from genesis; its rate is taken over the heights timed live.
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
        at.set(p.height, p.elapsedMs);
      },
    });
    // The stretches meet at H − 1 unless the v2 node made a block before its stretch began: each is taken alone.
    const replayedIn = (stretch: Stretch) => (at.get(stretch.to) ?? 0) - (at.get(stretch.from) ?? 0);
    const replayRate = (liveBlocks * 1000) / (replayedIn(before) + replayedIn(after));
    return [
      {
        name: `chaind replay (v2 line, switching in process at the upgrade H=${upgradeHeight}) vs live execution (v1 to the halt at H, v2 from H) of the same ${liveBlocks} blocks, 600 bank sends among them`,
        value: replayRate,
        baseline: liveRate,
        unit: "blocks/s",
        // No SPEC figure: replay does the live path's execution and commit, minus proposing, signing and the
        // per-height disk syncs (it flushes every 100 heights).
        target: ">= 2x live",
        met: replayRate >= 2 * liveRate,
      },
    ];
  } finally {
    await closeVerifyPool();
    await rm(dir.path, { recursive: true, force: true });
  }
}

async function setTimeoutCommit(home: string, value: string): Promise<void> {
  const configToml = homePaths(home).configToml;
  await writeFile(configToml, setTomlValues(await readFile(configToml, "utf8"), { "consensus.timeout_commit": value }));
}

/** Starts `release` on `home`, runs `work`, and waits for the node to stop (by itself at a halt, or stopped). */
async function withNode<T>(home: string, release: Release, work: (node: RunningNode) => Promise<T>): Promise<T> {
  const node = await startNode({
    home,
    logger,
    chain: referenceChain,
    release,
    overrides: { rpcLaddr: "tcp://127.0.0.1:0", apiAddress: "tcp://127.0.0.1:0", grpcAddress: "127.0.0.1:0" },
  });
  try {
    return await work(node);
  } finally {
    await node.stop();
  }
}

/** Times the blocks from the one after the latest up to height `to(latest)`, from the engine's new-block events. */
async function timeBlocks(node: RunningNode, to: (from: bigint) => bigint): Promise<Stretch> {
  const engine = node.embedded?.engine;
  if (engine === undefined) throw new Error("the bench needs the embedded engine");
  const from = engine.store.height;
  const last = to(from);
  const started = performance.now();
  await new Promise<void>((resolve) => {
    const unsubscribe = engine.onNewBlock((event) => {
      if (event.block.header.height < last) return;
      unsubscribe();
      resolve();
    });
  });
  return { from, to: last, ms: performance.now() - started };
}

/** `rounds` sets of SENDS_PER_KEY bank sends from each dev key, signed with the sequences in order. */
async function signSends(rest: string, dev: DevHome, rounds: number): Promise<Uint8Array[][]> {
  const keyring = openKeyring({ home: dev.home, backend: "test" });
  const recipient = dev.keys[dev.keys.length - 1] as { address: string };
  const out: Uint8Array[][] = Array.from({ length: rounds }, () => []);
  for (const key of dev.keys) {
    const signer = await keyring.signer(key.name);
    const address = key.address;
    const account = (await (await fetch(`${rest}/chain/auth/v1beta1/accounts/${address}`)).json()) as {
      account: { account_number: string; sequence: string };
    };
    for (let i = 0; i < rounds * SENDS_PER_KEY; i++) {
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
      out[Math.floor(i / SENDS_PER_KEY)]?.push(signed.txBytes);
    }
  }
  return out;
}

/** Broadcasts signed txs (`broadcast_tx_sync`, over one keep-alive connection, requests built up front); each must pass CheckTx. */
async function broadcast(node: RunningNode, txs: Uint8Array[]): Promise<void> {
  const requests = txs.map((tx, id) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "broadcast_tx_sync",
      params: { tx: Buffer.from(tx).toString("base64") },
    }),
  );
  const poster = await RawHttpPoster.open(new URL(node.endpoints.rpc as string));
  try {
    const built = requests.map((body) => poster.request(body));
    for (const request of built) {
      const answer = JSON.parse(await poster.send(request)) as {
        result?: { code: number; log: string };
        error?: { message: string };
      };
      if (answer.result?.code !== 0) {
        throw new Error(`bench send rejected: ${answer.result?.log ?? answer.error?.message ?? "no answer"}`);
      }
    }
  } finally {
    poster.close();
  }
}
