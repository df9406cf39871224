// The real node under SIGKILL (docs/CONTRACT.md §5: "a kill at any moment loses no committed block and never
// corrupts state"): `chaind start` on a fast dev chain is killed with SIGKILL at random moments,
// many times, while bank sends are in flight. After every restart: every block a client saw
// committed is still there with the same hash and app hash, every tx a client saw included is still
// found with the same result, and the balances the chain reports agree with those txs.
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { openKeyring } from "../../src/client/keyring/index.ts";
import { packAny, signTx } from "../../src/client/tx/index.ts";
import { homePaths, setTomlValues } from "../../src/config/index.ts";
import { MsgSendSchema } from "../../src/gen/chain/bank/v1beta1/tx_pb.js";
import { type DevHome, prepareDevHome } from "../../src/node/dev-chain.ts";
import {
  bannerEndpoints,
  killAllChaind,
  LOOPBACK_PORT_FLAGS,
  latestHeight,
  rpcCall,
  spawnChaind,
  tempDir,
  waitForHeight,
} from "../support/node/chaind.ts";

const KILLS = 10;
let dir: Awaited<ReturnType<typeof tempDir>>;
let dev: DevHome;
let userHome: string;

before(async () => {
  dir = await tempDir("chaind-node-crash-");
  userHome = join(dir.path, "user");
  dev = await prepareDevHome({ home: join(dir.path, "home") });
  const paths = homePaths(dev.home);
  await writeFile(
    paths.configToml,
    setTomlValues(await readFile(paths.configToml, "utf8"), { "consensus.timeout_commit": "100ms" }),
  );
});

after(async () => {
  await killAllChaind();
  await dir?.remove();
});

interface SeenBlock {
  hash: string;
  appHash: string;
}

/** A deterministic pseudo-random sequence, so a failing run can be repeated. */
function randoms(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

async function blockAt(rpc: string, height: bigint): Promise<SeenBlock> {
  const result = await rpcCall<{ block_id: { hash: string }; block: { header: { app_hash: string } } }>(rpc, "block", {
    height: String(height),
  });
  return { hash: result.block_id.hash, appHash: result.block.header.app_hash };
}

test("SIGKILL at random moments loses no block or tx a client saw committed", { timeout: 1_200_000 }, async (t) => {
  const alice = dev.keys.find((k) => k.name === "alice")?.address as string;
  const bob = dev.keys.find((k) => k.name === "bob")?.address as string;
  const signer = await openKeyring({ home: dev.home, backend: "test" }).signer("alice");
  const seenBlocks = new Map<bigint, SeenBlock>();
  const seenTxs = new Map<string, { height: string; code: number }>();
  const random = randoms(7);
  let sent = 0n;

  for (let round = 0; round <= KILLS; round++) {
    const node = spawnChaind(["--home", dev.home, "start", ...LOOPBACK_PORT_FLAGS], { userHome });
    const { rpc, rest } = await bannerEndpoints(node);
    await waitForHeight(rpc, (await latestHeight(rpc)) + 1n);

    // Everything seen before any kill is still exactly as it was.
    for (const [height, block] of seenBlocks) {
      assert.deepEqual(await blockAt(rpc, height), block, `block ${height} after ${round} kills`);
    }
    for (const [hash, result] of seenTxs) {
      const found = await rpcCall<{ height: string; tx_result: { code: number } }>(rpc, "tx", {
        hash: Buffer.from(hash, "hex").toString("base64"),
      });
      assert.deepEqual({ height: found.height, code: found.tx_result.code }, result, `tx ${hash} after ${round} kills`);
    }
    const balance = (await (await fetch(`${rest}/chain/bank/v1beta1/balances/${bob}?denom=stake`)).json()) as {
      balances: { denom: string; amount: string }[];
    };
    const bobStake = BigInt(balance.balances.find((c) => c.denom === "stake")?.amount ?? "0");
    assert.ok(bobStake >= 1_000_000_000_000n + sent, `bob has every send a client saw included (round ${round})`);

    if (round === KILLS) {
      node.signal("SIGTERM");
      assert.equal((await node.exited).code, 0);
      break;
    }

    // A send from alice, recorded once a client sees it included; then the kill at a random moment.
    const account = (await (await fetch(`${rest}/chain/auth/v1beta1/accounts/${alice}`)).json()) as {
      account: { account_number: string; sequence: string };
    };
    const signed = await signTx({
      messages: [
        packAny(
          MsgSendSchema,
          create(MsgSendSchema, { fromAddress: alice, toAddress: bob, amount: [{ denom: "stake", amount: "1" }] }),
        ),
      ],
      fee: { amount: [], gasLimit: 200_000n },
      chainId: dev.chainId,
      accountNumber: BigInt(account.account.account_number),
      sequence: BigInt(account.account.sequence),
      signer,
    });
    await rpcCall(rpc, "broadcast_tx_sync", { tx: Buffer.from(signed.txBytes).toString("base64") });
    const killAt = Date.now() + 50 + Math.floor(random() * 600);
    while (Date.now() < killAt) {
      try {
        const found = await rpcCall<{ height: string; tx_result: { code: number } }>(rpc, "tx", {
          hash: Buffer.from(signed.txHash, "hex").toString("base64"),
        });
        if (!seenTxs.has(signed.txHash)) {
          seenTxs.set(signed.txHash, { height: found.height, code: found.tx_result.code });
          if (found.tx_result.code === 0) sent += 1n;
        }
      } catch {
        // not included yet
      }
      const height = await latestHeight(rpc);
      if (height > 0n && !seenBlocks.has(height)) seenBlocks.set(height, await blockAt(rpc, height));
    }
    node.signal("SIGKILL");
    await node.exited;
  }
  t.diagnostic(`${KILLS} kills; ${seenBlocks.size} blocks and ${seenTxs.size} txs checked after every restart`);
  assert.ok(seenBlocks.size >= KILLS, `saw ${seenBlocks.size} blocks`);
  assert.ok(seenTxs.size > 0, "at least one tx was seen included before a kill");
});
