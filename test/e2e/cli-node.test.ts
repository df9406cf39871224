// The client commands as a user runs them: a real `chaind start` process (embedded engine, consensus RPC and
// gRPC on loopback ports picked at run time) and every command a separate `chaind` process talking to it
// through `--node`. Covers balances, a send with --wait, query tx, query block, the software-upgrade flow
// through governance (tx upgrade software-upgrade → tx gov deposit → tx gov vote → query upgrade plan), the
// "no upgrade scheduled" answer, module versions, and the wrong-sequence and insufficient-funds errors.
// The node's home (test keys, a genesis validator, 10 s gov periods) is made by src/testing.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { grpcQuery } from "../../src/client/rpc/grpc-query.ts";
import { abciQueryTransport } from "../../src/client/rpc/query-transport.ts";
import { createRpcClient } from "../../src/client/rpc/rpc-client.ts";
import { Query as UpgradeQuery } from "../../src/gen/chain/upgrade/v1beta1/query_pb.js";
import { prepareTestChainHome, type TestChainHome } from "../../src/testing/test-chain.ts";
import { type CommandResult, type ManagedProcess, runCommand, startProcess, tail } from "./support/processes.ts";

const PROJECT = join(import.meta.dirname, "..", "..");
// The TypeScript entry itself, on purpose: the other tests start chaind through the launcher chain/cmd/chaind.mjs.
const CHAIND = join(PROJECT, "chain", "cmd", "chaind.ts");
// Long enough for three CLI processes (submit, deposit, vote) on a busy 2-core machine, where each
// can take many seconds; the test waits for the plan, not for the clock.
const GOV_PERIOD_MS = 30_000;

let home: string;
let chain: TestChainHome;
let nodeProcess: ManagedProcess;
let node: string;

before(async () => {
  home = await mkdtemp(join(tmpdir(), "cli-e2e-"));
  chain = await prepareTestChainHome({ home, govPeriod: `${GOV_PERIOD_MS / 1000}s`, timeoutCommit: "200ms" });
  nodeProcess = startProcess("chaind start", process.execPath, [CHAIND, "start", "--home", home], { cwd: PROJECT });
  const [, rpc] = await nodeProcess.waitForOutput(/consensus RPC\s+http:\/\/(127\.0\.0\.1:\d+)/, 180_000);
  node = `tcp://${rpc}`;
  await nodeProcess.waitForOutput(/committed block height=2\b/, 180_000);
});

after(async () => {
  await nodeProcess?.stop();
  await rm(home, { recursive: true, force: true });
});

/** Runs `chaind <args> --home <home> --node <node>` as its own process. */
async function chaind(args: string[]): Promise<CommandResult> {
  return runCommand(process.execPath, [CHAIND, ...args, "--home", home, "--node", node], {
    cwd: PROJECT,
    timeoutMs: 180_000,
  });
}

function explain(args: string[], result: CommandResult): string {
  return `chaind ${args.join(" ")} → ${result.status}\nstdout:\n${tail(result.stdout)}\nstderr:\n${tail(result.stderr)}\nnode:\n${tail(nodeProcess.output(), 20)}`;
}

async function ok(args: string[]): Promise<CommandResult> {
  const result = await chaind(args);
  assert.equal(result.status, 0, explain(args, result));
  return result;
}

async function okJson<T = Record<string, unknown>>(args: string[]): Promise<T> {
  return JSON.parse((await ok([...args, "-o", "json"])).stdout) as T;
}

async function fails(args: string[]): Promise<CommandResult> {
  const result = await chaind(args);
  assert.equal(result.status, 1, explain(args, result));
  return result;
}

test("balances, a send that waits for its block, then query tx and query block find it", async () => {
  const balances = await ok(["query", "bank", "balances", chain.addresses.bob]);
  assert.equal(
    balances.stdout,
    'balances:\n- amount: "1000000000000"\n  denom: stake\npagination:\n  next_key: null\n  total: "1"\n',
  );

  const sent = await okJson<{ code: number; height: string; txhash: string; tx: { "@type": string } }>([
    "tx",
    "bank",
    "send",
    "alice",
    chain.addresses.bob,
    "2500stake",
    "--yes",
    "--wait",
  ]);
  assert.equal(sent.code, 0);
  assert.ok(BigInt(sent.height) > 0n);
  assert.equal(sent.tx["@type"], "/chain.tx.v1beta1.Tx");

  const [found, block, after] = await Promise.all([
    okJson(["query", "tx", sent.txhash]),
    okJson<{ block: { header: { height: string }; data: { txs: string[] } } }>(["query", "block", sent.height]),
    okJson<{ balances: { amount: string }[] }>(["query", "bank", "balances", chain.addresses.bob]),
  ]);
  assert.deepEqual(found, sent);
  assert.equal(block.block.header.height, sent.height);
  assert.equal(block.block.data.txs.length, 1);
  assert.equal(after.balances[0].amount, "1000000002500");
});

test("queries take a key's name where an address goes (as upstream's AutoCLI); anything else reaches the node", async () => {
  assert.deepEqual(
    await okJson(["query", "bank", "balances", "bob"]),
    await okJson(["query", "bank", "balances", chain.addresses.bob]),
  );
  const account = await okJson<{ account: { address: string } }>(["query", "auth", "account", "alice"]);
  assert.equal(account.account.address, chain.addresses.alice);
  const validator = await okJson<{ validator: { operator_address: string } }>([
    "query",
    "staking",
    "validator",
    "validator",
  ]);
  assert.equal(validator.validator.operator_address, chain.validatorOperator);
  const bad = await fails(["query", "bank", "balances", "nobody"]);
  assert.match(
    bad.stderr,
    /^Error: rpc error: code = InvalidArgument desc = invalid address: invalid bech32 string "nobody"/m,
  );
});

test("query upgrade plan with nothing scheduled; module versions; an unknown module is named", async () => {
  const [none, versions, unknown] = await Promise.all([
    fails(["query", "upgrade", "plan"]),
    okJson<{ module_versions: { name: string; version: string }[] }>(["query", "upgrade", "module_versions"]),
    fails(["query", "upgrade", "module_versions", "nosuchmodule"]),
  ]);
  assert.equal(none.stdout, "");
  assert.equal(none.stderr, "Error: no upgrade scheduled\n");
  assert.ok(versions.module_versions.some((v) => v.name === "upgrade" && v.version === "1"));
  assert.deepEqual(
    versions.module_versions.map((v) => v.name),
    versions.module_versions.map((v) => v.name).sort(),
  );
  assert.match(unknown.stderr, /^Error: module "nosuchmodule" has no version on chain: .*nosuchmodule/);
});

test("a software upgrade through governance: submit, deposit, vote, then query upgrade plan prints the plan", async () => {
  const status = await createRpcClient(node).status();
  const upgradeHeight = BigInt(status.sync_info.latest_block_height) + 100_000n;
  const submitted = await okJson<{
    code: number;
    events: { type: string; attributes: { key: string; value: string }[] }[];
  }>([
    "tx",
    "upgrade",
    "software-upgrade",
    "v2",
    "--title",
    "Upgrade to v2",
    "--summary",
    "the next release",
    "--deposit",
    "5000000stake",
    "--upgrade-height",
    upgradeHeight.toString(),
    "--upgrade-info",
    '{"binaries":{"any":"https://example.invalid/chaind.tar.gz"}}',
    "--no-validate",
    "--from",
    "alice",
    "--yes",
    "--wait",
  ]);
  assert.equal(submitted.code, 0);
  const id = submitted.events
    .filter((e) => e.type === "submit_proposal")
    .flatMap((e) => e.attributes)
    .find((a) => a.key === "proposal_id")?.value;
  assert.ok(id, "the submit_proposal event names the proposal id");

  const deposited = await okJson<{ code: number }>([
    "tx",
    "gov",
    "deposit",
    id,
    "5000000stake",
    "--from",
    "bob",
    "--yes",
    "--wait",
  ]);
  assert.equal(deposited.code, 0);
  const voted = await okJson<{ code: number }>([
    "tx",
    "gov",
    "vote",
    id,
    "yes",
    "--from",
    "validator",
    "--yes",
    "--wait",
  ]);
  assert.equal(voted.code, 0);

  // The proposal passes when its voting period ends; wait for the plan with a library query, not by the clock.
  const transport = abciQueryTransport(createRpcClient(node));
  const deadline = Date.now() + GOV_PERIOD_MS * 10;
  for (;;) {
    const { response } = await grpcQuery(transport, UpgradeQuery.method.currentPlan, {});
    if (response.plan !== undefined) break;
    assert.ok(Date.now() < deadline, `the proposal did not pass in time; node:\n${tail(nodeProcess.output(), 20)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }

  const [text, json, proposal] = await Promise.all([
    ok(["query", "upgrade", "plan"]),
    ok(["query", "upgrade", "plan", "-o", "json"]),
    okJson<{ proposal: { status: string } }>(["query", "gov", "proposal", id]),
  ]);
  assert.equal(proposal.proposal.status, "PROPOSAL_STATUS_PASSED");
  const info = '{"binaries":{"any":"https://example.invalid/chaind.tar.gz"}}';
  assert.equal(
    json.stdout,
    `${JSON.stringify({ name: "v2", time: "0001-01-01T00:00:00Z", height: upgradeHeight.toString(), info, upgraded_client_state: null })}\n`,
  );
  assert.match(
    text.stdout,
    new RegExp(
      `^height: "${upgradeHeight}"\ninfo: .*\nname: v2\ntime: "0001-01-01T00:00:00Z"\nupgraded_client_state: null\n$`,
    ),
  );
});

test("the confirmation prompt answered on a stdin left open: the tx is sent and the command exits", async () => {
  const child = spawn(
    process.execPath,
    [
      CHAIND,
      "tx",
      "bank",
      "send",
      "alice",
      chain.addresses.bob,
      "1stake",
      "--home",
      home,
      "--node",
      node,
      "-o",
      "json",
    ],
    {
      cwd: PROJECT,
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  let answered = false;
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
    // Answer once, and never close stdin: the command must not wait for more input.
    if (!answered && stderr.includes("[y/N]: ")) {
      answered = true;
      child.stdin.write("y\n");
    }
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 180_000);
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  clearTimeout(timer);
  assert.equal(code, 0, `stdout:\n${stdout}\nstderr:\n${stderr}`);
  assert.match(stderr, /confirm transaction before signing and broadcasting \[y\/N\]: /);
  assert.equal(JSON.parse(stdout).code, 0);
});

test("a wrong sequence and insufficient funds: the node's code and text on stderr, exit status 1", async () => {
  const [sequence, funds] = await Promise.all([
    fails(["tx", "bank", "send", "bob", chain.addresses.alice, "1stake", "--sequence", "42", "--yes", "-o", "json"]),
    fails([
      "tx",
      "bank",
      "send",
      "alice",
      chain.addresses.bob,
      "999999999999999stake",
      "--yes",
      "--wait",
      "-o",
      "json",
    ]),
  ]);
  assert.equal(JSON.parse(sequence.stdout).code, 32);
  assert.match(
    sequence.stderr,
    /^Error: tx [0-9A-F]{64} failed with code 32 \(sdk\): account sequence mismatch, expected \d+, got 42: incorrect account sequence\n$/,
  );
  assert.equal(JSON.parse(funds.stdout).code, 5);
  assert.match(
    funds.stderr,
    /^Error: tx [0-9A-F]{64} failed in block \d+ with code 5 \(sdk\): .*is smaller than 999999999999999stake: insufficient funds\n$/,
  );
});
