// What the upgrade tests read from a running test chain, from outside: the upgrade module's answers over REST, raw
// store contents through the consensus RPC's abci_query, balances, and the chain's pace (to pick plan heights).
// Also the fixtures both upgrade test files set their chains up with.
import assert from "node:assert/strict";
import { join } from "node:path";
import { type ChainHome, DENOM, type GenesisNote } from "./chain-home.ts";
import { abciQuery, restGet, waitForHeight } from "./node-api.ts";
import { type ManagedProcess, startProcess, tail } from "./processes.ts";
import { PROJECT } from "./project-build.ts";
import { NODE } from "./releases.ts";

/**
 * Gov deposit and voting periods of the test chains. A vote is a CLI process (start, query the
 * account, sign, broadcast, wait for inclusion) that takes many seconds on a busy 2-core machine,
 * so the period leaves room for it: 30 s (it was 4 s, and a vote once landed after a 20 s period).
 */
export const GOV_PERIOD = "30s";
export const GOV_PERIOD_MS = 30_000;
/**
 * Block interval of the test chains. Plan heights are counted at this pace (see heightAfter), so a
 * longer interval means fewer blocks to wait for when the machine is busy and blocks come late.
 */
export const TIMEOUT_COMMIT = "1s";
/** The fastest the chain can go: one block per timeout_commit. */
export const TIMEOUT_COMMIT_MS = 1_000;
/** Per-test bound for the tests that wait for a plan height (node's test runner default is 10 min). */
export const UPGRADE_TEST_TIMEOUT_MS = 1_800_000;
/** How long a proposal may take to pass: its voting period plus generous room for a slow machine. */
export const PROPOSAL_WAIT_MS = 2 * GOV_PERIOD_MS + 120_000;

/** A generous bound for the chain to make `blocks` more blocks on a busy machine (3 s a block, plus a minute). */
export function blocksWaitMs(blocks: bigint | number): number {
  return Number(blocks) * 3_000 + 60_000;
}
/** The stored form of a plan's deprecated time (docs/CONTRACT.md §2.1). */
export const PLAN_TIME = "0001-01-01T00:00:00Z";

/** Genesis notes of the `notes` module: store `notes_v1` in v1, renamed `notes` by v2. */
export const NOTES: GenesisNote[] = [
  { key: "greeting", value: "hello from v1" },
  { key: "motto", value: "upgrade without drama" },
  { key: "zeta", value: "last key" },
];
/** Genesis notes of the `legacy` module, whose store v2 deletes. */
export const LEGACY: GenesisNote[] = [{ key: "old", value: "to be deleted by v2" }];

const encoder = new TextEncoder();

/** Waits until the chain has produced a few blocks (generously bounded for a busy machine). */
export async function waitForBlocks(chain: ChainHome): Promise<void> {
  await waitForHeight(chain.rpcUrl, 3, blocksWaitMs(3) + 60_000);
}

/**
 * A height at least `seconds` of block production after `from`, counted at the fastest pace the
 * chain can keep (one block per timeout_commit): on a slower (busy) machine the height only comes
 * later, so whatever must happen before it (a proposal passing, a restart) has at least `seconds`.
 * Measuring the pace instead breaks when the machine is busy while measuring and idle afterwards.
 */
export function heightAfter(from: bigint, seconds: number): bigint {
  return from + BigInt(Math.ceil((seconds * 1000) / TIMEOUT_COMMIT_MS));
}

/** Starts `chaind start --home <home> [args]` from the source tree as `release`. */
export function startSourceNode(chain: ChainHome, release: string, args: string[] = []): ManagedProcess {
  return startProcess(
    `chaind ${release}`,
    NODE,
    [join(PROJECT, "chain", "cmd", "chaind.mjs"), "start", "--home", chain.home, ...args],
    { cwd: PROJECT, env: { ...process.env, CHAIND_RELEASE: release } },
  );
}

/** For `waitForHeight`'s abortIf: says why waiting is pointless once the process has exited. */
export function stillRunning(process: ManagedProcess): () => string | undefined {
  return () => (process.hasExited() ? `${process.name} exited; its output:\n${tail(process.output())}` : undefined);
}

/** `GET /chain/upgrade/v1beta1/current_plan` (at `height`, latest if absent) → the `plan` field. */
export async function restPlan(chain: ChainHome, height?: bigint): Promise<{ name: string; height: string } | null> {
  const answer = await restGet(chain.apiUrl, "/chain/upgrade/v1beta1/current_plan", height);
  assert.equal(answer.status, 200, answer.text);
  return (answer.body as { plan: { name: string; height: string } | null }).plan;
}

/** `GET /chain/upgrade/v1beta1/applied_plan/{name}` → the height string. */
export async function restAppliedHeight(chain: ChainHome, name: string): Promise<string> {
  const answer = await restGet(chain.apiUrl, `/chain/upgrade/v1beta1/applied_plan/${name}`);
  assert.equal(answer.status, 200, answer.text);
  return (answer.body as { height: string }).height;
}

/** Module name → version from `GET /chain/upgrade/v1beta1/module_versions` at `height` (latest if absent). */
export async function restModuleVersions(chain: ChainHome, height?: bigint): Promise<Record<string, string>> {
  const answer = await restGet(chain.apiUrl, "/chain/upgrade/v1beta1/module_versions", height);
  assert.equal(answer.status, 200, answer.text);
  if (height !== undefined) assert.equal(answer.headers.get("x-chain-block-height"), String(height));
  const list = (answer.body as { module_versions: { name: string; version: string }[] }).module_versions;
  return Object.fromEntries(list.map((m) => [m.name, m.version]));
}

/** The stake balance of `address` at `height` (latest if absent), over REST. */
export async function stakeBalance(chain: ChainHome, address: string, height?: bigint): Promise<string> {
  const answer = await restGet(chain.apiUrl, `/chain/bank/v1beta1/balances/${address}/by_denom?denom=${DENOM}`, height);
  assert.equal(answer.status, 200, answer.text);
  return (answer.body as { balance: { amount: string } }).balance.amount;
}

/** The raw value of `key` in store `store` via abci_query `/store/<store>/key`, at `height` (0 = latest). */
export function storeValue(chain: ChainHome, store: string, key: string, height = 0n) {
  return abciQuery(chain.rpcUrl, `/store/${store}/key`, encoder.encode(key), height);
}

/**
 * The number of keys in `store` at `height`: abci_query `/store/<store>/subspace` for each of the 256 one-byte
 * prefixes (an empty prefix is refused, as upstream's: `query cannot be zero length`), 16 at a time.
 */
export async function keyCount(chain: ChainHome, store: string, height: bigint): Promise<number> {
  let total = 0;
  for (let first = 0; first < 256; first += 16) {
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        abciQuery(chain.rpcUrl, `/store/${store}/subspace`, Uint8Array.of(first + i), height),
      ),
    );
    for (const answer of answers) {
      assert.equal(answer.code, 0, answer.log);
      total += countKvPairs(answer.value ?? new Uint8Array());
    }
  }
  return total;
}

/** Counts the `pairs` (field 1) of an encoded KVPairs message. */
function countKvPairs(bytes: Uint8Array): number {
  let count = 0;
  let offset = 0;
  const varint = (): number => {
    let value = 0;
    let shift = 0;
    for (;;) {
      if (offset >= bytes.length) throw new Error("truncated KVPairs: a varint runs past the end");
      const byte = bytes[offset++] ?? 0;
      value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return value;
      shift += 7;
    }
  };
  while (offset < bytes.length) {
    const tag = varint();
    if ((tag & 7) !== 2) throw new Error(`unexpected wire type ${tag & 7} in KVPairs`);
    const length = varint();
    if (tag >>> 3 === 1) count++;
    offset += length;
  }
  return count;
}
