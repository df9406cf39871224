// Joining a live network with state sync, against real CometBFT v0.38: four validators run v1 under chainvisor,
// upgrade to v2 by governance at H (a multiple of the snapshot interval, so a snapshot is taken in the upgrade
// window), produce more blocks with transactions while taking snapshots every few heights; then a fifth node that
// has only the v2 release and the genesis joins with CometBFT state sync (`[statesync] enable`, two rpc_servers,
// trust_height/trust_hash from a validator), catches up, keeps its app hash equal to the validators' at every
// height it executes (CometBFT stops a node whose app hash differs; the test also compares them itself), and is
// made a validator by MsgCreateValidator; the network then commits with five. Prints how long the join took and
// how many chunks were applied. Skipped, with the reason printed, when cometbft or a chaind command it drives is
// missing.
import assert from "node:assert/strict";
import { copyFile, mkdtemp, readFile, readlink, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { referenceChain } from "../../chain/app.ts";
import {
  abciAnswers,
  allocatePorts,
  endpoints,
  latestHeight,
  type NodePorts,
  rpcResult,
  startCometbft,
  startJoiningNode,
  startTestnet,
  stopTestnet,
  type Testnet,
  type TestnetNode,
  waitForHeight,
  waitUntil,
} from "../../scripts/testnet/index.ts";
import { homePaths } from "../../src/config/home.ts";
import { loadNodeKey } from "../../src/config/node-keys.ts";
import { setTomlValues } from "../../src/config/toml-template.ts";
import { convertAddress } from "../../src/crypto/bech32.ts";
import { loadHomeSnapshot, restoreHomeSnapshot } from "../../src/node/snapshot-home.ts";
import { releaseNamed } from "../../src/runtime/release.ts";
import { SnapshotStore } from "../../src/snapshots/index.ts";
import {
  chaindCli,
  cliTx,
  cometValidatorPowers,
  consensusAddress,
  cosmjsBankSend,
  headerAt,
  restGet,
  validatorSigner,
  waitForTx,
} from "./testnet-support/chain-client.ts";
import {
  type GovernanceTiming,
  proposalStatus,
  proposeUpgradeAndVote,
  upgradeHeightAfterVote,
} from "./testnet-support/governance.ts";
import { SOFTWARE_UPGRADE_COMMAND, TX_FLAGS, testnetSkipReason } from "./testnet-support/requirements.ts";
import { sourceReleaseArchive } from "./testnet-support/source-release.ts";

const skip = await testnetSkipReason("testnet state sync", [
  SOFTWARE_UPGRADE_COMMAND,
  { path: ["tx", "staking", "create-validator"], options: TX_FLAGS },
  { path: ["snapshots", "dump"] },
]);

// Votes are signed before the proposal exists, so the period holds only their broadcast (testnet-support/governance.ts).
const TIMING: GovernanceTiming = { votingPeriodSeconds: 15, timeoutCommitMs: 300 };
const SNAPSHOT_INTERVAL = 5;

/** Restarts each node's CometBFT once its chainvisor runs v2 and answers ABCI (as CometBFT's supervisor would). */
async function superviseCometbft(net: Testnet, until: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const restarted = new Set<TestnetNode>();
  await waitUntil(
    "every node past the upgrade",
    async () => {
      for (const node of net.nodes) {
        if (!node.cometbft?.hasExited()) continue;
        const link = await readlink(join(node.home, "chainvisor", "current")).catch(() => "");
        if (!link.endsWith("v2") || !(await abciAnswers(node.ports.abci).catch(() => false))) continue;
        await startCometbft(net, node);
        restarted.add(node);
      }
      return restarted.size === net.nodes.length && (await until()) ? true : undefined;
    },
    { timeoutMs },
  );
}

test("a fifth node joins by state sync after an upgrade and becomes a validator", {
  skip,
  timeout: 900_000,
}, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "testnet-statesync-"));
  let net: Testnet | undefined;
  try {
    const v1 = await sourceReleaseArchive(join(dir, "releases"), "v1");
    const v2 = await sourceReleaseArchive(join(dir, "releases"), "v2");
    net = await startTestnet({
      dir: join(dir, "net"),
      votingPeriod: `${TIMING.votingPeriodSeconds}s`,
      timeoutCommit: `${TIMING.timeoutCommitMs}ms`,
      chainvisor: {
        genesis: v1,
        upgrades: [{ name: "v2", path: v2 }],
        // Small chunks, so even this small state travels in several chunks fetched from several peers.
        env: { DAEMON_POLL_INTERVAL: "100ms", CHAIND_SNAPSHOT_CHUNK_BYTES: "4096" },
      },
      minHeight: 3,
      log: (line) => t.diagnostic(line),
    });
    const network = net;
    const [proposer] = network.nodes;
    // Snapshots every SNAPSHOT_INTERVAL heights, all kept: the release chainvisor starts at the upgrade reads it.
    for (const node of network.nodes) {
      const file = homePaths(node.home).appToml;
      await writeFile(
        file,
        setTomlValues(await readFile(file, "utf8"), {
          "state-sync.snapshot-interval": BigInt(SNAPSHOT_INTERVAL),
          "state-sync.snapshot-keep-recent": 0n,
        }),
      );
    }

    // The upgrade, at a multiple of the snapshot interval far enough out for the proposal and its votes.
    const from = await latestHeight(proposer);
    const started = Date.now();
    await waitForHeight(network, from + 4, { nodes: [proposer] });
    const perBlock = (Date.now() - started) / 4;
    const earliest = upgradeHeightAfterVote(await latestHeight(proposer), perBlock, TIMING);
    const haltHeight = Math.ceil(earliest / SNAPSHOT_INTERVAL) * SNAPSHOT_INTERVAL;
    t.diagnostic(`~${Math.round(perBlock)} ms per block; upgrade v2 scheduled for ${haltHeight}`);
    const { proposal, votes } = await proposeUpgradeAndVote(network, proposer, {
      proposalId: 1n,
      name: "v2",
      height: haltHeight,
      title: "Upgrade to v2",
      summary: "v2 for every validator",
    });
    assert.equal(proposal.code, 0, proposal.log);
    for (const vote of votes) assert.equal(vote.code, 0, vote.log);
    await waitUntil(
      "the proposal to pass",
      async () => ((await proposalStatus(proposer, 1n)) === "PROPOSAL_STATUS_PASSED" ? true : undefined),
      { timeoutMs: (TIMING.votingPeriodSeconds + 60) * 1000 },
    );
    await superviseCometbft(
      network,
      async () =>
        (await Promise.all(network.nodes.map((n) => latestHeight(n).catch(() => 0)))).every((h) => h >= haltHeight + 2),
      (haltHeight - (await latestHeight(proposer))) * perBlock * 3 + 180_000,
    );
    t.diagnostic(`all four validators run v2 past height ${haltHeight}`);

    // More blocks, with transactions, after the upgrade.
    const sender = await validatorSigner(network.nodes[1]);
    const home = join(dir, "net", "node4");
    await chaindCli(["init", "node4", "--chain-id", network.chainId, "--home", home]);
    const fifthKey = JSON.parse(
      (await chaindCli(["keys", "add", "val4", "--keyring-backend", "test", "--home", home, "--output", "json"]))
        .stdout,
    ) as { address: string; mnemonic: string };
    for (let i = 0; i < 3; i++) {
      const sent = await cosmjsBankSend(network, network.nodes[1], sender, fifthKey.address, 100_000_000n + BigInt(i));
      assert.equal(sent.code, 0, sent.log);
    }
    const joinFrom = Math.ceil(((await latestHeight(proposer)) + 1) / SNAPSHOT_INTERVAL) * SNAPSHOT_INTERVAL;
    await waitForHeight(network, joinFrom + 3);

    // The snapshot of the upgrade height H itself (taken by v2 right after it committed H) restores on a fresh home
    // to the app hash header H+1 carries.
    await t.test("the snapshot taken in the upgrade window restores to the chain's app hash", async () => {
      const store = new SnapshotStore(join(proposer.home, "data", "snapshots"));
      const atH = await store.get(BigInt(haltHeight), 1);
      assert.ok(
        atH !== undefined,
        `a snapshot at ${haltHeight}: ${(await store.list()).map((s) => s.height).join(", ")}`,
      );
      const { stdout } = await chaindCli([
        "snapshots",
        "dump",
        String(haltHeight),
        "1",
        "--home",
        proposer.home,
        "--out",
        join(dir, "h.tar.gz"),
      ]);
      assert.match(stdout, /h\.tar\.gz/);
      const fresh = join(dir, "fresh");
      await chaindCli(["init", "fresh", "--chain-id", network.chainId, "--home", fresh]);
      await copyFile(homePaths(proposer.home).genesis, homePaths(fresh).genesis);
      await loadHomeSnapshot({ home: fresh, archive: join(dir, "h.tar.gz") });
      const restored = await restoreHomeSnapshot({
        home: fresh,
        height: BigInt(haltHeight),
        format: 1,
        chain: referenceChain,
        release: releaseNamed(referenceChain, "v2"),
      });
      const header = await headerAt(proposer, haltHeight + 1);
      assert.equal(Buffer.from(restored.appHash).toString("hex").toUpperCase(), header.appHash);
    });

    // The fifth node: v2 only (the source tree as v2), the genesis, state sync from two validators' RPC.
    await copyFile(homePaths(proposer.home).genesis, homePaths(home).genesis);
    const [ports] = await allocatePorts(1);
    const trustHeight = haltHeight;
    const trustHash = ((await rpcResult(proposer, `/block?height=${trustHeight}`)).block_id as { hash: string }).hash;
    const paths = homePaths(home);
    const peers = network.nodes.map((n) => `${n.nodeId}@127.0.0.1:${n.ports.p2p}`).join(",");
    // Its ports go into its config here, and again if one is taken before its processes bind it (startJoiningNode).
    const writePorts = async (ports: NodePorts) => {
      const loopback = (port: number) => `tcp://127.0.0.1:${port}`;
      await writeFile(
        paths.configToml,
        setTomlValues(await readFile(paths.configToml, "utf8"), {
          moniker: "node4",
          proxy_app: loopback(ports.abci),
          "rpc.laddr": loopback(ports.rpc),
          "rpc.pprof_laddr": "",
          "p2p.laddr": loopback(ports.p2p),
          "p2p.external_address": `127.0.0.1:${ports.p2p}`,
          "p2p.persistent_peers": peers,
          "p2p.addr_book_strict": false,
          "p2p.allow_duplicate_ip": true,
          "p2p.pex": false,
          "consensus.timeout_propose": "1s",
          "consensus.timeout_prevote": "200ms",
          "consensus.timeout_precommit": "200ms",
          "consensus.timeout_commit": "300ms",
          "instrumentation.prometheus": false,
          "statesync.enable": true,
          "statesync.rpc_servers": `http://127.0.0.1:${network.nodes[0].ports.rpc},http://127.0.0.1:${network.nodes[1].ports.rpc}`,
          "statesync.trust_height": BigInt(trustHeight),
          "statesync.trust_hash": trustHash,
          "statesync.discovery_time": "5s",
        }),
      );
      await writeFile(
        paths.appToml,
        setTomlValues(await readFile(paths.appToml, "utf8"), {
          "api.address": loopback(ports.api),
          "grpc.address": `127.0.0.1:${ports.grpc}`,
        }),
      );
    };
    await writePorts(ports);
    const fifth: TestnetNode = {
      index: 4,
      moniker: "node4",
      home,
      nodeId: (await loadNodeKey(paths.nodeKey)).id,
      keyName: "val4",
      address: fifthKey.address,
      operator: convertAddress(fifthKey.address, "acc", "val"),
      mnemonic: fifthKey.mnemonic,
      ports,
      ...endpoints(ports),
    };
    network.nodes.push(fifth);
    const joinStarted = Date.now();
    await startJoiningNode({ ...network, chainvisor: undefined }, fifth, writePorts, { CHAIND_RELEASE: "v2" });
    const target = await latestHeight(proposer);
    await waitUntil(
      "the fifth node to catch up",
      async () => {
        const status = await rpcResult(fifth, "/status");
        const sync = status.sync_info as { latest_block_height: string; catching_up: boolean };
        return !sync.catching_up && Number(sync.latest_block_height) >= target ? true : undefined;
      },
      { timeoutMs: 300_000, watched: [fifth.chaind!, fifth.cometbft!] },
    );
    const joinMs = Date.now() - joinStarted;
    const chaindLog = await readFile(fifth.chaind!.logFile, "utf8");
    const restoredLine = /state restored from a snapshot.*/.exec(chaindLog)?.[0] ?? "";
    const chunks = /chunks[^0-9]{1,4}(\d+)/.exec(restoredLine)?.[1];
    const restoredHeight = /height[^0-9]{1,4}(\d+)/.exec(restoredLine)?.[1];
    assert.ok(
      chunks !== undefined && restoredHeight !== undefined,
      `the fifth's chaind restored a snapshot:\n${chaindLog.slice(-3000)}`,
    );
    console.log(
      `fifth node joined by state sync in ${(joinMs / 1000).toFixed(1)} s: snapshot at height ${restoredHeight}, ${chunks} chunk(s) applied`,
    );
    t.diagnostic(`join took ${joinMs} ms; ${chunks} chunk(s) applied; snapshot height ${restoredHeight}`);
    assert.ok(Number(restoredHeight) >= haltHeight, "the snapshot is from after the upgrade");
    assert.ok(Number(chunks) > 1, "the snapshot travelled in several chunks");

    // From the snapshot height on, the fifth's app hash is the validators': sample its committed app hash against
    // the header that commits to it on a validator.
    const below = await restGet(fifth, `/chain/bank/v1beta1/balances/${fifth.address}`);
    assert.equal(below.status, 200);
    for (let i = 0; i < 5; i++) {
      const info = (await rpcResult(fifth, "/abci_info")).response as {
        last_block_height: string;
        last_block_app_hash: string;
      };
      const h = Number(info.last_block_height);
      await waitForHeight(network, h + 1, { nodes: [proposer] });
      const header = await headerAt(proposer, h + 1);
      assert.equal(
        Buffer.from(info.last_block_app_hash, "base64").toString("hex").toUpperCase(),
        header.appHash,
        `app hash at ${h}`,
      );
      await waitForHeight(network, h + 1, { nodes: [fifth] });
    }
    // CometBFT itself compares the app hash the fifth's chaind returns for every block it executes with the next
    // header's; a mismatch would have stopped it.
    assert.doesNotMatch(
      await readFile(fifth.cometbft!.logFile, "utf8"),
      /wrong Block\.Header\.AppHash|CONSENSUS FAILURE/,
    );
    const pruned = await fetch(`${fifth.apiUrl}/chain/bank/v1beta1/balances/${fifth.address}`, {
      headers: { "x-chain-block-height": String(Number(restoredHeight) - 1) },
    });
    assert.match(JSON.stringify(await pruned.json()), new RegExp(`earliest available height: ${restoredHeight}`));

    // The fifth becomes a validator.
    const pv = JSON.parse(await readFile(paths.privValidatorKey, "utf8")) as { pub_key: { value: string } };
    const validatorJson = join(dir, "validator.json");
    await writeFile(
      validatorJson,
      JSON.stringify({
        pubkey: { "@type": "/chain.crypto.ed25519.PubKey", key: pv.pub_key.value },
        amount: "100000000stake",
        moniker: "node4",
        "commission-rate": "0.1",
        "commission-max-rate": "0.2",
        "commission-max-change-rate": "0.01",
        "min-self-delegation": "1",
      }),
    );
    const created = await cliTx(network, fifth, ["staking", "create-validator", validatorJson]);
    assert.equal((await waitForTx(fifth, String(created.txhash))).code, 0);
    const address = await consensusAddress(fifth);
    await waitUntil("the fifth node in CometBFT's validator set", async () =>
      (await cometValidatorPowers(proposer)).has(address) ? true : undefined,
    );
    const powers = await cometValidatorPowers(proposer);
    assert.equal(powers.size, 5);
    const now = await latestHeight(proposer);
    await waitForHeight(network, now + 5, { timeoutMs: 120_000 });
    const commit = (await rpcResult(proposer, `/commit?height=${now + 4}`)).signed_header as {
      commit: { signatures: { validator_address: string }[] };
    };
    assert.ok(
      commit.commit.signatures.some((s) => s.validator_address === address),
      "the fifth validator signs blocks",
    );
  } finally {
    if (net !== undefined) await stopTestnet(net, { graceMs: 10_000 });
    if (process.env.TESTNET_KEEP === "1") t.diagnostic(`kept ${dir}`);
    else await rm(dir, { recursive: true, force: true });
  }
});
