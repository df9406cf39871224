// What upgrade readiness costs a block, with vote extensions on (every precommit extended and signed, every block
// carrying and checking the previous height's extended commit, every validator's signal recorded) against the same
// chain with them off. Target ≤ 1.1×. Two figures: the 4-validator testnet behind real CometBFT (the one issue 31
// names; vote-extensions-testnet.ts), and the embedded engine with timeout_commit 0, where the interval is the
// node's own work per block (the harshest case: nothing else in a block's time hides the extensions' cost).
import { type BenchNode, latestHeight, startBenchNode } from "./bench-node.ts";
import { type BenchRow, loadNow, quickMode } from "./harness.ts";
import { type TestnetRound, VoteExtensionTestnets } from "./vote-extensions-testnet.ts";

const TARGET_RATIO = 1.1;

/** One round's figures: milliseconds per block, and the node's CPU milliseconds per block (all its threads). */
interface Round {
  intervalMs: number;
  cpuMs: number;
}

/** Milliseconds (wall and the node's CPU) per block over `blocks` blocks, after a few blocks of warm-up. */
async function blockInterval(node: BenchNode, blocks: number): Promise<Round> {
  const start = (await latestHeight(node.rpc)) + 3n;
  while ((await latestHeight(node.rpc)) < start) await new Promise((resolve) => setTimeout(resolve, 5));
  const began = performance.now();
  const cpuBefore = node.cpuSeconds();
  const end = start + BigInt(blocks);
  while ((await latestHeight(node.rpc)) < end) await new Promise((resolve) => setTimeout(resolve, 5));
  return {
    intervalMs: (performance.now() - began) / blocks,
    cpuMs: ((node.cpuSeconds() - cpuBefore) * 1000) / blocks,
  };
}

async function measure(voteExtensions: boolean, blocks: number): Promise<Round> {
  const node = await startBenchNode({ accounts: [], timeoutCommit: "0s", voteExtensions });
  try {
    return await blockInterval(node, blocks);
  } finally {
    await node.stop();
  }
}

/** The median of `values`. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * The 4-validator testnet with vote extensions off and on, alternating round by round (each side's testnet set up
 * once and restarted), medians of the rounds.
 */
async function testnetRows(): Promise<BenchRow[]> {
  const name = "block interval with vote extensions (4-validator testnet, real CometBFT, timeout_commit 300 ms";
  const reason = VoteExtensionTestnets.skipReason();
  if (reason !== undefined) {
    return [
      {
        name: `${name})`,
        value: NaN,
        baseline: NaN,
        unit: "",
        target: `≤ ${TARGET_RATIO}x without`,
        met: false,
        skipped: reason,
      },
    ];
  }
  const blocks = quickMode() ? 15 : 40;
  const rounds = quickMode() ? 1 : 3;
  const loadBefore = loadNow();
  const testnets = await VoteExtensionTestnets.create();
  const off: TestnetRound[] = [];
  const on: TestnetRound[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      off.push(await testnets.round(false, blocks));
      on.push(await testnets.round(true, blocks));
    }
  } finally {
    await testnets.remove();
  }
  const load = { before: loadBefore, after: loadNow() };
  const intervalsOf = (side: TestnetRound[]) => side.map((r) => r.intervalMs.toFixed(0)).join("/");
  return [
    intervalRow(`${name}; median of ${rounds} alternating rounds of ${blocks} blocks)`, on, off, load),
    readingRow(
      `CPU per block of the testnet's 4 chaind processes with vote extensions (intervals of the rounds: on ${intervalsOf(on)} ms, off ${intervalsOf(off)} ms)`,
      on.map((r) => r.chaindCpuMs),
      off.map((r) => r.chaindCpuMs),
      load,
    ),
    readingRow(
      "CPU per block of the testnet's 4 CometBFT processes with vote extensions",
      on.map((r) => r.cometbftCpuMs),
      off.map((r) => r.cometbftCpuMs),
      load,
    ),
  ];
}

/** The ≤ 1.1× row of one chain: the median interval of its rounds with vote extensions against without. */
function intervalRow(
  name: string,
  on: { intervalMs: number }[],
  off: { intervalMs: number }[],
  load: BenchRow["load"],
): BenchRow {
  const [withoutMs, withMs] = [median(off.map((r) => r.intervalMs)), median(on.map((r) => r.intervalMs))];
  return {
    name,
    value: withMs,
    baseline: withoutMs,
    unit: "ms",
    target: `≤ ${TARGET_RATIO}x without`,
    met: withMs <= withoutMs * TARGET_RATIO,
    load,
  };
}

/** A figure printed beside an interval row to read it by (CPU depends less on the machine's other load). */
function readingRow(name: string, on: number[], off: number[], load: BenchRow["load"]): BenchRow {
  return {
    name,
    value: median(on),
    baseline: median(off),
    unit: "ms",
    target: "(for reading the one above)",
    met: true,
    load,
  };
}

/**
 * Runs the benchmark: each chain with vote extensions off and on, alternating (off, on, off, on, …) so a change in
 * the machine's other load falls on both sides; each side's figure is the median of its rounds.
 */
export async function run(): Promise<BenchRow[]> {
  // CHAIND_BENCH_VOTE_EXTENSIONS=embedded (or =testnet) runs that part alone: the embedded engine's figure needs no
  // cometbft and takes a minute, the testnet's several.
  const part = process.env.CHAIND_BENCH_VOTE_EXTENSIONS;
  if (part !== undefined && part !== "embedded" && part !== "testnet") {
    throw new Error(`CHAIND_BENCH_VOTE_EXTENSIONS is "embedded" or "testnet", not ${JSON.stringify(part)}`);
  }
  return [...(part === "embedded" ? [] : await testnetRows()), ...(part === "testnet" ? [] : await embeddedRows())];
}

/** The embedded engine's dev chain, timeout_commit 0. */
async function embeddedRows(): Promise<BenchRow[]> {
  // Long rounds: a 5 ms block's interval moves with the machine's noise, so each round spans a few seconds.
  const blocks = quickMode() ? 30 : 300;
  const rounds = quickMode() ? 1 : 5;
  const loadBefore = loadNow();
  const off: Round[] = [];
  const on: Round[] = [];
  for (let round = 0; round < rounds; round++) {
    off.push(await measure(false, blocks));
    on.push(await measure(true, blocks));
  }
  const load = { before: loadBefore, after: loadNow() };
  const intervalsOf = (side: Round[]) => side.map((r) => r.intervalMs.toFixed(2)).join("/");
  return [
    intervalRow(
      `block interval with vote extensions (embedded engine, timeout_commit 0; median of ${rounds} alternating rounds of ${blocks} blocks)`,
      on,
      off,
      load,
    ),
    readingRow(
      `node CPU per block with vote extensions (intervals of the rounds: on ${intervalsOf(on)} ms, off ${intervalsOf(off)} ms)`,
      on.map((r) => r.cpuMs),
      off.map((r) => r.cpuMs),
      load,
    ),
  ];
}
