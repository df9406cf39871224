// Four validators, each a `chaind start --abci` + `cometbft node` pair on one home, started by scripts/testnet.ts
// against the real CometBFT v0.38 binary. One network is carried through the phases in order: identical app hashes
// and a CosmJS send broadcast through CometBFT's RPC, a delegation reaching CometBFT's validator set, a SIGKILLed
// cometbft catching up, and a SIGKILLed chaind recovering through the handshake and replay. Skipped, with the
// reason printed, when cometbft or a chaind command it drives is missing.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  latestHeight,
  logTail,
  startChaind,
  startCometbft,
  startTestnet,
  stopProcess,
  stopTestnet,
  storedHeight,
  type Testnet,
  type TestnetNode,
  waitForHeight,
  waitUntil,
} from "../../scripts/testnet/index.ts";
import { startAbciCut } from "./testnet-support/abci-cut.ts";
import {
  cliTx,
  cometValidatorPowers,
  consensusAddress,
  cosmjsBankSend,
  headerAt,
  headerDifferences,
  newCosmjsSigner,
  restBalance,
  waitForTx,
} from "./testnet-support/chain-client.ts";
import { testnetSkipReason } from "./testnet-support/requirements.ts";

const skip = await testnetSkipReason("testnet validators", [
  { path: ["tx", "staking", "delegate"], options: ["--from", "--node", "--chain-id", "--fees", "--yes"] },
]);

const SENDER_COINS = 100_000_000n;
const FEE = 5_000n;

/** Every node's latest height, lowest first. */
async function heights(net: Testnet): Promise<number[]> {
  return (await Promise.all(net.nodes.map((n) => latestHeight(n)))).sort((a, b) => a - b);
}

/** Asserts every node serves the same headers for `from..to`. */
async function assertSameHeaders(net: Testnet, from: number, to: number): Promise<void> {
  await waitForHeight(net, to);
  assert.deepEqual(await headerDifferences(net.nodes, from, to), [], `headers ${from}..${to} agree on every node`);
}

/** Waits until `node` has reached the height the others had when this was called, and a few blocks more. */
async function assertCatchesUp(net: Testnet, node: TestnetNode): Promise<void> {
  const target = (await heights(net)).at(-1)! + 2;
  await waitForHeight(net, target, { timeoutMs: 300_000 });
  await assertSameHeaders(net, target - 6, target);
  assert.ok((await latestHeight(node)) >= target, `${node.moniker} is at ${target} or above`);
}

/**
 * Kills `victim`'s chaind after it has executed a block and before it commits it, with that block in CometBFT's
 * block store: the crash the handshake's replay is for. Its CometBFT is restarted behind a proxy (abci-cut.ts) that
 * holds back chaind's answer to the next FinalizeBlock; chaind is killed there, and CometBFT, which stored the block
 * before asking, stops once the proxy closes (or is stopped as a supervisor would: what this checks is the
 * recovery, not CometBFT's own exit). Returns the height chaind executed and the height CometBFT had stored.
 */
async function killAppMidBlock(net: Testnet, victim: TestnetNode): Promise<{ executed: number; stored: number }> {
  await stopProcess(victim.cometbft, { graceMs: 10_000 });
  const proxy = await startAbciCut(victim.ports.abci);
  try {
    const comet = await startCometbft(net, victim, { proxyAppPort: proxy.port });
    const height = await waitUntil(
      `${victim.moniker}'s chaind to answer a FinalizeBlock through the proxy`,
      async () => proxy.heldHeight(),
      { timeoutMs: 120_000, watched: [comet, victim.chaind!] },
    );
    assert.equal(await stopProcess(victim.chaind, { signal: "SIGKILL" }), "SIGKILL");
    return { executed: Number(height), stored: await storedHeight(victim) };
  } finally {
    await proxy.close();
    const comet = victim.cometbft!;
    await waitUntil(`${victim.moniker}'s cometbft to stop after its app died`, async () =>
      comet.hasExited() ? true : undefined,
    ).catch(() => stopProcess(comet, { graceMs: 5_000 }));
  }
}

test("four validators behind real CometBFT v0.38", { skip, timeout: 300_000 }, async (t) => {
  const dir = await mkdtemp(join(tmpdir(), "testnet-validators-"));
  const sender = await newCosmjsSigner();
  let net: Testnet | undefined;
  try {
    net = await startTestnet({
      dir,
      accounts: [{ address: sender.address, coins: `${SENDER_COINS}stake` }],
      minHeight: 3,
      log: (line) => t.diagnostic(line),
    });
    const network = net;

    await t.test("every node serves the same headers, app hash included", async () => {
      const lowest = (await heights(network))[0];
      await assertSameHeaders(network, 1, lowest);
      const header = await headerAt(network.nodes[0], 2);
      assert.match(header.appHash, /^[0-9A-F]{64}$/, "the app hash is our store's 32-byte root");
    });

    await t.test(
      "a CosmJS send broadcast through one CometBFT is included and visible over REST everywhere",
      async () => {
        const recipient = await newCosmjsSigner();
        const amount = 1_234_567n;
        const { height, code, log } = await cosmjsBankSend(
          network,
          network.nodes[1],
          sender,
          recipient.address,
          amount,
        );
        assert.equal(code, 0, `the send executed: ${log}`);
        await waitForHeight(network, height + 1);
        for (const node of network.nodes) {
          assert.equal(
            await restBalance(node, recipient.address),
            amount,
            `${node.moniker} REST shows the new balance`,
          );
          assert.equal(await restBalance(node, sender.address), SENDER_COINS - amount - FEE, `${node.moniker}: sender`);
        }
        await assertSameHeaders(network, height, height + 1);
      },
    );

    await t.test("a delegation changes the validator's voting power in CometBFT's validator set", async () => {
      const target = network.nodes[1];
      const address = await consensusAddress(target);
      const before = await cometValidatorPowers(network.nodes[0]);
      assert.equal(before.size, network.nodes.length, "every gentx validator is in CometBFT's set");
      assert.equal(before.get(address), 100n, "power = self-delegation / 10^6");
      const sent = await cliTx(network, network.nodes[0], ["staking", "delegate", target.operator, "50000000stake"]);
      const hash = String(sent.txhash);
      assert.match(hash, /^[0-9A-F]{64}$/, `the CLI printed the tx hash: ${JSON.stringify(sent)}`);
      const included = await waitForTx(network.nodes[0], hash);
      assert.equal(included.code, 0, `the delegation executed: ${included.log}`);
      // CometBFT applies an EndBlock validator update two heights later.
      const after = await waitUntil("the new voting power in /validators", async () => {
        const powers = await cometValidatorPowers(network.nodes[2]);
        return powers.get(address) === 150n ? powers : undefined;
      });
      for (const node of network.nodes.filter((n) => n !== target)) {
        assert.equal(after.get(await consensusAddress(node)), 100n, `${node.moniker}'s power is unchanged`);
      }
    });

    await t.test("a validator whose cometbft is killed with SIGKILL catches up after a restart", async () => {
      const victim = network.nodes[3];
      assert.equal(await stopProcess(victim.cometbft, { signal: "SIGKILL" }), "SIGKILL");
      // 350 of 450 power remains: more than two thirds, so the chain goes on without it.
      const others = network.nodes.filter((n) => n !== victim);
      const now = Math.max(...(await Promise.all(others.map((n) => latestHeight(n)))));
      await waitForHeight(network, now + 3, { nodes: others });
      assert.equal(victim.chaind?.hasExited(), false, `its chaind keeps running:\n${logTail(victim.chaind!.logFile)}`);
      await startCometbft(network, victim);
      await assertCatchesUp(network, victim);
    });

    await t.test("a validator whose chaind is killed mid-block recovers through the handshake and replay", async () => {
      const victim = network.nodes[2];
      const killed = await killAppMidBlock(network, victim);
      t.diagnostic(
        `killed with the app having executed ${killed.executed}; CometBFT's block store at ${killed.stored}`,
      );
      assert.ok(killed.stored >= killed.executed, "CometBFT had stored the block the app executed and never committed");
      const logStart = (await readFile(victim.cometbft!.logFile, "utf8")).length;
      await startChaind(network, victim);
      await startCometbft(network, victim);
      await assertCatchesUp(network, victim);
      const restartLog = (await readFile(victim.cometbft!.logFile, "utf8")).slice(logStart);
      assert.match(restartLog, /ABCI Handshake App Info/, "CometBFT ran the handshake against the restarted app");
      assert.match(
        restartLog,
        /Replay last block using real app|Applying block/,
        "the handshake replayed the stored block into the restarted chaind",
      );
    });

    await t.test("the recovered node accepts and relays a tx", async () => {
      const recipient = await newCosmjsSigner();
      const { height, code, log } = await cosmjsBankSend(network, network.nodes[2], sender, recipient.address, 777n);
      assert.equal(code, 0, log);
      await waitForHeight(network, height + 1);
      for (const node of network.nodes) assert.equal(await restBalance(node, recipient.address), 777n, node.moniker);
    });
  } finally {
    if (net !== undefined) await stopTestnet(net, { graceMs: 5_000 });
    if (process.env.TESTNET_KEEP === "1") t.diagnostic(`kept ${dir}`);
    else await rm(dir, { recursive: true, force: true });
  }
});
