// The tx flags a Cosmos SDK v0.50 user types, against a real node in this process: the offline flow
// (--generate-only → tx sign --offline → tx broadcast), --dry-run, --keyring-dir, --fee-payer, and the clear
// refusals of --fee-granter and sign modes other than direct; tx results in YAML (text) and JSON (-o json).
import assert from "node:assert/strict";
import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type CliRun, runClientCli } from "../../test/support/cli/run-cli.ts";
import { txResponseTimestamp } from "../app/tx-response.ts";
import {
  type InProcessNode,
  prepareTestChainHome,
  startInProcessNode,
  type TestChainHome,
} from "../testing/test-chain.ts";

let home: string;
let chain: TestChainHome;
let node: InProcessNode;

before(async () => {
  home = await mkdtemp(join(tmpdir(), "cli-cosmos-flags-"));
  chain = await prepareTestChainHome({ home });
  node = await startInProcessNode(home, chain.chainId);
  // Height 2: the block store has height 1 a moment before the app has committed it (queries answer then).
  await node.waitForHeight(2n);
});

after(async () => {
  await node?.stop();
  await rm(home, { recursive: true, force: true });
});

function cli(args: string[], options: { node?: string } = {}): Promise<CliRun> {
  return runClientCli([...args, "--home", home, "--node", options.node ?? node.node]);
}

async function ok(args: string[], options: { node?: string } = {}): Promise<CliRun> {
  const run = await cli(args, options);
  assert.equal(run.code, 0, `chaind ${args.join(" ")} failed: ${run.stderr}`);
  return run;
}

async function fails(args: string[]): Promise<CliRun> {
  const run = await cli(args);
  assert.notEqual(run.code, 0, `chaind ${args.join(" ")} should have failed; stdout: ${run.stdout}`);
  assert.doesNotMatch(run.stderr, /\n\s+at /, "no stack trace for a user error");
  return run;
}

async function balance(address: string): Promise<bigint> {
  const run = await ok(["query", "bank", "balances", address, "-o", "json"]);
  const { balances } = JSON.parse(run.stdout) as { balances: { denom: string; amount: string }[] };
  return BigInt(balances.find((c) => c.denom === "stake")?.amount ?? "0");
}

async function account(address: string): Promise<{ number: string; sequence: string }> {
  const run = await ok(["query", "auth", "account", address, "-o", "json"]);
  const { account: a } = JSON.parse(run.stdout) as { account: { account_number: string; sequence: string } };
  return { number: a.account_number, sequence: a.sequence };
}

describe("Cosmos SDK v0.50 tx flags", () => {
  test("offline flow: --generate-only, tx sign --offline (no node reachable), tx broadcast", async () => {
    const before = await balance(chain.addresses.bob);
    const { number, sequence } = await account(chain.addresses.alice);
    const unsigned = await ok([
      "tx",
      "bank",
      "send",
      "alice",
      chain.addresses.bob,
      "123stake",
      "--generate-only",
      "--chain-id",
      chain.chainId,
    ]);
    const unsignedFile = join(home, "unsigned.json");
    await writeFile(unsignedFile, unsigned.stdout);
    // Offline: the node flag points at a closed port, so any network use would fail.
    const offlineNode = "tcp://127.0.0.1:1";
    const missing = await fails(["tx", "sign", unsignedFile, "--from", "alice", "--offline", "--node", offlineNode]);
    assert.match(missing.stderr, /--offline needs --account-number, --sequence, --chain-id/);
    const signed = await ok(
      [
        "tx",
        "sign",
        unsignedFile,
        "--from",
        "alice",
        "--offline",
        "--account-number",
        number,
        "--sequence",
        sequence,
        "--chain-id",
        chain.chainId,
        "--sign-mode",
        "direct",
      ],
      { node: offlineNode },
    );
    const signedFile = join(home, "signed.json");
    await writeFile(signedFile, signed.stdout);
    assert.equal((JSON.parse(signed.stdout) as { signatures: string[] }).signatures.length, 1);

    // Text mode: the TxResponse is YAML, as upstream prints it.
    const sent = await ok(["tx", "broadcast", signedFile, "--wait"]);
    assert.match(sent.stdout, /^code: 0$/m);
    assert.match(sent.stdout, /^txhash: '?[0-9A-F]{64}'?$/m);
    assert.doesNotMatch(sent.stdout, /^\{/);
    assert.equal(await balance(chain.addresses.bob), before + 123n);
  });

  test("--offline without --generate-only refuses to broadcast, naming the flow", async () => {
    const run = await fails([
      "tx",
      "bank",
      "send",
      "alice",
      chain.addresses.bob,
      "1stake",
      "--offline",
      "--yes",
      "--account-number",
      "0",
      "--sequence",
      "0",
      "--chain-id",
      chain.chainId,
    ]);
    assert.match(run.stderr, /--offline cannot broadcast: add --generate-only/);
  });

  test("--dry-run prints the simulated gas and sends nothing", async () => {
    const before = await balance(chain.addresses.bob);
    const { sequence } = await account(chain.addresses.alice);
    const run = await ok(["tx", "bank", "send", "alice", chain.addresses.bob, "5stake", "--dry-run", "--yes"]);
    assert.match(run.stderr, /^gas estimate: \d+$/m);
    assert.equal(run.stdout, "");
    const adjusted = await ok([
      "tx",
      "bank",
      "send",
      "alice",
      chain.addresses.bob,
      "5stake",
      "--dry-run",
      "--gas-adjustment",
      "2",
    ]);
    const first = BigInt(/gas estimate: (\d+)/.exec(run.stderr)?.[1] ?? "0");
    const second = BigInt(/gas estimate: (\d+)/.exec(adjusted.stderr)?.[1] ?? "0");
    assert.ok(first > 0n && second === first * 2n, `${first} then ${second}`);
    // Nothing was signed or sent: same sequence, same balance (a block later).
    await node.waitForHeight(node.embedded.engine.committedHeight + 1n);
    assert.equal((await account(chain.addresses.alice)).sequence, sequence);
    assert.equal(await balance(chain.addresses.bob), before);
  });

  test("tx results as JSON with -o json; --fee-payer equal to the signer lands in the fee", async () => {
    const run = await ok([
      "tx",
      "bank",
      "send",
      "alice",
      chain.addresses.bob,
      "1stake",
      "--yes",
      "--wait",
      "-o",
      "json",
      "--fee-payer",
      chain.addresses.alice,
      "--timeout-height",
      "100000",
    ]);
    const response = JSON.parse(run.stdout) as {
      code: number;
      tx: { auth_info: { fee: { payer: string } }; body: { timeout_height: string } };
    };
    assert.equal(response.code, 0);
    assert.equal(response.tx.auth_info.fee.payer, chain.addresses.alice);
    assert.equal(response.tx.body.timeout_height, "100000");
    // RFC 3339 with whole seconds, as upstream writes tx_response.timestamp.
    assert.match((response as unknown as { timestamp: string }).timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const other = await fails([
      "tx",
      "bank",
      "send",
      "alice",
      chain.addresses.bob,
      "1stake",
      "--yes",
      "--fee-payer",
      chain.addresses.bob,
    ]);
    assert.match(other.stderr, /--fee-payer .* is not the signer .*: the fee payer must sign too/);
  });

  test("--fee-granter and sign modes other than direct are refused clearly", async () => {
    const granter = await fails([
      "tx",
      "bank",
      "send",
      "alice",
      chain.addresses.bob,
      "1stake",
      "--yes",
      "--fee-granter",
      chain.addresses.bob,
    ]);
    assert.match(granter.stderr, /fee grants are not supported on this chain \(it has no feegrant module\)/);
    const amino = await fails([
      "tx",
      "bank",
      "send",
      "alice",
      chain.addresses.bob,
      "1stake",
      "--yes",
      "--sign-mode",
      "amino-json",
    ]);
    assert.match(
      amino.stderr,
      /unsupported --sign-mode "amino-json": this chain verifies SIGN_MODE_DIRECT signatures only/,
    );
    const bogus = await fails([
      "tx",
      "bank",
      "send",
      "alice",
      chain.addresses.bob,
      "1stake",
      "--yes",
      "--sign-mode",
      "x",
    ]);
    assert.match(bogus.stderr, /invalid --sign-mode "x": expected one of direct, amino-json, direct-aux, textual/);
  });

  test("--keyring-dir reads the keyring from another directory", async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), "cli-keyring-dir-"));
    try {
      await cp(join(home, "keyring-test"), join(elsewhere, "keyring-test"), { recursive: true });
      const emptyHome = await mkdtemp(join(tmpdir(), "cli-empty-home-"));
      try {
        const run = await runClientCli([
          "tx",
          "bank",
          "send",
          "alice",
          chain.addresses.bob,
          "1stake",
          "--dry-run",
          "--home",
          emptyHome,
          "--keyring-dir",
          elsewhere,
          "--node",
          node.node,
        ]);
        assert.equal(run.code, 0, run.stderr);
        assert.match(run.stderr, /gas estimate: \d+/);
        const without = await runClientCli([
          "tx",
          "bank",
          "send",
          "alice",
          chain.addresses.bob,
          "1stake",
          "--dry-run",
          "--home",
          emptyHome,
          "--node",
          node.node,
        ]);
        assert.notEqual(without.code, 0);
      } finally {
        await rm(emptyHome, { recursive: true, force: true });
      }
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });
});

test("tx_response.timestamp drops the fraction of a second (not rounded), as Go's time.RFC3339", () => {
  assert.equal(txResponseTimestamp("2026-11-25T21:36:53.999Z"), "2026-11-25T21:36:53Z");
  assert.equal(txResponseTimestamp("2026-11-25T21:36:53Z"), "2026-11-25T21:36:53Z");
  assert.equal(txResponseTimestamp(""), "");
});

describe("query blocks --query (block_search)", () => {
  test("finds blocks by block.height, pages them and orders them", async () => {
    await node.waitForHeight(4n);
    const run = await ok(["query", "blocks", "--query", "block.height >= 2 AND block.height <= 4", "-o", "json"]);
    const found = JSON.parse(run.stdout) as {
      total_count: string;
      count: string;
      page_total: string;
      blocks: { block: { header: { height: string } } }[];
    };
    assert.equal(found.total_count, "3");
    assert.deepEqual(
      found.blocks.map((b) => b.block.header.height),
      ["2", "3", "4"],
    );
    const paged = await ok([
      ...["query", "blocks", "--query", "block.height >= 2 AND block.height <= 4", "-o", "json"],
      ...["--limit", "2", "--page", "2", "--order-by", "desc"],
    ]);
    const second = JSON.parse(paged.stdout) as {
      page_total: string;
      blocks: { block: { header: { height: string } } }[];
    };
    assert.equal(second.page_total, "2");
    assert.deepEqual(
      second.blocks.map((b) => b.block.header.height),
      ["2"],
    );
    const bad = await fails(["query", "blocks", "--query", "block.height >"]);
    assert.match(bad.stderr, /failed to parse query/);
  });
});
