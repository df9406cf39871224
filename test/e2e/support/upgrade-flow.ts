// The governance steps of an upgrade, with the operator's commands (docs/CONTRACT.md §8): submit a software-upgrade (or a
// cancel) proposal, vote yes with the validator, and watch the proposal through the REST gateway until it passes.
import assert from "node:assert/strict";
import { type ChaindBinary, type ChainHome, chaind, DENOM } from "./chain-home.ts";
import { restGet, sleep } from "./node-api.ts";
import type { CommandResult } from "./processes.ts";

/** The deposit that opens voting at once (gov's default min_deposit). */
export const DEPOSIT = `10000000${DENOM}`;

/** {@link DEPOSIT} in the chain's own denom. */
function depositOf(chain: ChainHome): string {
  return `10000000${chain.denom ?? DENOM}`;
}

/** The flags every tx of the tests carries: the validator signs, waits for inclusion, prints JSON. */
export function txFlags(chain: ChainHome, from = chain.validator.name): string[] {
  return [
    "--from",
    from,
    "--keyring-backend",
    "test",
    "--chain-id",
    chain.chainId,
    "--node",
    chain.nodeFlag,
    "--home",
    chain.home,
    "--gas",
    "600000",
    "--fees",
    `5000${chain.denom ?? DENOM}`,
    "--yes",
    "--wait",
    "-o",
    "json",
  ];
}

/** A submitted proposal: its id and the command's output (stderr holds warnings). */
export interface SubmittedProposal {
  id: bigint;
  result: CommandResult;
}

/** The `proposal_id` attribute of the tx's `submit_proposal` event, from `--wait -o json` output. */
export function proposalIdFrom(result: CommandResult): bigint {
  let response: {
    code?: number;
    raw_log?: string;
    events?: { type: string; attributes: { key: string; value: string }[] }[];
  };
  try {
    response = JSON.parse(result.stdout);
  } catch (cause) {
    throw new Error(`the tx did not print a JSON tx response:\n${result.stdout}\n${result.stderr}`, { cause });
  }
  assert.equal(response.code ?? 0, 0, `the proposal tx failed: ${response.raw_log}`);
  for (const event of response.events ?? []) {
    if (event.type !== "submit_proposal") continue;
    const id = event.attributes.find((a) => a.key === "proposal_id")?.value;
    if (id !== undefined) return BigInt(id);
  }
  throw new Error(`no submit_proposal event with a proposal_id in the tx response:\n${result.stdout}`);
}

/** `chaind tx upgrade software-upgrade <name> --upgrade-height H --upgrade-info <info> ...`; an empty info goes as `--no-validate` and no info. */
export async function submitSoftwareUpgrade(
  binary: ChaindBinary,
  chain: ChainHome,
  plan: { name: string; height: bigint; info: string },
): Promise<SubmittedProposal> {
  const result = await chaind(binary, [
    "tx",
    "upgrade",
    "software-upgrade",
    plan.name,
    "--title",
    `Upgrade to ${plan.name}`,
    "--summary",
    `Switch the chain to release ${plan.name} at height ${plan.height}`,
    "--deposit",
    depositOf(chain),
    "--upgrade-height",
    String(plan.height),
    // Without info there is nothing to validate; the CLI (like upstream's) refuses a blank info unless told not to.
    ...(plan.info === "" ? ["--no-validate"] : ["--upgrade-info", plan.info]),
    ...txFlags(chain),
  ]);
  return { id: proposalIdFrom(result), result };
}

/** `chaind tx upgrade cancel-software-upgrade ...`. */
export async function submitCancelUpgrade(binary: ChaindBinary, chain: ChainHome): Promise<SubmittedProposal> {
  const result = await chaind(binary, [
    "tx",
    "upgrade",
    "cancel-software-upgrade",
    "--title",
    "Cancel the upgrade",
    "--summary",
    "The release is not ready",
    "--deposit",
    depositOf(chain),
    ...txFlags(chain),
  ]);
  return { id: proposalIdFrom(result), result };
}

/** `chaind tx gov vote <id> yes` from the validator. */
export async function voteYes(binary: ChaindBinary, chain: ChainHome, id: bigint): Promise<void> {
  const result = await chaind(binary, ["tx", "gov", "vote", String(id), "yes", ...txFlags(chain)]);
  const response = JSON.parse(result.stdout) as { code?: number; raw_log?: string };
  assert.equal(response.code ?? 0, 0, `the vote failed: ${response.raw_log}`);
}

/** Polls `GET /chain/gov/v1/proposals/{id}` until its status is final; fails unless it is `expected`. */
export async function waitForProposalStatus(
  chain: ChainHome,
  id: bigint,
  expected: "PROPOSAL_STATUS_PASSED" | "PROPOSAL_STATUS_REJECTED" | "PROPOSAL_STATUS_FAILED",
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    const answer = await restGet(chain.apiUrl, `/chain/gov/v1/proposals/${id}`).catch(() => undefined);
    const proposal = (answer?.body as { proposal?: { status?: string; failed_reason?: string } } | undefined)?.proposal;
    last = proposal?.status ?? last;
    if (last === expected) return;
    if (last === "PROPOSAL_STATUS_FAILED" || last === "PROPOSAL_STATUS_REJECTED" || last === "PROPOSAL_STATUS_PASSED") {
      throw new Error(`proposal ${id} ended ${last}, expected ${expected} (${proposal?.failed_reason ?? ""})`);
    }
    await sleep(200);
  }
  throw new Error(`proposal ${id} was still ${last || "unknown"} after ${timeoutMs} ms, expected ${expected}`);
}
