// The block interval of the 4-validator testnet behind real CometBFT v0.38 (scripts/testnet, as `npm run testnet`
// starts it: `timeout_commit` 300 ms) with vote extensions on from height 1 against the same testnet with them off
// (genesis `abci.vote_extensions_enable_height` 0). This is the figure issue 31 names first: with extensions on,
// every precommit carries a signed extension that CometBFT gossips and verifies, every proposer puts the extended
// commit into its block and all four nodes check it. Skipped, with the reason, when cometbft is not installed.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findCometbft, latestHeight, startTestnet, stopTestnet, type Testnet } from "../scripts/testnet/index.ts";
import { COMETBFT_INSTALL_HINT } from "../scripts/testnet/types.ts";
import { cpuSecondsOf } from "./bench-node.ts";

/** One round of one side: milliseconds per block (wall) and the CPU milliseconds per block of the four chaind and
 * the four CometBFT processes. */
export interface TestnetRound {
  intervalMs: number;
  chaindCpuMs: number;
  cometbftCpuMs: number;
}

/** The CPU seconds the `kind` processes of `net` have used so far. */
function cpuSecondsOfAll(net: Testnet, kind: "chaind" | "cometbft"): number {
  let total = 0;
  for (const node of net.nodes) {
    const proc = node[kind];
    if (proc !== undefined) total += cpuSecondsOf(proc.pid);
  }
  return total;
}

async function waitForHeightOf(net: Testnet, height: number): Promise<void> {
  while ((await latestHeight(net.nodes[0])) < height) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Two set-up testnets, one with vote extensions and one without, started and stopped round by round. */
export class VoteExtensionTestnets {
  private readonly root: string;
  private readonly dirs: { on: string; off: string };

  private constructor(root: string) {
    this.root = root;
    this.dirs = { on: join(root, "on"), off: join(root, "off") };
  }

  /** The reason the testnet figure cannot be measured here, or undefined when it can. */
  static skipReason(): string | undefined {
    return findCometbft() === undefined
      ? `cometbft is not installed (install it with ${COMETBFT_INSTALL_HINT})`
      : undefined;
  }

  static async create(): Promise<VoteExtensionTestnets> {
    const root = await mkdtemp(join(tmpdir(), "chaind-bench-ve-testnet-"));
    return new VoteExtensionTestnets(root);
  }

  /**
   * Starts the side's testnet (set up on its first start, carried on from its stored height after), waits for a few
   * blocks of warm-up, then times `blocks` blocks on node 0 and stops it.
   */
  async round(voteExtensions: boolean, blocks: number): Promise<TestnetRound> {
    const net = await startTestnet({
      dir: voteExtensions ? this.dirs.on : this.dirs.off,
      minHeight: 2,
      cometLogLevel: "error",
      // `chaind init` turns extensions on from height 1; the side without them turns them off in the genesis.
      editGenesis: voteExtensions
        ? undefined
        : (genesis) => {
            const params = genesis.consensus_params as Record<string, unknown>;
            params.abci = { vote_extensions_enable_height: "0" };
          },
    });
    try {
      const start = (await latestHeight(net.nodes[0])) + 3;
      await waitForHeightOf(net, start);
      const began = performance.now();
      const chaindBefore = cpuSecondsOfAll(net, "chaind");
      const cometbftBefore = cpuSecondsOfAll(net, "cometbft");
      await waitForHeightOf(net, start + blocks);
      return {
        intervalMs: (performance.now() - began) / blocks,
        chaindCpuMs: ((cpuSecondsOfAll(net, "chaind") - chaindBefore) * 1000) / blocks,
        cometbftCpuMs: ((cpuSecondsOfAll(net, "cometbft") - cometbftBefore) * 1000) / blocks,
      };
    } finally {
      await stopTestnet(net);
    }
  }

  async remove(): Promise<void> {
    await rm(this.root, { recursive: true, force: true });
  }
}
