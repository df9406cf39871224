// The client commands against a real node running in this process (embedded engine, consensus RPC and gRPC
// on ports picked at run time, LevelDB in a temp home): output shapes in both formats, the tx flow (confirm,
// sign, broadcast, wait), tx documents, lookups, gov, staking and upgrade commands through their builders,
// and the errors a user meets, each with its message and exit status. The same commands as separate
// processes are covered by test/e2e/cli-node.test.ts.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type CliRun, runClientCli } from "../../test/support/cli/run-cli.ts";
import { ClientSession } from "../client/cli/session.ts";
import { openKeyring } from "../client/keyring/index.ts";
import { addressFromBech32, addressToBech32 } from "../crypto/index.ts";
import {
  type InProcessNode,
  prepareTestChainHome,
  startInProcessNode,
  TEST_MNEMONICS,
  type TestChainHome,
} from "../testing/test-chain.ts";
import { upgradeCliClient } from "../x/upgrade/client/cli-client.ts";

const GOV = "chain10d07y265gmmuvt4z0w9aw880jnsr700j0q8wax";

let home: string;
let chain: TestChainHome;
let node: InProcessNode;

before(async () => {
  home = await mkdtemp(join(tmpdir(), "cli-client-"));
  chain = await prepareTestChainHome({ home, govPeriod: "30s" });
  node = await startInProcessNode(home, chain.chainId);
  await node.waitForHeight(2n);
});

after(async () => {
  await node?.stop();
  await rm(home, { recursive: true, force: true });
});

/** Runs `chaind <args> --home <home> --node <node>`. */
function cli(args: string[], options: { stdin?: string } = {}): Promise<CliRun> {
  return runClientCli([...args, "--home", home, "--node", node.node], options);
}

/** Runs and expects success; returns stdout parsed as JSON (with -o json). */
async function cliJson<T = Record<string, unknown>>(args: string[]): Promise<T> {
  const run = await cli([...args, "-o", "json"]);
  assert.equal(run.code, 0, `chaind ${args.join(" ")} failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

/** Runs and expects failure; returns the run. */
async function cliFails(args: string[], options: { stdin?: string } = {}): Promise<CliRun> {
  const run = await cli(args, options);
  assert.notEqual(run.code, 0, `chaind ${args.join(" ")} should have failed; stdout: ${run.stdout}`);
  assert.doesNotMatch(run.stderr, /\n\s+at /, "no stack trace for a user error");
  return run;
}

async function balanceOf(address: string): Promise<bigint> {
  const { balances } = await cliJson<{ balances: { denom: string; amount: string }[] }>([
    "query",
    "bank",
    "balances",
    address,
  ]);
  return BigInt(balances.find((coin) => coin.denom === "stake")?.amount ?? "0");
}

describe("queries", () => {
  test("bank balances: proto JSON (every field, amounts as strings) and the same as sorted YAML in text", async () => {
    const json = await cliJson(["query", "bank", "balances", chain.addresses.bob]);
    assert.deepEqual(Object.keys(json), ["balances", "pagination"]);
    assert.ok(Array.isArray(json.balances));
    assert.deepEqual(json.pagination, { next_key: null, total: "1" });
    const text = await cli(["query", "bank", "balances", chain.addresses.bob]);
    assert.equal(text.code, 0);
    assert.match(
      text.stdout,
      /^balances:\n- amount: "\d+"\n {2}denom: stake\npagination:\n {2}next_key: null\n {2}total: "1"\n$/,
    );

    const one = await cliJson(["query", "bank", "balances", chain.addresses.bob, "--denom", "stake"]);
    assert.deepEqual(Object.keys(one), ["balance"]);
    assert.equal((one.balance as { denom: string }).denom, "stake");
    const total = await cliJson(["query", "bank", "total"]);
    assert.ok(Array.isArray(total.supply));
    assert.deepEqual(await cliJson(["query", "bank", "denom-metadata"]), {
      metadatas: [],
      pagination: { next_key: null, total: "0" },
    });
  });

  test("bank's other queries under upstream's AutoCLI names: spendable balances, supply of, owners, send-enabled", async () => {
    const bob = await balanceOf(chain.addresses.bob);
    const spendable = await cliJson<{ balances: { denom: string; amount: string }[] }>([
      "query",
      "bank",
      "spendable-balances",
      chain.addresses.bob,
    ]);
    assert.deepEqual(spendable.balances, [{ denom: "stake", amount: String(bob) }]);
    const one = await cliJson(["query", "bank", "spendable-balance", chain.addresses.bob, "stake"]);
    assert.deepEqual(one, { balance: { denom: "stake", amount: String(bob) } });
    const supply = await cliJson<{ amount: { denom: string; amount: string } }>([
      "query",
      "bank",
      "total-supply-of",
      "stake",
    ]);
    assert.equal(supply.amount.denom, "stake");
    assert.ok(BigInt(supply.amount.amount) >= bob);
    const owners = await cliJson<{ denom_owners: { address: string }[] }>(["query", "bank", "denom-owners", "stake"]);
    assert.ok(owners.denom_owners.some((owner) => owner.address === chain.addresses.bob));
    const enabled = await cliJson(["query", "bank", "send-enabled", "stake"]);
    assert.ok(Array.isArray(enabled.send_enabled));
    const bad = await cliFails(["query", "bank", "spendable-balance", "chain1nope", "stake"]);
    assert.equal(bad.stderr.trim().split("\n").length, 1, bad.stderr);
  });

  test("auth: account with its @type, module account by name, params", async () => {
    const { account } = await cliJson<{ account: Record<string, unknown> }>([
      "query",
      "auth",
      "account",
      chain.addresses.alice,
    ]);
    assert.equal(account["@type"], "/chain.auth.v1beta1.BaseAccount");
    assert.equal(account.address, chain.addresses.alice);
    assert.equal(typeof account.account_number, "string");
    const gov = await cliJson<{ account: { base_account: { address: string }; name: string } }>([
      "query",
      "auth",
      "module-account",
      "gov",
    ]);
    assert.equal(gov.account.name, "gov");
    assert.equal(gov.account.base_account.address, GOV);
    const params = await cliJson<{ params: Record<string, string> }>(["query", "auth", "params"]);
    assert.equal(params.params.max_memo_characters, "256");
    const accounts = await cliJson<{ accounts: unknown[] }>(["query", "auth", "accounts", "--limit", "2"]);
    assert.equal(accounts.accounts.length, 2);
  });

  test("a query error keeps the node's message and exits 1", async () => {
    const run = await cliFails(["query", "bank", "balances", "notanaddress"]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^Error: .*invalid address.*notanaddress/);
    const nobody = addressToBech32(new Uint8Array(20).fill(7));
    const account = await cliFails(["query", "auth", "account", nobody]);
    assert.match(account.stderr, new RegExp(`account ${nobody} not found`));
  });

  test("--grpc-addr answers the same as --node, and --height reads older state", async () => {
    assert.ok(node.grpcAddr);
    const overRpc = await cliJson(["query", "staking", "validators"]);
    const overGrpc = await runClientCli([
      "query",
      "staking",
      "validators",
      "--grpc-addr",
      node.grpcAddr,
      "--home",
      home,
      "-o",
      "json",
    ]);
    assert.equal(overGrpc.code, 0, overGrpc.stderr);
    assert.deepEqual(JSON.parse(overGrpc.stdout), overRpc);

    const before = await balanceOf(chain.addresses.bob);
    const latest = await cliJson<{ block: { header: { height: string } } }>(["query", "block"]);
    const height = latest.block.header.height;
    const sent = await cli(["tx", "bank", "send", "alice", chain.addresses.bob, "11stake", "--yes", "--wait"]);
    assert.equal(sent.code, 0, sent.stderr);
    assert.equal(await balanceOf(chain.addresses.bob), before + 11n);
    const old = await cliJson<{ balances: { amount: string }[] }>([
      "query",
      "bank",
      "balances",
      chain.addresses.bob,
      "--height",
      height,
    ]);
    assert.equal(BigInt(old.balances[0].amount), before);
  });

  test("query block: CometBFT's block JSON; a future height is the node's error", async () => {
    const block = await cliJson<{
      block_id: { hash: string };
      block: { header: { height: string; chain_id: string } };
    }>(["query", "block", "1"]);
    assert.equal(block.block.header.height, "1");
    assert.equal(block.block.header.chain_id, chain.chainId);
    assert.match(block.block_id.hash, /^[0-9A-F]{64}$/);
    const future = await cliFails(["query", "block", "999999"]);
    assert.match(
      future.stderr,
      /^Error: height 999999 must be less than or equal to the current blockchain height \d+/,
    );
    const bad = await cliFails(["query", "block", "tip"]);
    assert.match(bad.stderr, /invalid height "tip": expected a non-negative whole number/);
  });
});

describe("transactions", () => {
  test("send --wait prints the tx's result from its block; query tx finds it by hash, acc_seq, signature, events", async () => {
    const bob = await balanceOf(chain.addresses.bob);
    const response = await cliJson<Record<string, unknown>>([
      "tx",
      "bank",
      "send",
      "alice",
      chain.addresses.bob,
      "1000stake",
      "--yes",
      "--wait",
      "--note",
      "hello",
    ]);
    assert.deepEqual(Object.keys(response), [
      "height",
      "txhash",
      "codespace",
      "code",
      "data",
      "raw_log",
      "logs",
      "info",
      "gas_wanted",
      "gas_used",
      "tx",
      "timestamp",
      "events",
    ]);
    assert.equal(response.code, 0);
    assert.ok(BigInt(response.height as string) > 0n);
    assert.match(response.txhash as string, /^[0-9A-F]{64}$/);
    assert.match(response.timestamp as string, /^\d{4}-\d\d-\d\dT/);
    const tx = response.tx as { "@type": string; body: { memo: string; messages: Record<string, unknown>[] } };
    assert.equal(tx["@type"], "/chain.tx.v1beta1.Tx");
    assert.equal(tx.body.memo, "hello");
    assert.equal(tx.body.messages[0]["@type"], "/chain.bank.v1beta1.MsgSend");
    assert.equal(await balanceOf(chain.addresses.bob), bob + 1000n);

    const byHash = await cliJson(["query", "tx", response.txhash as string]);
    assert.deepEqual(byHash, response);
    const events = response.events as { type: string; attributes: { key: string; value: string }[] }[];
    const accSeq = events.flatMap((e) => e.attributes).find((a) => a.key === "acc_seq")?.value;
    assert.ok(accSeq);
    assert.deepEqual(await cliJson(["query", "tx", "--type", "acc_seq", accSeq]), response);
    const signature = (response.tx as { signatures: string[] }).signatures[0];
    assert.deepEqual(await cliJson(["query", "tx", "--type", "signature", signature]), response);
    const search = await cliJson<{ total_count: string; txs: { txhash: string }[] }>([
      "query",
      "txs",
      "--query",
      `tx.height=${response.height}`,
    ]);
    assert.equal(search.total_count, "1");
    assert.equal(search.txs[0].txhash, response.txhash);
    const viaType = await cliJson(["query", "tx", "--type", "events", `tx.height=${response.height}`]);
    assert.deepEqual(viaType, search);
  });

  test("sync broadcast without --wait prints the CheckTx outcome (height 0); async prints the hash", async () => {
    const sync = await cliJson<Record<string, unknown>>([
      "tx",
      "bank",
      "send",
      "alice",
      chain.addresses.bob,
      "1stake",
      "-y",
    ]);
    assert.equal(sync.height, "0");
    assert.equal(sync.code, 0);
    assert.equal(sync.tx, null);
    await node.waitForHeight(node.embedded.engine.store.height + 2n);
    const asyncRun = await cliJson<Record<string, unknown>>([
      "tx",
      "bank",
      "send",
      "alice",
      chain.addresses.bob,
      "1stake",
      "-y",
      "-b",
      "async",
      "--wait",
    ]);
    assert.ok(BigInt(asyncRun.height as string) > 0n, "async + --wait waits for the block");
  });

  test("query wait-tx waits for a hash given or piped from a tx command (JSON or YAML), as upstream v0.50.6+", async () => {
    const sync = await cli(["tx", "bank", "send", "alice", chain.addresses.bob, "2stake", "-y"]);
    assert.equal(sync.code, 0, sync.stderr);
    const piped = await cli(["query", "wait-tx", "-o", "json"], { stdin: sync.stdout });
    assert.equal(piped.code, 0, piped.stderr);
    const included = JSON.parse(piped.stdout) as { height: string; txhash: string; code: number };
    assert.ok(BigInt(included.height) > 0n, "printed from its block");
    assert.equal(included.code, 0);
    assert.deepEqual(await cliJson(["query", "wait-tx", included.txhash.toLowerCase()]), included);
    const fromJson = await cli(["query", "wait-tx", "-o", "json"], {
      stdin: JSON.stringify({ txhash: included.txhash }),
    });
    assert.deepEqual(JSON.parse(fromJson.stdout), included);

    const missing = "AB".repeat(32);
    const late = await cliFails(["query", "wait-tx", missing, "--timeout", "300ms"]);
    assert.equal(late.stderr, `Error: timed out waiting for transaction ${missing} to be included in a block\n`);
    assert.match((await cliFails(["query", "wait-tx", "xyz"])).stderr, /invalid tx hash "xyz": expected 64 hex/);
    assert.match((await cliFails(["query", "wait-tx"], { stdin: "hello\n" })).stderr, /no tx hash given/);
  });

  test("tx results print YAML by default (as upstream's text output); --generate-only documents are JSON", async () => {
    const text = await cli(["tx", "bank", "send", "alice", chain.addresses.bob, "1stake", "-y"]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^code: 0\ncodespace: ""\n/);
    const byDefault = await runClientCli([
      "tx",
      "bank",
      "send",
      "alice",
      chain.addresses.bob,
      "1stake",
      "-y",
      "--generate-only",
      "--home",
      home,
      "--node",
      node.node,
    ]);
    assert.equal(byDefault.code, 0, byDefault.stderr);
    assert.ok(JSON.parse(byDefault.stdout).body);
  });

  test("wrong sequence: the CheckTx response on stdout, the upstream text on stderr, exit 1", async () => {
    const run = await cliFails([
      "tx",
      "bank",
      "send",
      "bob",
      chain.addresses.alice,
      "5stake",
      "--sequence",
      "77",
      "-y",
      "-o",
      "json",
    ]);
    assert.equal(run.code, 1);
    assert.equal(JSON.parse(run.stdout).code, 32);
    assert.match(
      run.stderr,
      /^Error: tx [0-9A-F]{64} failed with code 32 \(sdk\): account sequence mismatch, expected \d+, got 77: incorrect account sequence\n$/,
    );
  });

  test("insufficient funds: the block's result with code 5 and the bank's message", async () => {
    const run = await cliFails([
      "tx",
      "bank",
      "send",
      "bob",
      chain.addresses.alice,
      "999999999999999stake",
      "-y",
      "--wait",
      "-o",
      "json",
    ]);
    const response = JSON.parse(run.stdout);
    assert.equal(response.code, 5);
    assert.ok(BigInt(response.height) > 0n);
    assert.match(
      run.stderr,
      /^Error: tx [0-9A-F]{64} failed in block \d+ with code 5 \(sdk\): .*spendable balance \d+stake is smaller than 999999999999999stake: insufficient funds/,
    );
  });

  test("fees beyond the balance fail in CheckTx with insufficient funds", async () => {
    const run = await cliFails([
      "tx",
      "bank",
      "send",
      "bob",
      chain.addresses.alice,
      "1stake",
      "--fees",
      "999999999999999stake",
      "-y",
    ]);
    assert.match(run.stderr, /failed with code 5 \(sdk\): .*insufficient funds/);
  });

  test("--gas auto simulates (estimate on stderr) and the tx passes", async () => {
    const run = await cli([
      "tx",
      "bank",
      "send",
      "alice",
      chain.addresses.bob,
      "2stake",
      "--gas",
      "auto",
      "--gas-adjustment",
      "1.2",
      "-y",
      "--wait",
      "-o",
      "json",
    ]);
    assert.equal(run.code, 0, run.stderr);
    const estimate = /gas estimate: (\d+)/.exec(run.stderr);
    assert.ok(estimate, run.stderr);
    const response = JSON.parse(run.stdout);
    assert.equal(response.gas_wanted, estimate[1]);
    assert.ok(BigInt(response.gas_used) <= BigInt(estimate[1]));
  });

  test("--gas auto with --fees simulates the tx with its fee: the default adjustment (1) is enough", async () => {
    // Upstream's CLI simulates the tx it will send, fee included; without the fee the estimate misses the fee
    // transfer's reads and writes and the tx runs out of gas in the block.
    const run = await cli([
      "tx",
      "bank",
      "send",
      "alice",
      chain.addresses.bob,
      "2stake",
      "--gas",
      "auto",
      "--fees",
      "1000stake",
      "-y",
      "--wait",
      "-o",
      "json",
    ]);
    assert.equal(run.code, 0, run.stderr);
    const response = JSON.parse(run.stdout);
    assert.equal(response.code, 0, response.raw_log);
    assert.ok(BigInt(response.gas_used) <= BigInt(response.gas_wanted));
  });

  test("confirmation: the unsigned tx and the prompt on stderr; anything but y cancels, y sends", async () => {
    const bob = await balanceOf(chain.addresses.bob);
    const no = await cliFails(["tx", "bank", "send", "alice", chain.addresses.bob, "3stake"], { stdin: "n\n" });
    assert.match(no.stderr, /"@type":"\/chain\.bank\.v1beta1\.MsgSend"/);
    assert.match(no.stderr, /confirm transaction before signing and broadcasting \[y\/N\]: /);
    assert.match(no.stderr, /Error: canceled transaction\n$/);
    assert.equal(no.stdout, "");
    const eof = await cliFails(["tx", "bank", "send", "alice", chain.addresses.bob, "3stake"]);
    assert.match(eof.stderr, /canceled transaction: no answer on standard input \(pass --yes/);
    const yes = await cli(["tx", "bank", "send", "alice", chain.addresses.bob, "3stake", "--wait"], { stdin: "y\n" });
    assert.equal(yes.code, 0, yes.stderr);
    assert.equal(await balanceOf(chain.addresses.bob), bob + 3n);
  });

  test("generate-only → sign → encode/decode → broadcast, with the document's checks", async () => {
    const unsigned = await cliJson<Record<string, unknown>>([
      "tx",
      "bank",
      "send",
      chain.addresses.bob,
      chain.addresses.alice,
      "7stake",
      "--generate-only",
      "--fees",
      "10stake",
    ]);
    assert.deepEqual(unsigned.auth_info, {
      signer_infos: [],
      fee: { amount: [{ denom: "stake", amount: "10" }], gas_limit: "200000", payer: "", granter: "" },
      tip: null,
    });
    assert.deepEqual(unsigned.signatures, []);
    const unsignedFile = join(home, "unsigned.json");
    await writeFile(unsignedFile, JSON.stringify(unsigned));

    const signedFile = join(home, "signed.json");
    const signRun = await cli(["tx", "sign", unsignedFile, "--from", "bob", "--output-document", signedFile]);
    assert.equal(signRun.code, 0, signRun.stderr);
    assert.equal(signRun.stdout, "");
    const signed = JSON.parse(await readFile(signedFile, "utf8"));
    assert.equal(signed.auth_info.signer_infos[0].mode_info.single.mode, "SIGN_MODE_DIRECT");
    assert.equal(signed.signatures.length, 1);

    const again = await cliFails(["tx", "sign", signedFile, "--from", "bob"]);
    assert.match(again.stderr, /the tx already has 1 signature\(s\): pass --overwrite to replace them/);
    // A key the tx does not name as a signer is refused before anything is signed, as upstream's client does.
    const stranger = await cliFails(["tx", "sign", unsignedFile, "--from", "alice"]);
    assert.match(stranger.stderr, /tx intended signer does not match the given signer: alice/);
    assert.equal(stranger.stdout, "");
    const sigOnly = await cliJson<{ signatures: { data: { single: { mode: string } } }[] }>([
      "tx",
      "sign",
      unsignedFile,
      "--from",
      "bob",
      "--signature-only",
    ]);
    assert.equal(sigOnly.signatures[0].data.single.mode, "SIGN_MODE_DIRECT");

    const encoded = await cli(["tx", "encode", signedFile]);
    assert.equal(encoded.code, 0, encoded.stderr);
    assert.match(encoded.stdout, /^[A-Za-z0-9+/]+=*\n$/);
    const fromStdin = await cli(["tx", "encode", "-"], { stdin: JSON.stringify(signed) });
    assert.equal(fromStdin.stdout, encoded.stdout);
    const decoded = await cliJson(["tx", "decode", encoded.stdout.trim()]);
    assert.deepEqual(decoded, signed);
    const hex = Buffer.from(encoded.stdout.trim(), "base64").toString("hex");
    assert.deepEqual(await cliJson(["tx", "decode", "--hex", hex]), signed);
    const garbage = await cliFails(["tx", "decode", "AAAA"]);
    assert.match(garbage.stderr, /malformed tx bytes/);

    const alice = await balanceOf(chain.addresses.alice);
    const broadcast = await cliJson<{ code: number; height: string }>(["tx", "broadcast", signedFile, "--wait"]);
    assert.equal(broadcast.code, 0);
    assert.equal(await balanceOf(chain.addresses.alice), alice + 7n);
    // The mempool's cache refuses the same bytes again: as upstream's CheckCometError, that is a TxResponse with
    // sdk code 19 (printed, then the failure on stderr), not a bare transport error.
    const replay = await cliFails(["tx", "broadcast", signedFile, "-o", "json"]);
    assert.match(replay.stderr, /tx already exists in cache/);
    const refused = JSON.parse(replay.stdout);
    assert.deepEqual([refused.code, refused.codespace, refused.height, refused.raw_log], [19, "sdk", "0", ""]);
    assert.match(refused.txhash, /^[0-9A-F]{64}$/);

    await writeFile(join(home, "bad.json"), "{ nope");
    const bad = await cliFails(["tx", "broadcast", join(home, "bad.json")]);
    assert.match(bad.stderr, /tx file .*bad\.json is not JSON/);
    const missing = await cliFails(["tx", "sign", join(home, "missing.json"), "--from", "bob"]);
    assert.match(missing.stderr, /cannot read tx file .*missing\.json/);
  });

  test("file keyring: the passphrase from CHAIND_KEYRING_PASSPHRASE signs; a wrong one is refused", async () => {
    const fileKeyring = openKeyring({
      home,
      backend: "file",
      passphrase: async () => "correct horse",
      scrypt: { n: 2 ** 4, r: 8, p: 1 },
    });
    await fileKeyring.recover("carol", TEST_MNEMONICS.bob);
    const args = [
      ...["tx", "bank", "send", "carol", chain.addresses.alice, "1stake", "--keyring-backend", "file", "-y"],
      ...["-o", "json"],
    ];
    const withEnv = (passphrase: string) =>
      runClientCli([...args, "--home", home, "--node", node.node], { env: { CHAIND_KEYRING_PASSPHRASE: passphrase } });
    const good = await withEnv("correct horse");
    assert.equal(good.code, 0, good.stderr);
    assert.equal(JSON.parse(good.stdout).code, 0);
    const bad = await withEnv("wrong horse");
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^Error: .*passphrase/i);
    assert.equal(bad.stdout, "");
    const prompted = await runClientCli([...args, "--home", home, "--node", node.node], { stdin: "" });
    assert.equal(prompted.code, 1);
    assert.match(
      prompted.stderr,
      /Enter keyring passphrase:\n.*no passphrase: set CHAIND_KEYRING_PASSPHRASE or type it on standard input/s,
    );
  });

  test("user errors are clear: unknown key, bad address, bad coins, unreachable node, unknown tx", async () => {
    const unknownKey = await cliFails(["tx", "bank", "send", "carol", chain.addresses.bob, "1stake", "-y"]);
    assert.match(unknownKey.stderr, /key "carol" not found in the test keyring/);
    const badTo = await cliFails(["tx", "bank", "send", "alice", "chain1nope", "1stake", "-y"]);
    assert.match(badTo.stderr, /^Error: invalid to address "chain1nope"/);
    const badCoins = await cliFails(["tx", "bank", "send", "alice", chain.addresses.bob, "lots", "-y"]);
    assert.match(badCoins.stderr, /invalid coins "lots"/);
    const noNode = await runClientCli(["query", "bank", "total", "--node", "tcp://127.0.0.1:1", "--home", home]);
    assert.equal(noNode.code, 1);
    assert.match(
      noNode.stderr,
      /^Error: cannot reach the node at http:\/\/127\.0\.0\.1:1 \(abci_query\): .*is it running\?/,
    );
    const unknownTx = await cliFails(["query", "tx", "AB".repeat(32)]);
    assert.equal(unknownTx.stderr, `Error: tx (${"AB".repeat(32)}) not found\n`);
    const badHash = await cliFails(["query", "tx", "xyz"]);
    assert.match(badHash.stderr, /invalid tx hash "xyz": expected 64 hexadecimal characters/);
    const noFrom = await cliFails(["tx", "gov", "vote", "1", "yes", "-y"]);
    assert.match(noFrom.stderr, /--from is required/);
  });
});

describe("module commands", () => {
  test("staking: delegate, then the delegation and validator queries show it", async () => {
    const delegated = await cliJson<{ code: number }>([
      "tx",
      "staking",
      "delegate",
      chain.validatorOperator,
      "5000000stake",
      "--from",
      "alice",
      "-y",
      "--wait",
    ]);
    assert.equal(delegated.code, 0);
    const delegation = await cliJson<{ delegation_response: { balance: { amount: string } } }>([
      "query",
      "staking",
      "delegation",
      chain.addresses.alice,
      chain.validatorOperator,
    ]);
    assert.equal(delegation.delegation_response.balance.amount, "5000000");
    const validator = await cliJson<{ validator: { tokens: string } }>([
      "query",
      "staking",
      "validator",
      chain.validatorOperator,
    ]);
    assert.ok(BigInt(validator.validator.tokens) >= 105_000_000n);
    assert.ok((await cliJson(["query", "staking", "pool"])).pool);
    const badValidator = await cliFails([
      "tx",
      "staking",
      "delegate",
      "chain1notvaloper",
      "1stake",
      "--from",
      "alice",
      "-y",
    ]);
    assert.match(badValidator.stderr, /^Error: invalid validator address "chain1notvaloper"/);
  });

  test("staking create-validator and upgrade cancel: the messages they build (--generate-only)", async () => {
    const validatorFile = join(home, "validator.json");
    await writeFile(
      validatorFile,
      JSON.stringify({
        pubkey: { "@type": "/chain.crypto.ed25519.PubKey", key: Buffer.alloc(32, 9).toString("base64") },
        amount: "1000000stake",
        moniker: "second",
        "commission-rate": "0.1",
        "commission-max-rate": "0.2",
        "commission-max-change-rate": "0.01",
        "min-self-delegation": "1",
      }),
    );
    const create = await cliJson<{ body: { messages: Record<string, unknown>[] } }>([
      "tx",
      "staking",
      "create-validator",
      validatorFile,
      "--from",
      "bob",
      "--generate-only",
    ]);
    const msg = create.body.messages[0];
    assert.equal(msg["@type"], "/chain.staking.v1beta1.MsgCreateValidator");
    assert.equal(msg.validator_address, addressToBech32(addressFromBech32(chain.addresses.bob), "val"));
    assert.deepEqual(msg.value, { denom: "stake", amount: "1000000" });

    const cancel = await cliJson<{ body: { messages: Record<string, unknown>[] } }>([
      "tx",
      "upgrade",
      "cancel-software-upgrade",
      "--title",
      "stop",
      "--deposit",
      "10000000stake",
      "--from",
      "alice",
      "--generate-only",
    ]);
    const submit = cancel.body.messages[0];
    assert.deepEqual(submit.messages, [{ "@type": "/chain.upgrade.v1beta1.MsgCancelUpgrade", authority: GOV }]);
    const noTitle = await cliFails(["tx", "upgrade", "cancel-software-upgrade", "--from", "alice", "--generate-only"]);
    assert.match(noTitle.stderr, /required option '--title <title>' not specified/);
  });

  test("gov: submit-proposal from a file, deposit, weighted vote, and the queries", async () => {
    const proposalFile = join(home, "proposal.json");
    await writeFile(
      proposalFile,
      JSON.stringify({
        messages: [
          {
            "@type": "/chain.upgrade.v1beta1.MsgSoftwareUpgrade",
            authority: GOV,
            plan: { name: "from-file", height: "100000", info: "" },
          },
        ],
        metadata: "",
        deposit: "1000000stake",
        title: "Upgrade from a file",
        summary: "a proposal file",
      }),
    );
    const submitted = await cliJson<{
      code: number;
      events: { type: string; attributes: { key: string; value: string }[] }[];
    }>(["tx", "gov", "submit-proposal", proposalFile, "--from", "alice", "-y", "--wait"]);
    assert.equal(submitted.code, 0);
    const id = submitted.events
      .filter((e) => e.type === "submit_proposal")
      .flatMap((e) => e.attributes)
      .find((a) => a.key === "proposal_id")?.value;
    assert.ok(id, "the submit_proposal event names the proposal");
    let proposal = await cliJson<{ proposal: { status: string; title: string } }>(["query", "gov", "proposal", id]);
    assert.equal(proposal.proposal.status, "PROPOSAL_STATUS_DEPOSIT_PERIOD");
    assert.equal(proposal.proposal.title, "Upgrade from a file");

    const deposited = await cliJson<{ code: number }>([
      "tx",
      "gov",
      "deposit",
      id,
      "9000000stake",
      "--from",
      "bob",
      "-y",
      "--wait",
    ]);
    assert.equal(deposited.code, 0);
    proposal = await cliJson(["query", "gov", "proposal", id]);
    assert.equal(proposal.proposal.status, "PROPOSAL_STATUS_VOTING_PERIOD");
    const deposits = await cliJson<{ deposits: unknown[] }>(["query", "gov", "deposits", id]);
    assert.equal(deposits.deposits.length, 2);
    const deposit = await cliJson<{ deposit: { depositor: string } }>([
      "query",
      "gov",
      "deposit",
      id,
      chain.addresses.bob,
    ]);
    assert.equal(deposit.deposit.depositor, chain.addresses.bob);

    const voted = await cliJson<{ code: number }>([
      "tx",
      "gov",
      "weighted-vote",
      id,
      "yes=0.6,no=0.4",
      "--from",
      "validator",
      "-y",
      "--wait",
    ]);
    assert.equal(voted.code, 0);
    const vote = await cliJson<{ vote: { options: { option: string; weight: string }[] } }>([
      "query",
      "gov",
      "vote",
      id,
      chain.addresses.validator,
    ]);
    assert.deepEqual(
      vote.vote.options.map((o) => o.option),
      ["VOTE_OPTION_YES", "VOTE_OPTION_NO"],
    );
    const tally = await cliJson<{ tally: { yes_count: string } }>(["query", "gov", "tally", id]);
    assert.ok(BigInt(tally.tally.yes_count) > 0n);
    const votes = await cliJson<{ votes: unknown[] }>(["query", "gov", "votes", id]);
    assert.equal(votes.votes.length, 1);
    const proposals = await cliJson<{ proposals: unknown[] }>([
      "query",
      "gov",
      "proposals",
      "--status",
      "voting_period",
    ]);
    assert.ok(proposals.proposals.length >= 1);
    const params = await cliJson<{ params: { voting_period: string } }>(["query", "gov", "params"]);
    assert.equal(params.params.voting_period, "30s");

    const badOption = await cliFails(["tx", "gov", "vote", id, "maybe", "--from", "alice", "-y"]);
    assert.equal(
      badOption.stderr,
      "Error: 'maybe' is not a valid vote option: expected yes, no, no_with_veto or abstain\n",
    );
    const badId = await cliFails(["query", "gov", "proposal", "first"]);
    assert.match(badId.stderr, /proposal-id first not a valid uint/);
  });

  test("upgrade: no plan → stderr and exit 1; module versions; unknown module named; authority; applied unknown", async () => {
    const plan = await cliFails(["query", "upgrade", "plan"]);
    assert.equal(plan.code, 1);
    assert.equal(plan.stdout, "");
    assert.equal(plan.stderr, "Error: no upgrade scheduled\n");

    const versions = await cliJson<{ module_versions: { name: string; version: string }[] }>([
      "query",
      "upgrade",
      "module_versions",
    ]);
    const names = versions.module_versions.map((v) => v.name);
    assert.deepEqual(names, [...names].sort());
    assert.ok(names.includes("upgrade") && names.includes("bank"));
    assert.deepEqual(await cliJson(["query", "upgrade", "module-versions", "bank"]), {
      module_versions: [versions.module_versions.find((v) => v.name === "bank")],
    });
    const text = await cli(["query", "upgrade", "module_versions", "upgrade"]);
    assert.equal(text.stdout, 'module_versions:\n- name: upgrade\n  version: "1"\n');
    const unknown = await cliFails(["query", "upgrade", "module_versions", "nosuchmodule"]);
    assert.match(unknown.stderr, /^Error: module "nosuchmodule" has no version on chain: .*nosuchmodule/);

    assert.deepEqual(await cliJson(["query", "upgrade", "authority"]), { address: GOV });
    const applied = await cliFails(["query", "upgrade", "applied", "never"]);
    assert.equal(applied.stderr, "Error: no upgrade found\n");
  });

  test("upgrade client: the block-meta record of a height, gov timing params, the chain's pace", async () => {
    const session = new ClientSession({ stdout: { write: () => true }, stderr: { write: () => true } });
    const ctx = session.open({ home, node: node.node, output: "json" });
    try {
      const client = upgradeCliClient(ctx);
      const meta = (await client.getBlockByHeight(2n)) as {
        block_id: { hash: string; parts: { total: unknown; hash: string } };
        block_size: string;
        header: Record<string, unknown>;
        num_txs: string;
      };
      assert.deepEqual(Object.keys(meta), ["block_id", "block_size", "header", "num_txs"]);
      assert.match(meta.block_id.hash, /^[0-9A-F]{64}$/);
      assert.equal(typeof meta.block_id.parts.total, "number");
      assert.match(meta.block_size, /^\d+$/);
      assert.equal(meta.header.height, "2");
      assert.equal(meta.header.chain_id, chain.chainId);
      for (const field of ["last_commit_hash", "data_hash", "validators_hash", "app_hash", "proposer_address"]) {
        assert.match(meta.header[field] as string, /^[0-9A-F]+$/, field);
      }
      assert.equal(await client.getBlockByHeight(10_000_000n), undefined);
      assert.deepEqual(await client.govParams(), { votingPeriodMs: 30_000, maxDepositPeriodMs: 30_000 });
      const pace = await client.averageBlockTime();
      assert.ok(pace.latestHeight >= 2n);
      assert.ok(pace.averageBlockTimeMs > 0 && pace.averageBlockTimeMs < 10_000, String(pace.averageBlockTimeMs));
    } finally {
      ctx.close();
    }
  });

  test("tx upgrade software-upgrade --generate-only prints the unsigned proposal tx (with the timing warning)", async () => {
    const run = await cli([
      "tx",
      "upgrade",
      "software-upgrade",
      "v9",
      "--title",
      "v9",
      "--summary",
      "s",
      "--deposit",
      "10000000stake",
      "--upgrade-height",
      "50",
      "--no-validate",
      "--from",
      chain.addresses.alice,
      "--generate-only",
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /^warning: .*cancel/m);
    const tx = JSON.parse(run.stdout) as { body: { messages: Record<string, unknown>[] } };
    const submit = tx.body.messages[0];
    assert.equal(submit["@type"], "/chain.gov.v1.MsgSubmitProposal");
    assert.equal(submit.proposer, chain.addresses.alice);
    assert.deepEqual(submit.initial_deposit, [{ denom: "stake", amount: "10000000" }]);
    const inner = (submit.messages as Record<string, unknown>[])[0];
    assert.equal(inner["@type"], "/chain.upgrade.v1beta1.MsgSoftwareUpgrade");
    assert.deepEqual(inner.plan, {
      name: "v9",
      time: "0001-01-01T00:00:00Z",
      height: "50",
      info: "",
      upgraded_client_state: null,
    });
  });
});
