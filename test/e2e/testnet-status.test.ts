// `chaind status --home` of a home run behind a real CometBFT v0.38 (`chaind start --abci`) once both processes are
// stopped: the blocks are CometBFT's (data/blockstore.db, data/state.db), not the embedded engine's blocks.db, and
// status reads them (read-only) as it reads the embedded engine's. This is what cosmovisor v1.7's height gate asks
// after an upgrade halt, when CometBFT has exited too; an error there would hold the switch back for good.
// Skipped, with the reason printed, when cometbft is missing.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { rpcResult, startTestnet, stopTestnet, type Testnet } from "../../scripts/testnet/index.ts";
import { runChaind } from "../support/node/chaind.ts";
import { testnetSkipReason } from "./testnet-support/requirements.ts";

const skip = await testnetSkipReason("testnet status");

/** Every file under `dir` with a hash of its bytes, to show that nothing changed. */
async function fingerprint(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(
      path,
      createHash("sha256")
        .update(await readFile(path))
        .digest("hex"),
    );
  }
  return files;
}

test("status --home reads a stopped CometBFT home: CometBFT's heights and hashes, the app's committed height", {
  skip,
  timeout: 180_000,
}, async () => {
  const dir = await mkdtemp(join(tmpdir(), "testnet-status-"));
  let net: Testnet | undefined;
  try {
    net = await startTestnet({ dir: join(dir, "net"), validators: 1, minHeight: 3 });
    const node = net.nodes[0];
    const chainId = net.chainId;
    const first = (await rpcResult(node, "/block?height=1")) as { block_id: { hash: string } };
    const live = (await rpcResult(node, "/status")) as {
      node_info: { id: string };
      validator_info: { address: string };
    };
    await stopTestnet(net);
    net = undefined;

    const before = await fingerprint(join(node.home, "data"));
    const run = await runChaind(["status", "--home", node.home]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, "");
    const status = JSON.parse(run.stdout);
    const height = BigInt(status.sync_info.latest_block_height);
    assert.ok(height >= 3n, `height ${height}`);
    // chaind commits each block CometBFT stores before CometBFT moves on; stopped cleanly, the two agree.
    assert.equal(status.sync_info.latest_committed_height, String(height));
    assert.equal(status.sync_info.earliest_block_height, "1");
    assert.equal(status.sync_info.earliest_block_hash, first.block_id.hash);
    assert.match(status.sync_info.latest_block_hash, /^[0-9A-F]{64}$/);
    assert.equal(status.node_info.network, chainId);
    assert.equal(status.node_info.id, live.node_info.id);
    assert.equal(status.validator_info.address, live.validator_info.address);
    assert.equal(status.validator_info.voting_power, "100");
    assert.deepEqual(await fingerprint(join(node.home, "data")), before, "status changed a file of the home");
  } finally {
    if (net !== undefined) await stopTestnet(net);
    await rm(dir, { recursive: true, force: true });
  }
});
