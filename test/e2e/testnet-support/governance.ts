// Scheduling an upgrade by governance on a testnet so that no step races the clock on a crowded machine: the CLI
// proposal, every validator's yes vote, and an upgrade height that is still ahead when the proposal passes.
//
// Two things are bounded by time rather than by a condition, and each is handled here. (1) A vote counts only
// inside the voting period, which starts with the proposal's block. Deriving a validator's key from its mnemonic
// and signing cost seconds when the CPU is shared with many processes, so every vote is signed before the proposal
// is submitted; what must fit into the period is only the broadcast and a block or two. (2) The plan's height must
// still be ahead when the proposal passes, in the first block whose time reaches the period's end. A chain that
// speeds up after its block time was measured fits more blocks into the period than the measurement says; but
// CometBFT waits timeout_commit after each commit, so the period holds at most period / timeout_commit blocks
// (plus two) however fast the chain gets.
import { latestHeight, type Testnet, type TestnetNode, waitForHeight } from "../../../scripts/testnet/index.ts";
import { broadcastSigned, cliTx, type IncludedTx, restGet, signVoteYes, waitForTx } from "./chain-client.ts";

/** The gov voting period and CometBFT's timeout_commit a testnet was started with. */
export interface GovernanceTiming {
  votingPeriodSeconds: number;
  timeoutCommitMs: number;
}

/** Milliseconds per block, measured over a few blocks on `node`. */
export async function blockTimeMs(net: Testnet, node: TestnetNode, blocks = 4): Promise<number> {
  const from = await latestHeight(node);
  const started = Date.now();
  await waitForHeight(net, from + blocks, { nodes: [node] });
  return (Date.now() - started) / blocks;
}

/**
 * The height for an upgrade proposed at height `current`: room for the proposal to reach a block (`submitSeconds`
 * at the measured `perBlockMs`, at least 10 blocks), then for the most blocks the voting period can hold.
 */
export function upgradeHeightAfterVote(
  current: number,
  perBlockMs: number,
  timing: GovernanceTiming,
  submitSeconds = 25,
): number {
  const submitBlocks = Math.max(10, Math.ceil((submitSeconds * 1000) / perBlockMs));
  const votingBlocks = Math.ceil((timing.votingPeriodSeconds * 1000) / timing.timeoutCommitMs) + 2;
  return current + submitBlocks + votingBlocks;
}

/** A proposal's status as `node`'s REST gateway reports it, e.g. `PROPOSAL_STATUS_VOTING_PERIOD`. */
export async function proposalStatus(node: TestnetNode, id: bigint): Promise<string> {
  const { status, body } = await restGet(node, `/chain/gov/v1/proposals/${id}`);
  if (status !== 200) throw new Error(`proposal ${id}: ${status} ${JSON.stringify(body)}`);
  return (body as { proposal: { status: string } }).proposal.status;
}

/** What {@link proposeUpgradeAndVote} proposes. */
export interface UpgradeProposal {
  /** The id the chain gives the proposal (proposals are numbered from 1). */
  proposalId: bigint;
  name: string;
  height: number;
  title: string;
  summary: string;
}

/**
 * Proposes the software upgrade with the chaind CLI from `proposer` and has every validator vote yes. The votes are
 * signed first (CosmJS, each validator's keyring mnemonic; the proposer's for the sequence after its proposal tx)
 * and broadcast together, each through its own node, once the proposal is in a block. Resolves with the proposal
 * tx's and every vote's result; whether the proposal passes is the caller's to wait for.
 */
export async function proposeUpgradeAndVote(
  net: Testnet,
  proposer: TestnetNode,
  proposal: UpgradeProposal,
): Promise<{ proposal: { height: number; code: number; log: string }; votes: IncludedTx[] }> {
  const signed = await Promise.all(
    net.nodes.map((node) => signVoteYes(net, node, proposal.proposalId, { sequenceOffset: node === proposer ? 1 : 0 })),
  );
  const submitted = await cliTx(net, proposer, [
    "upgrade",
    "software-upgrade",
    proposal.name,
    "--title",
    proposal.title,
    "--summary",
    proposal.summary,
    "--deposit",
    "10000000stake",
    "--upgrade-height",
    String(proposal.height),
    "--no-validate",
  ]);
  const included = await waitForTx(proposer, String(submitted.txhash));
  if (included.code !== 0) return { proposal: included, votes: [] };
  return { proposal: included, votes: await Promise.all(signed.map((tx) => broadcastSigned(tx))) };
}
