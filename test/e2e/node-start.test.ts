// A chain built the operator's way — `chaind init`, `keys add`, `genesis add-genesis-account`, `genesis
// gentx`, `genesis collect-gentxs`, `genesis validate` — then `chaind start` as a real process on loopback
// ports picked at run time: blocks are produced, a bank send signed here lands, SIGTERM exits 0, a
// restart continues from the last block, halt-height stops the node by itself with 0, and bad
// configuration or flags stop it before anything starts, with the file/flag and key named and status 1.

import assert from "node:assert/strict";
import { copyFile, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { referenceChain } from "../../chain/app.ts";
import { openKeyring } from "../../src/client/keyring/index.ts";
import { packAny, signTx } from "../../src/client/tx/index.ts";
import { homePaths, setTomlValues } from "../../src/config/index.ts";
import { addressToBech32 } from "../../src/crypto/index.ts";
import { MsgSendSchema } from "../../src/gen/chain/bank/v1beta1/tx_pb.js";
import { useChain } from "../../src/runtime/current-chain.ts";
import {
  bannerEndpoints,
  type ChaindProcess,
  killAllChaind,
  LOOPBACK_PORT_FLAGS,
  latestHeight,
  pollUntil,
  rpcCall,
  runChaind,
  runChaindInProcess,
  spawnChaind,
  tempDir,
  waitForHeight,
} from "../support/node/chaind.ts";

// runChaindInProcess runs the command tree in this process: serve the reference chain, as chain/cmd/chaind.ts does.
useChain(referenceChain);

const CHAIN_ID = "node-e2e";
let dir: Awaited<ReturnType<typeof tempDir>>;
let home: string;
let userHome: string;
let validatorAddress: string;
let bobAddress: string;

const chaind = (...args: string[]) => runChaind(["--home", home, ...args], { userHome });
const startNode = (...extra: string[]) =>
  spawnChaind(["--home", home, "start", ...LOOPBACK_PORT_FLAGS, ...extra], { userHome });

function ok(result: Awaited<ReturnType<typeof runChaind>>, what: string): void {
  assert.equal(result.code, 0, `${what} failed (${result.code}):\n${result.stdout}\n${result.stderr}`);
}

before(async () => {
  dir = await tempDir("chaind-node-start-");
  home = join(dir.path, "home");
  userHome = join(dir.path, "user");

  const init = await chaind("init", "node0", "--chain-id", CHAIN_ID);
  ok(init, "init");
  const info = JSON.parse(init.stderr) as {
    chain_id: string;
    moniker: string;
    node_id: string;
    app_message: Record<string, unknown>;
  };
  assert.equal(info.chain_id, CHAIN_ID);
  assert.equal(info.moniker, "node0");
  assert.match(info.node_id, /^[0-9a-f]{40}$/);
  assert.deepEqual(Object.keys(info.app_message).sort(), [
    "auth",
    "bank",
    "genutil",
    "gov",
    "legacy",
    "notes",
    "staking",
    "upgrade",
  ]);

  // Fast blocks keep the test short; the operator's way to change them is config.toml.
  const paths = homePaths(home);
  const configText = await readFile(paths.configToml, "utf8");
  await writeFile(paths.configToml, setTomlValues(configText, { "consensus.timeout_commit": "200ms" }));

  ok(await chaind("keys", "add", "val", "--keyring-backend", "test"), "keys add");
  const keyring = openKeyring({ home, backend: "test" });
  validatorAddress = addressToBech32((await keyring.show("val")).address);
  bobAddress = addressToBech32((await keyring.add("bob")).key.address);

  ok(await chaind("genesis", "add-genesis-account", "val", "100000000000stake"), "add-genesis-account");
  const gentx = await chaind(
    "genesis",
    "gentx",
    "val",
    "10000000000stake",
    "--chain-id",
    CHAIN_ID,
    "--ip",
    "127.0.0.1",
  );
  ok(gentx, "gentx");
  assert.match(gentx.stderr, /^Genesis transaction written to ".*\/config\/gentx\/gentx-[0-9a-f]{40}\.json"$/m);
  ok(await chaind("genesis", "collect-gentxs"), "collect-gentxs");
  const validate = await chaind("genesis", "validate");
  ok(validate, "validate");
  assert.equal(validate.stdout, `File at ${paths.genesis} is a valid genesis file\n`);
});

after(async () => {
  await killAllChaind();
  await dir?.remove();
});

describe("genesis commands refuse bad input", () => {
  test("each says what was wrong, exits 1 and leaves genesis.json as it was", async () => {
    const paths = homePaths(home);
    const before = await readFile(paths.genesis, "utf8");
    const broken = join(dir.path, "broken-genesis.json");
    const doc = JSON.parse(before) as { app_state: { bank: { balances: { coins: { denom: string }[] }[] } } };
    doc.app_state.bank.balances[0].coins[0].denom = "1bad";
    await writeFile(broken, JSON.stringify(doc));

    // The binary's command tree run in this process: four process starts would cost more than the checks.
    const inProcess = (...args: string[]) => runChaindInProcess(["--home", home, ...args]);
    const again = await inProcess("genesis", "add-genesis-account", validatorAddress, "5stake");
    const tooMuch = await inProcess("genesis", "gentx", "val", "999999999999stake", "--chain-id", CHAIN_ID);
    const invalid = await inProcess("genesis", "validate", broken);
    const badCoins = await inProcess("genesis", "add-genesis-account", bobAddress, "12x");
    assert.equal(again.code, 1);
    assert.match(again.stderr, new RegExp(`cannot add account at existing address ${validatorAddress}`));
    assert.equal(tooMuch.code, 1);
    assert.match(
      tooMuch.stderr,
      new RegExp(
        `account ${validatorAddress} has a balance in genesis, but it only has 100000000000stake available to stake, not 999999999999stake`,
      ),
    );
    assert.equal(invalid.code, 1);
    assert.match(invalid.stderr, /error validating genesis file .*broken-genesis\.json: .*"bank"/);
    assert.equal(badCoins.code, 1);
    assert.match(badCoins.stderr, /failed to parse coins/);
    assert.equal(await readFile(paths.genesis, "utf8"), before);
  });
});

describe("chaind start", () => {
  let node: ChaindProcess;
  let rpc: string;
  let rest: string;

  test("produces blocks, serves RPC, REST and gRPC, and includes a bank send", async () => {
    node = startNode();
    const endpoints = await bannerEndpoints(node);
    rpc = endpoints.rpc;
    rest = endpoints.rest as string;
    assert.match(node.stdout, new RegExp(`running chain "${CHAIN_ID}"`));
    assert.match(endpoints.grpc ?? "", /^127\.0\.0\.1:\d+$/);
    assert.equal(endpoints.swagger, `${rest}/swagger`);
    await waitForHeight(rpc, 2n);

    const account = (await (await fetch(`${rest}/chain/auth/v1beta1/accounts/${validatorAddress}`)).json()) as {
      account: { account_number: string; sequence: string };
    };
    // The gentx was the account's first tx (sequence 0), so it is at 1 now.
    assert.equal(account.account.sequence, "1");
    const keyring = openKeyring({ home, backend: "test" });
    const send = create(MsgSendSchema, {
      fromAddress: validatorAddress,
      toAddress: bobAddress,
      amount: [{ denom: "stake", amount: "12345" }],
    });
    const signed = await signTx({
      messages: [packAny(MsgSendSchema, send)],
      fee: { amount: [], gasLimit: 200_000n },
      chainId: CHAIN_ID,
      accountNumber: BigInt(account.account.account_number),
      sequence: BigInt(account.account.sequence),
      signer: await keyring.signer("val"),
    });
    const checked = await rpcCall<{ code: number; hash: string; log: string }>(rpc, "broadcast_tx_sync", {
      tx: Buffer.from(signed.txBytes).toString("base64"),
    });
    assert.equal(checked.code, 0, checked.log);
    assert.equal(checked.hash, signed.txHash);
    const included = await pollUntil(
      () =>
        rpcCall<{ height: string; tx_result: { code: number; log: string } }>(rpc, "tx", {
          hash: Buffer.from(signed.txHash, "hex").toString("base64"),
        }),
      { what: "the send to be included" },
    );
    assert.equal(included.tx_result.code, 0, included.tx_result.log);
    const balances = (await (await fetch(`${rest}/chain/bank/v1beta1/balances/${bobAddress}`)).json()) as {
      balances: { denom: string; amount: string }[];
    };
    assert.deepEqual(balances.balances, [{ denom: "stake", amount: "12345" }]);
    // The same tx through the gRPC gateway's tx service (the engine's tx index behind it).
    const viaRest = (await (await fetch(`${rest}/chain/tx/v1beta1/txs/${signed.txHash}`)).json()) as {
      tx_response: { height: string; code: number; txhash: string };
    };
    assert.equal(viaRest.tx_response.txhash, signed.txHash);
    assert.equal(viaRest.tx_response.height, included.height);
  });

  test("SIGTERM stops it with status 0, and a restart continues from the last block", async () => {
    const block1 = await rpcCall<{ block_id: { hash: string } }>(rpc, "block", { height: "1" });
    const before = await latestHeight(rpc);
    node.signal("SIGTERM");
    const exit = await node.exited;
    assert.equal(exit.code, 0, exit.stderr.slice(-2000));
    const stoppedAt = BigInt(/node stopped height=(\d+)/.exec(exit.stderr)?.[1] ?? "0");
    assert.ok(stoppedAt >= before, `stopped at ${stoppedAt}, had seen ${before}`);

    node = startNode();
    rpc = (await bannerEndpoints(node)).rpc;
    assert.ok((await latestHeight(rpc)) >= stoppedAt, "the restarted node starts from the stored chain");
    await waitForHeight(rpc, stoppedAt + 1n);
    const again = await rpcCall<{ block_id: { hash: string } }>(rpc, "block", { height: "1" });
    assert.equal(again.block_id.hash, block1.block_id.hash);
    node.signal("SIGINT");
    assert.equal((await node.exited).code, 0);
  });

  test("--halt-height stops the node by itself after that height, with status 0", async () => {
    const haltAt = BigInt(/node stopped height=(\d+)/.exec(node.stderr)?.[1] ?? "0") + 2n;
    node = startNode("--halt-height", haltAt.toString());
    const exit = await node.exited;
    assert.equal(exit.code, 0, exit.stderr.slice(-2000));
    assert.match(exit.stderr, new RegExp(`halting per configuration at height ${haltAt}`));
  });

  test("a bad config value or flag is reported with its file/flag and key before anything starts, status 1", async () => {
    const paths = homePaths(home);
    const saved = join(dir.path, "config.toml.saved");
    await copyFile(paths.configToml, saved);
    try {
      const text = await readFile(paths.configToml, "utf8");
      await writeFile(paths.configToml, setTomlValues(text, { "consensus.timeout_commit": "fast" }));
      const [badFile, badFlag] = await Promise.all([
        startNode().exited,
        runChaind(["--home", home, "start", "--grpc.address", "tcp://127.0.0.1:9090"], { userHome }),
      ]);
      assert.equal(badFile.code, 1);
      assert.ok(
        badFile.stderr.includes(`${paths.configToml}: consensus.timeout_commit: expected a duration`),
        badFile.stderr,
      );
      assert.doesNotMatch(badFile.stderr, /node started|listening/);
      assert.equal(badFlag.code, 1);
      assert.match(
        badFlag.stderr,
        /invalid --grpc\.address "tcp:\/\/127\.0\.0\.1:9090": expected a "<host>:<port>" address/,
      );
      assert.doesNotMatch(badFlag.stderr, /node started|listening|\n\s+at /);
    } finally {
      await copyFile(saved, paths.configToml);
    }
  });
});
