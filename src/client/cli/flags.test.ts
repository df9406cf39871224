// Unit tests of the client flags and the small pure pieces of the client commands: flag parsing and its
// error messages, coins, fees and gas arithmetic, pagination, events queries, output shapes.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { Command } from "commander";
import fc from "fast-check";
import { TxResponseSchema } from "../../gen/chain/base/abci/v1beta1/abci_pb.js";
import { coinsArgument } from "../../x/bank/client/cli.ts";
import { blockPace } from "../../x/upgrade/client/cli-client.ts";
import { eventsQuery } from "./chain-commands.ts";
import { CliError } from "./errors.ts";
import {
  addQueryFlags,
  addTxFlags,
  parseBroadcastMode,
  parseGasAdjustment,
  parseGasSetting,
  parseUint64,
  readOutputFormat,
  readQueryFlags,
  readTxFlags,
} from "./flags.ts";
import { formatValue, sortKeys } from "./output.ts";
import { readPageRequest } from "./paging.ts";
import { txFailureMessage } from "./tx-response.ts";
import { applyAdjustment, feeAmount } from "./tx-sender.ts";

/** Parses `args` with a leaf carrying the tx flags under a root with the global flags; returns the options. */
function parseTx(args: string[]): Record<string, unknown> {
  let seen: Record<string, unknown> = {};
  const root = new Command("chaind").option("--home <dir>", "", "/h").option("-o, --output <format>", "", "text");
  const leaf = addTxFlags(new Command("send")).action((_opts: unknown, command: Command) => {
    seen = command.optsWithGlobals();
  });
  root.addCommand(leaf);
  root.exitOverride();
  leaf.exitOverride();
  root.parse(["send", ...args], { from: "user" });
  return seen;
}

function throwsCli(fn: () => unknown, pattern: RegExp): void {
  assert.throws(fn, (err: unknown) => err instanceof CliError && pattern.test(err.message));
}

test("tx flags: defaults are upstream's (gas 200000, adjustment 1, sync, test keyring, empty memo)", () => {
  const flags = readTxFlags(parseTx([]));
  assert.equal(flags.node, "tcp://localhost:26657");
  assert.deepEqual(flags.gas, { auto: false, limit: 200000n });
  assert.equal(flags.gasAdjustment, "1");
  assert.equal(flags.broadcastMode, "sync");
  assert.equal(flags.keyringBackend, "test");
  assert.equal(flags.note, "");
  assert.equal(flags.yes, false);
  assert.equal(flags.wait, false);
  assert.equal(flags.generateOnly, false);
  assert.equal(flags.waitTimeoutMs, 60_000);
  assert.equal(flags.timeoutHeight, 0n);
  assert.equal(flags.accountNumber, undefined);
  assert.equal(flags.output, "text");
  assert.equal(flags.home, "/h");
});

test("--node: without it, the home's config.toml rpc.laddr; an explicit --node wins; a broken config.toml is named", async () => {
  const root = await mkdtemp(join(tmpdir(), "flags-node-"));
  try {
    const home = join(root, "home");
    await mkdir(join(home, "config"), { recursive: true });
    await writeFile(join(home, "config", "config.toml"), '[rpc]\nladdr = "tcp://0.0.0.0:31657"\n');
    assert.equal(readTxFlags(parseTx(["--home", home])).node, "tcp://127.0.0.1:31657");
    assert.equal(readTxFlags(parseTx(["--home", home, "--node", "tcp://10.0.0.9:1"])).node, "tcp://10.0.0.9:1");
    // A home with no config.toml names no node: the client default.
    assert.equal(readTxFlags(parseTx(["--home", join(root, "none")])).node, "tcp://localhost:26657");
    await writeFile(join(home, "config", "config.toml"), '[rpc]\nladdr = "unix:///tmp/rpc.sock"\n');
    throwsCli(
      () => readTxFlags(parseTx(["--home", home])),
      /^cannot tell which node to ask \(give --node\): .*rpc\.laddr/,
    );
    assert.equal(readTxFlags(parseTx(["--home", home, "--node", "tcp://10.0.0.9:1"])).node, "tcp://10.0.0.9:1");
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test("tx flags: every flag is read, short forms included", () => {
  const flags = readTxFlags(
    parseTx([
      "--from",
      "alice",
      "--chain-id",
      "c-1",
      "--keyring-backend",
      "file",
      "--fees",
      "10stake",
      "--gas",
      "auto",
      "--gas-adjustment",
      "1.25",
      "-y",
      "--generate-only",
      "-b",
      "async",
      "--note",
      "hi",
      "--wait",
      "--wait-timeout",
      "2s",
      "-a",
      "3",
      "-s",
      "9",
      "--timeout-height",
      "100",
      "--node",
      "http://10.0.0.1:1234",
      "--grpc-addr",
      "localhost:9090",
      "-o",
      "json",
    ]),
  );
  assert.equal(flags.from, "alice");
  assert.equal(flags.chainId, "c-1");
  assert.equal(flags.keyringBackend, "file");
  assert.equal(flags.fees, "10stake");
  assert.deepEqual(flags.gas, { auto: true });
  assert.equal(flags.gasAdjustment, "1.25");
  assert.equal(flags.yes, true);
  assert.equal(flags.generateOnly, true);
  assert.equal(flags.broadcastMode, "async");
  assert.equal(flags.note, "hi");
  assert.equal(flags.wait, true);
  assert.equal(flags.waitTimeoutMs, 2000);
  assert.equal(flags.accountNumber, 3n);
  assert.equal(flags.sequence, 9n);
  assert.equal(flags.timeoutHeight, 100n);
  assert.equal(flags.node, "http://10.0.0.1:1234");
  assert.equal(flags.grpcAddr, "localhost:9090");
  assert.equal(flags.output, "json");
});

test("tx flags: bad values are refused with the flag's name and what was expected", () => {
  throwsCli(() => readTxFlags(parseTx(["--gas", "lots"])), /invalid --gas "lots": expected "auto" or a whole number/);
  throwsCli(() => readTxFlags(parseTx(["--gas", "-5"])), /invalid --gas/);
  throwsCli(() => readTxFlags(parseTx(["--gas-adjustment", "0"])), /invalid --gas-adjustment "0": expected a positive/);
  throwsCli(() => readTxFlags(parseTx(["--gas-adjustment", "x1"])), /invalid --gas-adjustment/);
  throwsCli(
    () => readTxFlags(parseTx(["-b", "block"])),
    /^unsupported return type block; supported types: sync, async$/,
  );
  // As upstream (AccAddressFromBech32 on --fee-payer): a payer that is no account address is refused before any
  // tx is built, --generate-only included, instead of landing in the fee as written.
  throwsCli(
    () => readTxFlags(parseTx(["--fee-payer", "zzz", "--generate-only"])),
    /^invalid --fee-payer "zzz": invalid bech32 string "zzz"/,
  );
  throwsCli(
    () => readTxFlags(parseTx(["--fee-payer", "chainvaloper1ga6mgeekmete4uj6afhp84z4pqd7nzf40pcazf"])),
    /^invalid --fee-payer "chainvaloper1\w+": invalid bech32 string .*prefix "chainvaloper", expected "chain"/,
  );
  assert.equal(
    readTxFlags(parseTx(["--fee-payer", "chain1ga6mgeekmete4uj6afhp84z4pqd7nzf44fe6un"])).feePayer,
    "chain1ga6mgeekmete4uj6afhp84z4pqd7nzf44fe6un",
  );
  throwsCli(
    () => readTxFlags(parseTx(["--wait-timeout", "soon"])),
    /invalid --wait-timeout "soon": expected a duration/,
  );
  throwsCli(() => readTxFlags(parseTx(["--sequence", "-1"])), /invalid --sequence "-1": expected a non-negative whole/);
  throwsCli(
    () => readTxFlags(parseTx(["--fees", "1stake", "--gas-prices", "0.1stake"])),
    /cannot provide both fees and gas prices/,
  );
  throwsCli(() => readTxFlags({ output: "yaml" }), /invalid --output "yaml": expected text or json/);
});

test("query flags: --height is parsed by commander into a bigint; a bad one is a usage error", () => {
  let seen: Record<string, unknown> = {};
  const leaf = addQueryFlags(new Command("q")).action((_opts: unknown, command: Command) => {
    seen = command.opts();
  });
  leaf.exitOverride().configureOutput({ writeErr: () => {} });
  leaf.parse(["--height", "42"], { from: "user" });
  assert.equal(readQueryFlags(seen).height, 42n);
  assert.throws(
    () => leaf.parse(["--height", "4x"], { from: "user" }),
    (err: Error) => /invalid --height "4x": expected a non-negative whole number/.test(err.message),
  );
  assert.throws(
    () => leaf.parse(["--height", "9223372036854775808"], { from: "user" }),
    (err: Error) => /does not fit a signed 64-bit integer/.test(err.message),
  );
});

test("small parsers: gas, broadcast mode, uint64, output", () => {
  assert.deepEqual(parseGasSetting(" auto "), { auto: true });
  assert.deepEqual(parseGasSetting("18446744073709551615"), { auto: false, limit: 18446744073709551615n });
  throwsCli(() => parseGasSetting("18446744073709551616"), /does not fit an unsigned 64-bit integer/);
  assert.equal(parseBroadcastMode("async"), "async");
  assert.equal(parseGasAdjustment("1.50"), "1.50");
  assert.equal(parseUint64("9223372036854775807", "--x", 63), 9223372036854775807n);
  throwsCli(() => parseUint64("9223372036854775808", "--x", 63), /--x .* signed 64-bit/);
  assert.equal(readOutputFormat(undefined), "text");
});

test("gas adjustment: gas × factor truncated, as upstream's uint64(float64 × float64)", () => {
  assert.equal(applyAdjustment(100000n, "1"), 100000n);
  assert.equal(applyAdjustment(43637n, "1.5"), 65455n); // 65455.5
  assert.equal(applyAdjustment(43637n, "1.1"), 48000n); // 48000.7
  assert.equal(applyAdjustment(43638n, "1.3"), 56729n); // 56729.4
  assert.equal(applyAdjustment(8n, "1.25"), 10n); // exact
  assert.equal(applyAdjustment(100000n, "1.1"), 110000n); // 110000.00000000001 in doubles
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.integer({ min: 1, max: 999 }), (gas, hundredths) => {
      const factor = `${Math.floor(hundredths / 100)}.${String(hundredths % 100).padStart(2, "0")}`;
      const adjusted = applyAdjustment(gas, factor);
      const exact = gas * BigInt(hundredths); // ×100
      // Within one unit of the exact floor (doubles round the product, as upstream's do).
      return adjusted * 100n <= exact + 100n && (adjusted + 2n) * 100n > exact;
    }),
  );
});

test("fees: --fees parsed and sorted; --gas-prices × gas rounded up; bad text names the flag", () => {
  assert.deepEqual(feeAmount({ fees: "5uatom,10stake" }, 1n), [
    { denom: "stake", amount: 10n },
    { denom: "uatom", amount: 5n },
  ]);
  assert.deepEqual(feeAmount({ gasPrices: "0.025stake" }, 200000n), [{ denom: "stake", amount: 5000n }]);
  assert.deepEqual(feeAmount({ gasPrices: "0.0001stake" }, 15n), [{ denom: "stake", amount: 1n }]);
  assert.deepEqual(feeAmount({}, 200000n), []);
  throwsCli(
    () => feeAmount({ fees: "ten stake" }, 1n),
    /invalid --fees "ten stake": .*expected coins such as 2000stake/,
  );
  throwsCli(
    () => feeAmount({ gasPrices: "cheap" }, 1n),
    /invalid --gas-prices "cheap": .*expected prices such as 0\.025stake/,
  );
});

test("coins argument: one or more positive coins", () => {
  assert.deepEqual(coinsArgument("10stake,5atom"), [
    { denom: "atom", amount: 5n },
    { denom: "stake", amount: 10n },
  ]);
  throwsCli(() => coinsArgument("10"), /invalid coins "10": .*expected e\.g\. 1000stake/);
  throwsCli(() => coinsArgument("0stake"), /invalid coins "0stake": no positive amount/);
  throwsCli(() => coinsArgument("1stake,2stake"), /invalid coins "1stake,2stake": .*duplicate denomination stake/);
});

test("pagination flags → PageRequest", () => {
  assert.deepEqual(readPageRequest({}), {
    key: new Uint8Array(),
    offset: 0n,
    limit: 0n,
    countTotal: false,
    reverse: false,
  });
  const page = readPageRequest({ pageKey: "AQI=", limit: "5", countTotal: true, reverse: true });
  assert.deepEqual([...page.key], [1, 2]);
  assert.equal(page.limit, 5n);
  assert.equal(page.countTotal, true);
  throwsCli(() => readPageRequest({ pageKey: "AQI=", offset: "2" }), /--page-key and --offset cannot be used together/);
  throwsCli(() => readPageRequest({ limit: "-1" }), /invalid --limit "-1"/);
  throwsCli(() => readPageRequest({ pageKey: "not base64!" }), /invalid --page-key/);
});

test("events query: CometBFT syntax passes through; key=value&key=value becomes AND of quoted conditions", () => {
  assert.equal(eventsQuery("message.sender='chain1x' AND tx.height>5"), "message.sender='chain1x' AND tx.height>5");
  assert.equal(
    eventsQuery("message.sender=chain1x&message.action=/chain.bank.v1beta1.MsgSend"),
    "message.sender='chain1x' AND message.action='/chain.bank.v1beta1.MsgSend'",
  );
  assert.equal(eventsQuery("tx.height=5"), "tx.height=5");
  throwsCli(() => eventsQuery("  "), /the events query is empty/);
  throwsCli(
    () => eventsQuery("message.sender"),
    /invalid event "message.sender": expected \{eventType\}\.\{attributeKey\}=\{value\}/,
  );
});

test("output: json is one line; text is YAML of the same value with keys sorted", () => {
  const value = { txhash: "AB", code: 0, height: "12", logs: [], tx: null, events: [{ type: "t", attributes: [] }] };
  assert.equal(formatValue("json", value), `${JSON.stringify(value)}\n`);
  assert.equal(
    formatValue("text", value),
    [
      "code: 0",
      "events:",
      "- attributes: []",
      "  type: t",
      'height: "12"',
      "logs: []",
      "tx: null",
      "txhash: AB",
      "",
    ].join("\n"),
  );
  assert.deepEqual(Object.keys(sortKeys({ b: 1, a: { d: 1, c: 2 } }) as object), ["a", "b"]);
});

test("a failed tx's message names the hash, block, code, codespace and the node's log", () => {
  const checkTx = create(TxResponseSchema, {
    txhash: "AA",
    code: 32,
    codespace: "sdk",
    rawLog: "account sequence mismatch, expected 1, got 7: incorrect account sequence",
  });
  assert.equal(
    txFailureMessage(checkTx),
    "tx AA failed with code 32 (sdk): account sequence mismatch, expected 1, got 7: incorrect account sequence",
  );
  const inBlock = create(TxResponseSchema, { txhash: "BB", code: 5, codespace: "sdk", height: 9n, rawLog: "x" });
  assert.equal(txFailureMessage(inBlock), "tx BB failed in block 9 with code 5 (sdk): x");
});

test("block pace: mean interval of the recent headers; too few blocks is a clear error", () => {
  const header = (time: string) => ({ header: { chain_id: "c", height: "1", time } });
  const pace = blockPace(10n, [
    header("2024-01-01T00:00:03.000000000Z"),
    header("2024-01-01T00:00:02.500000000Z"),
    header("2024-01-01T00:00:01.000000000Z"),
  ]);
  assert.deepEqual(pace, { latestHeight: 10n, averageBlockTimeMs: 1000 });
  throwsCli(() => blockPace(1n, [header("2024-01-01T00:00:03Z")]), /not enough blocks yet to measure the block time/);
});
