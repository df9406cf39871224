// What upgrade readiness costs a block: the embedded engine's block interval with vote extensions on (every
// precommit extended and signed, every block carrying and checking the previous height's extended commit, every
// validator's signal recorded) against the same dev chain with them off. timeout_commit 0: the interval is the
// node's own work per block. Target ≤ 1.1×.
import { type BenchNode, latestHeight, startBenchNode } from "./bench-node.ts";
import { type BenchRow, quickMode } from "./harness.ts";

const TARGET_RATIO = 1.1;

/** Milliseconds per block over `blocks` blocks, after a few blocks of warm-up. */
async function blockInterval(node: BenchNode, blocks: number): Promise<number> {
  const start = (await latestHeight(node.rpc)) + 3n;
  while ((await latestHeight(node.rpc)) < start) await new Promise((resolve) => setTimeout(resolve, 5));
  const began = performance.now();
  const end = start + BigInt(blocks);
  while ((await latestHeight(node.rpc)) < end) await new Promise((resolve) => setTimeout(resolve, 5));
  return (performance.now() - began) / blocks;
}

async function measure(voteExtensions: boolean, blocks: number): Promise<number> {
  const node = await startBenchNode({ accounts: [], timeoutCommit: "0s", voteExtensions });
  try {
    return await blockInterval(node, blocks);
  } finally {
    await node.stop();
  }
}

/** Runs the benchmark: the same dev chain twice, vote extensions off then on. */
export async function run(): Promise<BenchRow[]> {
  const blocks = quickMode() ? 30 : 150;
  const off = await measure(false, blocks);
  const on = await measure(true, blocks);
  return [
    {
      name: "block interval with vote extensions (embedded engine, timeout_commit 0)",
      value: on,
      baseline: off,
      unit: "ms",
      target: `≤ ${TARGET_RATIO}x without`,
      met: on <= off * TARGET_RATIO,
    },
  ];
}
