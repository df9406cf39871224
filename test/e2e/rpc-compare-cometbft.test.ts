// One chain run two ways — `chaind start --abci` behind a real CometBFT v0.38 node, and `chaind start` with the
// embedded engine, from the same genesis and validator key — with the same txs driven through both; then every
// consensus RPC method of docs/CONTRACT.md §5 (URI GET and JSON-RPC POST, good and bad parameters) and the same
// WebSocket session (subscriptions, their errors, the NewBlock/NewBlockHeader/NewBlockEvents/Tx events of a block with
// a tx) go to both and the JSON shapes must agree (scripts/rpc-compare.ts; `node scripts/rpc-compare.ts` prints the
// whole list). The known, documented departures (docs/COMPATIBILITY.md rows 16 and 18) are listed below and nothing
// else may differ. Also: a `/store/<name>/key` proof relayed by each verifies against that engine's next header's app
// hash. Skipped, with the reason printed, without cometbft.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  type ComparisonRow,
  compareAll,
  compareEvents,
  compareSimulate,
  driveTxs,
  type Endpoint,
  type Pair,
  PRUNING_APP_TOML,
  startPair,
  stopPair,
} from "../../scripts/rpc-compare.ts";
import { waitUntil } from "../../scripts/testnet/index.ts";
import { addressFromBech32 } from "../../src/crypto/bech32.ts";
import { verifyStoreProof } from "../../src/store/index.ts";
import { testnetSkipReason } from "./testnet-support/requirements.ts";

const skip = await testnetSkipReason("RPC comparison with CometBFT");

/** Departures we keep on purpose: the request (by name) and the difference line they may show. */
const KNOWN: { request: RegExp; difference: RegExp; why: string }[] = [
  {
    request: /^(status|POST params null)$/,
    difference: /^\$\.result\.node_info\.version: /,
    why: "`0.38.25-chaind` (COMPATIBILITY row 18)",
  },
  {
    // Go's and our own parsers word their failures differently; the code, message and HTTP status agree.
    request:
      /bad data|bad height|hash not hex|POST (not JSON|batch of a number|object id|body a string|params a string|too many positional params)|tx_search (bad|no) query|ws subscribe (bad|no) query/,
    difference: /^\$\.error\.data: text /,
    why: "parser error wording",
  },
  {
    // int64 as a JSON number and bool as a string are accepted (COMPATIBILITY row 16); CometBFT refuses them.
    request: /height as number|prove as string/,
    // (With pruning, the accepted height 1 meets the pruned-height error instead.)
    difference: /^\$: embedded (lacks error|adds result)$|^\$\.error\.(code|message|data): /,
    why: "lenient parameters",
  },
  { request: /^GET root$/, difference: /^\$: text /, why: "the endpoint list page's HTML" },
  // Beyond docs/CONTRACT.md §5's list: no p2p listener in the embedded engine, and consensus_params is not served
  // (COMPATIBILITY row 16).
  { request: /^net_info$/, difference: /^\$\.result\.listeners: /, why: "no p2p listener" },
  { request: /^consensus_params$/, difference: /./, why: "consensus_params not served" },
];

function unexpected(rows: ComparisonRow[]): string[] {
  const out: string[] = [];
  for (const row of rows) {
    for (const difference of row.differences) {
      if (KNOWN.some((k) => k.request.test(row.name) && k.difference.test(difference))) continue;
      out.push(`${row.form} ${row.name}: ${difference}`);
    }
  }
  return out;
}

async function rpc(endpoint: Endpoint, path: string): Promise<Record<string, unknown>> {
  const body = (await (await fetch(`${endpoint.rpcUrl}${path}`)).json()) as { result?: Record<string, unknown> };
  assert.ok(body.result !== undefined, `${endpoint.label} ${path}: ${JSON.stringify(body)}`);
  return body.result;
}

/** Queries the sender's balance with prove=true at `height` and checks the proof against header(height+1). */
async function assertProofVerifies(endpoint: Endpoint, address: string, height: bigint): Promise<void> {
  const account = addressFromBech32(address);
  const key = new Uint8Array([0x02, account.length, ...account, ...Buffer.from("stake")]);
  const result = await rpc(
    endpoint,
    `/abci_query?path="/store/bank/key"&data=0x${Buffer.from(key).toString("hex")}&prove=true&height=${height}`,
  );
  const response = result.response as {
    code: number;
    value: string;
    height: string;
    proofOps: { ops: { type: string; key: string; data: string }[] };
  };
  assert.equal(response.code, 0);
  assert.equal(response.height, height.toString());
  const header = (await rpc(endpoint, `/header?height=${height + 1n}`)).header as { app_hash: string };
  const b64 = (text: string) => new Uint8Array(Buffer.from(text, "base64"));
  const ops = response.proofOps.ops.map((op) => ({ type: op.type, key: b64(op.key), data: b64(op.data) }));
  assert.ok(
    verifyStoreProof(
      { storeName: "bank", key, value: b64(response.value), version: height, ops },
      new Uint8Array(Buffer.from(header.app_hash, "hex")),
    ),
    `${endpoint.label}: the proof at ${height} verifies against header ${height + 1n}'s app hash`,
  );
}

test("the embedded engine's consensus RPC answers in CometBFT v0.38's shapes", { skip, timeout: 180_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), "rpc-compare-"));
  let pair: Pair | undefined;
  try {
    pair = await startPair(dir);
    const facts = await driveTxs(pair);
    const rows = [
      ...facts.rows,
      ...(await compareSimulate(pair)),
      ...(await compareAll(pair, facts)),
      ...(await compareEvents(pair)),
    ];
    assert.ok(rows.length > 190, `${rows.length} comparisons`);
    assert.deepEqual(unexpected(rows), [], "no shape differences beyond the known departures");
    for (const known of KNOWN) {
      assert.ok(
        rows.some((r) => known.request.test(r.name)),
        `the known departure (${known.why}) still names a request`,
      );
    }
    for (const [endpoint, chain] of [
      [pair.comet, facts.comet],
      [pair.embedded, facts.embedded],
    ] as const) {
      await assertProofVerifies(endpoint, chain.address, BigInt(chain.txHeight));
    }
  } finally {
    if (pair !== undefined) await stopPair(pair);
    await rm(dir, { recursive: true, force: true });
  }
});

// Both pruning: state (pruning = custom) and blocks (min-retain-blocks with a 5-block evidence window, so Commit's
// retain height lets them go): requests at pruned heights answer alike.
test("pruned state and blocks answer as CometBFT's", { skip, timeout: 180_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), "rpc-compare-pruned-"));
  let pair: Pair | undefined;
  try {
    pair = await startPair(dir, () => {}, PRUNING_APP_TOML);
    const facts = await driveTxs(pair);
    for (const endpoint of [pair.comet, pair.embedded]) {
      await waitUntil(`${endpoint.label} past a state pruning run`, async () =>
        BigInt(((await rpc(endpoint, "/status")).sync_info as { latest_block_height: string }).latest_block_height) >=
        25n
          ? true
          : undefined,
      );
    }
    const rows = await compareAll(pair, facts);
    assert.deepEqual(unexpected(rows), [], "no shape differences beyond the known departures");
    const block1 = rows.find((r) => r.name === "block height 1" && r.form === "get");
    assert.match(JSON.stringify(block1?.embedded.body), /height 1 is not available, lowest height is \d+/);
  } finally {
    if (pair !== undefined) await stopPair(pair);
    await rm(dir, { recursive: true, force: true });
  }
});
