import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, beforeEach, test } from "node:test";
import { fromBinary, type JsonValue } from "@bufbuild/protobuf";
import { Command } from "commander";
import * as tar from "tar";
import { MsgRouter, QueryRouter, routerRegistrar } from "../../../app/router.ts";
import { setBinaryName } from "../../../config/home.ts";
import { MsgCancelUpgradeSchema, MsgSoftwareUpgradeSchema } from "../../../gen/chain/upgrade/v1beta1/tx_pb.js";
import { openTestChain, type TestChain } from "../../../testing/upgrade-context.ts";
import { UpgradeKeeper } from "../keeper.ts";
import { newMigrationStatus, setRunningMigrationCount, writeMigration } from "../migration-store.ts";
import { createUpgradeModule } from "../module.ts";
import { newPlan } from "../plan.ts";
import { setReadinessSignal } from "../readiness-store.ts";
import { type ProposalSubmission, type UpgradeCliClient, upgradeQueryCommand, upgradeTxCommand } from "./cli.ts";

const GOV = "chain10d07y265gmmuvt4z0w9aw880jnsr700j0q8wax";
const BLOCK_META = {
  block_id: { hash: "AB".repeat(32), parts: { total: 1, hash: "CD".repeat(32) } },
  block_size: "712",
  header: { version: { block: "11" }, chain_id: "test", height: "20" },
  num_txs: "0",
};

// Four bonded validators: a (power 40), b and c (30 each, sorted by operator address), d (0 signals).
const consensus = (n: number) => new Uint8Array(20).fill(n);
const BONDED = [
  { operatorAddress: "chainvaloper1ccc", consensusAddress: consensus(3), power: 30n },
  { operatorAddress: "chainvaloper1aaa", consensusAddress: consensus(1), power: 40n },
  { operatorAddress: "chainvaloper1ddd", consensusAddress: consensus(4), power: 0n },
  { operatorAddress: "chainvaloper1bbb", consensusAddress: consensus(2), power: 30n },
];

let home: string;
let chain: TestChain;
let keeper: UpgradeKeeper;
let server: Server;
let base: string;
// A release archive of a chain developer's binary `mychaind`, as its `release` command writes one.
let archive: Uint8Array;
const queryRouter = new QueryRouter();
const submitted: ProposalSubmission[] = [];
let out = "";
let err = "";

before(async () => {
  home = await mkdtemp(join(tmpdir(), "upgrade-cli-"));
  chain = await openTestChain();
  keeper = new UpgradeKeeper({ home });
  createUpgradeModule({ keeper, bondedValidators: async () => BONDED }).registerServices(
    routerRegistrar(new MsgRouter(), queryRouter),
  );
  const stage = join(home, "stage");
  await mkdir(join(stage, "bin"), { recursive: true });
  await writeFile(join(stage, "bin", "mychaind"), "binary", { mode: 0o755 });
  await tar.c({ gzip: true, file: join(home, "mychaind.tar.gz"), cwd: stage }, ["bin"]);
  archive = new Uint8Array(await readFile(join(home, "mychaind.tar.gz")));
  server = createServer((req, res) => res.writeHead(200).end(req.url === "/mychaind.tar.gz" ? archive : "binary"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await chain.close();
  await rm(home, { recursive: true, force: true });
});
beforeEach(() => {
  out = "";
  err = "";
  submitted.length = 0;
});

// The client the commands get: queries answered by the module's real query handlers over the committed state.
const client: UpgradeCliClient = {
  async query(path, request, height) {
    const ctx = chain.context(height ?? chain.store.lastCommit().version);
    return queryRouter.queryBinary(path, request, ctx);
  },
  async getBlockByHeight(height) {
    return height === 20n ? (BLOCK_META as JsonValue) : undefined;
  },
  async broadcastProposal(proposal) {
    submitted.push(proposal);
    return { txhash: "AA", code: 0 };
  },
  async govParams() {
    return { votingPeriodMs: 60_000, maxDepositPeriodMs: 60_000 };
  },
  async averageBlockTime() {
    return { latestHeight: 10n, averageBlockTimeMs: 1_000 };
  },
};

function program(): Command {
  const io = {
    client: () => client,
    stdout: { write: (t: string) => (out += t) },
    stderr: { write: (t: string) => (err += t) },
    env: {},
  };
  const root = new Command("chaind")
    .exitOverride()
    .configureOutput({ writeErr: (t) => (err += t), writeOut: (t) => (out += t) });
  root.command("query").addCommand(upgradeQueryCommand(io));
  root.command("tx").addCommand(upgradeTxCommand(io));
  for (const command of root.commands) {
    command.exitOverride();
    for (const sub of command.commands) {
      sub.exitOverride();
      for (const leaf of sub.commands) leaf.exitOverride().configureOutput({ writeErr: (t) => (err += t) });
    }
  }
  return root;
}

const run = (...args: string[]) => program().parseAsync(args, { from: "user" });

async function fails(args: string[], message: string | RegExp, exitCode = 1): Promise<void> {
  await assert.rejects(run(...args), (error: unknown) => {
    const e = error as Error & { exitCode?: number };
    if (typeof message === "string") assert.equal(e.message, message);
    else assert.match(e.message, message);
    assert.equal(e.exitCode, exitCode);
    return true;
  });
}

async function commitWith(fn: (ctx: ReturnType<TestChain["context"]>) => Promise<void>): Promise<void> {
  const height = chain.store.lastCommit().version + 1n;
  const ctx = chain.context(height);
  await fn(ctx);
  await chain.commit(ctx);
}

/** `tx upgrade software-upgrade v2 --title t --upgrade-height 9000`, the start of most submissions below. */
const SOFTWARE_UPGRADE_V2 = ["tx", "upgrade", "software-upgrade", "v2", "--title", "t", "--upgrade-height", "9000"];

test("query upgrade plan: none → 'no upgrade scheduled', exit 1; a plan → its record in YAML or JSON", async () => {
  await commitWith(async () => {});
  await fails(["query", "upgrade", "plan"], "no upgrade scheduled");
  await commitWith((ctx) => keeper.scheduleUpgrade(ctx, newPlan({ name: "v2", height: 130n })));
  await run("query", "upgrade", "plan");
  assert.equal(out, 'height: "130"\ninfo: ""\nname: v2\ntime: "0001-01-01T00:00:00Z"\nupgraded_client_state: null\n');
  out = "";
  await run("query", "upgrade", "plan", "-o", "json");
  assert.equal(
    out,
    '{"name":"v2","time":"0001-01-01T00:00:00Z","height":"130","info":"","upgraded_client_state":null}\n',
  );
  out = "";
  await commitWith((ctx) =>
    keeper.scheduleUpgrade(ctx, newPlan({ name: "v2", height: 130n, info: '{"binaries":{}}' })),
  );
  await run("query", "upgrade", "plan");
  assert.match(out, /^info: '\{"binaries":\{\}\}'$/m);
  await commitWith((ctx) => keeper.clearUpgradePlan(ctx));
});

test("query upgrade applied: unknown → 'no upgrade found', exit 1; applied → the block record as JSON", async () => {
  await fails(["query", "upgrade", "applied", "v1"], "no upgrade found");
  keeper.setUpgradeHandler(
    "v1",
    async () =>
      new Map([
        ["upgrade", 1n],
        ["bank", 2n],
      ]),
  );
  while (chain.store.lastCommit().version < 19n) await commitWith(async () => {});
  await commitWith((ctx) => keeper.applyUpgrade(ctx, newPlan({ name: "v1", height: 20n })));
  await run("query", "upgrade", "applied", "v1");
  assert.equal(out, `${JSON.stringify(BLOCK_META, null, 2)}\n`);
  assert.deepEqual(JSON.parse(out).block_id.parts.total, 1);
});

test("query upgrade module_versions (alias module-versions): all, one, unknown", async () => {
  await run("query", "upgrade", "module_versions");
  assert.equal(out, 'module_versions:\n- name: bank\n  version: "2"\n- name: upgrade\n  version: "1"\n');
  out = "";
  await run("query", "upgrade", "module-versions", "bank", "-o", "json");
  assert.equal(out, '{"module_versions":[{"name":"bank","version":"2"}]}\n');
  await fails(
    ["query", "upgrade", "module_versions", "nope"],
    'module "nope" has no version on chain: x/upgrade: QueryModuleVersions module nope not found: module version not found',
  );
});

test("tx upgrade software-upgrade: builds MsgSoftwareUpgrade inside a proposal; --no-validate skips the info checks", async () => {
  await run(
    "tx",
    "upgrade",
    "software-upgrade",
    "v2",
    "--title",
    "Upgrade",
    "--summary",
    "s",
    "--deposit",
    "10000000stake",
    "--upgrade-height",
    "5000",
    "--upgrade-info",
    "anything",
    "--no-validate",
    "--from",
    "alice",
  );
  assert.equal(submitted.length, 1);
  const [proposal] = submitted;
  assert.deepEqual(
    [proposal.title, proposal.summary, proposal.deposit, proposal.metadata],
    ["Upgrade", "s", "10000000stake", ""],
  );
  assert.equal(proposal.flags.from, "alice");
  assert.equal(proposal.messages[0].typeUrl, "/chain.upgrade.v1beta1.MsgSoftwareUpgrade");
  const msg = fromBinary(MsgSoftwareUpgradeSchema, proposal.messages[0].value);
  assert.equal(msg.authority, GOV);
  assert.deepEqual([msg.plan?.name, msg.plan?.height, msg.plan?.info], ["v2", 5000n, "anything"]);
  assert.equal(err, ""); // 5000 ≥ 10 + 2 × 120 s + 1 h: no warning
  assert.equal(out, "code: 0\ntxhash: AA\n");
});

test("software-proposal alias; the info is validated and each binary downloaded by default", async () => {
  const checksum = createHash("sha256").update("binary").digest("hex");
  const info = JSON.stringify({ binaries: { "linux/amd64": `${base}/chaind?checksum=sha256:${checksum}` } });
  await run(
    "tx",
    "upgrade",
    "software-proposal",
    "v2",
    "--title",
    "t",
    "--upgrade-height",
    "9000",
    "--upgrade-info",
    info,
  );
  assert.equal(submitted.length, 1);
  await fails(
    [
      ...SOFTWARE_UPGRADE_V2,
      "--upgrade-info",
      JSON.stringify({ binaries: { "linux/amd64": `${base}/chaind?checksum=sha256:${"0".repeat(64)}` } }),
    ],
    /^error downloading binary for os\/arch linux\/amd64: Checksums did not match for [^\n]+\. Expected: 0{64}, got: [0-9a-f]{64}$/,
  );
  await fails(
    [
      ...SOFTWARE_UPGRADE_V2,
      "--upgrade-info",
      JSON.stringify({ binaries: { "linux/x86_64": `${base}/chaind?checksum=sha256:${checksum}` } }),
    ],
    /^invalid os\/arch format in key "linux\/x86_64"/,
  );
  await fails(
    [...SOFTWARE_UPGRADE_V2, "--upgrade-info", JSON.stringify({ binaries: { any: `${base}/chaind` } })],
    /missing checksum query parameter/,
  );
  // --no-checksum-required: downloaded, not verified.
  await run(
    ...SOFTWARE_UPGRADE_V2,
    "--no-checksum-required",
    "--upgrade-info",
    JSON.stringify({ binaries: { any: `${base}/chaind` } }),
  );
  await fails([...SOFTWARE_UPGRADE_V2], "plan info must not be blank");
  assert.equal(submitted.length, 2);
});

test("software-upgrade: a chain's own binary name is the default daemon name inside archives", async (t) => {
  setBinaryName("mychaind");
  t.after(() => setBinaryName("chaind"));
  const checksum = createHash("sha256").update(archive).digest("hex");
  const info = JSON.stringify({ binaries: { any: `${base}/mychaind.tar.gz?checksum=sha256:${checksum}` } });
  await run(...SOFTWARE_UPGRADE_V2, "--upgrade-info", info);
  assert.equal(submitted.length, 1);
});

test("software-upgrade: the cancellation-timing warning goes to stderr and the proposal is still submitted", async () => {
  await run("tx", "upgrade", "software-upgrade", "v2", "--title", "t", "--upgrade-height", "300", "--no-validate");
  assert.equal(submitted.length, 1);
  assert.match(err, /^warning: upgrade height 300 may be too soon for a cancellation: .* from height 3850 on .*\n$/);
  err = "";
  // A shorter safety delta moves the earliest height below 300.
  await run(
    "tx",
    "upgrade",
    "software-upgrade",
    "v2",
    "--title",
    "t",
    "--upgrade-height",
    "300",
    "--no-validate",
    "--safety-delta",
    "30s",
  );
  assert.equal(err, "");
});

test("software-upgrade: each bad input is refused before anything is submitted", async () => {
  const base = ["tx", "upgrade", "software-upgrade", "v2", "--title", "t", "--no-validate"];
  await fails([...base], "invalid upgrade plan: height must be greater than 0: invalid request (set --upgrade-height)");
  await fails([...base, "--upgrade-height", "-5"], 'invalid height "-5": expected a non-negative integer');
  await fails([...base, "--upgrade-height", "ten"], 'invalid height "ten": expected a non-negative integer');
  await fails(
    [...base, "--upgrade-height", "10", "--deposit", "lots"],
    "invalid deposit: invalid decimal coin expression: lots; expected coins such as 10000000stake",
  );
  await fails([...base, "--upgrade-height", "10", "--authority", "cosmos1xyz"], /^invalid authority address: /);
  await fails(
    [...base, "--upgrade-height", "10", "--safety-delta", "soon"],
    'invalid --safety-delta "soon": expected a duration such as "1s", "500ms" or "1h30m"',
  );
  await assert.rejects(
    run("tx", "upgrade", "software-upgrade", "v2", "--upgrade-height", "10", "--no-validate"),
    /required option '--title <title>' not specified/,
  );
  assert.equal(submitted.length, 0);
});

test("tx upgrade cancel-software-upgrade: MsgCancelUpgrade from the authority (or --authority)", async () => {
  await run(
    "tx",
    "upgrade",
    "cancel-software-upgrade",
    "--title",
    "Cancel",
    "--summary",
    "why",
    "--deposit",
    "5stake",
    "--from",
    "bob",
    "-o",
    "json",
  );
  const msg = fromBinary(MsgCancelUpgradeSchema, submitted[0].messages[0].value);
  assert.equal(submitted[0].messages[0].typeUrl, "/chain.upgrade.v1beta1.MsgCancelUpgrade");
  assert.equal(msg.authority, GOV);
  assert.equal(out, '{"txhash":"AA","code":0}\n');
  await run("tx", "upgrade", "cancel-software-upgrade", "--title", "Cancel", "--authority", GOV);
  assert.equal(submitted.length, 2);
});

test("software-upgrade: a plan name no supervisor can make a directory of is refused, even with --no-validate", async () => {
  const long = `v2-${"x".repeat(297)}`;
  await fails(
    ["tx", "upgrade", "software-upgrade", long, "--title", "t", "--upgrade-height", "10", "--no-validate"],
    "invalid upgrade plan: plan name of 300 characters is too long: supervisors (chainvisor, cosmovisor) install the release in upgrades/<name>, which would be 300 bytes and a file name holds at most 255; choose a shorter name",
  );
  assert.equal(submitted.length, 0);
  // 255 bytes once escaped is still fine.
  await run(
    "tx",
    "upgrade",
    "software-upgrade",
    "a".repeat(255),
    "--title",
    "t",
    "--upgrade-height",
    "10",
    "--no-validate",
  );
  assert.equal(submitted.length, 1);
});

test("query upgrade readiness: YAML, and -o json as REST prints it; none ready without a plan", async () => {
  await commitWith(async (ctx) => {
    setReadinessSignal(ctx, consensus(1), { plan: "v7", height: 41n });
    setReadinessSignal(ctx, consensus(2), { plan: "v7", height: 41n });
    setReadinessSignal(ctx, consensus(3), { plan: "", height: 40n });
  });
  await run("query", "upgrade", "readiness", "-o", "json");
  const none = JSON.parse(out);
  assert.equal(none.plan, null);
  assert.equal(none.ready_fraction, "0.000000000000000000");
  assert.ok(none.validators.every((v: { ready: boolean }) => !v.ready));
  out = "";
  await commitWith((ctx) => keeper.scheduleUpgrade(ctx, newPlan({ name: "v7", height: 500n })));
  await run("query", "upgrade", "readiness", "-o", "json");
  assert.equal(
    out,
    `${JSON.stringify({
      plan: { name: "v7", time: "0001-01-01T00:00:00Z", height: "500", info: "", upgraded_client_state: null },
      height: "41",
      ready_power: "70",
      total_power: "100",
      ready_fraction: "0.700000000000000000",
      validators: [
        { operator_address: "chainvaloper1aaa", power: "40", ready: true, last_signal_height: "41" },
        { operator_address: "chainvaloper1bbb", power: "30", ready: true, last_signal_height: "41" },
        { operator_address: "chainvaloper1ccc", power: "30", ready: false, last_signal_height: "40" },
        { operator_address: "chainvaloper1ddd", power: "0", ready: false, last_signal_height: "0" },
      ],
    })}\n`,
  );
  out = "";
  await run("query", "upgrade", "readiness");
  assert.match(out, /^ready_fraction: "0\.700000000000000000"$/m);
  assert.match(
    out,
    /^- last_signal_height: "41"\n {2}operator_address: chainvaloper1aaa\n {2}power: "40"\n {2}ready: true$/m,
  );
  await commitWith((ctx) => keeper.clearUpgradePlan(ctx));
});

test("query upgrade params: the defaults, and -o json as REST prints it", async () => {
  await run("query", "upgrade", "params", "-o", "json");
  assert.equal(
    out,
    '{"params":{"readiness_threshold":"0.000000000000000000","readiness_postpone_blocks":"100","readiness_max_postponements":0}}\n',
  );
});

test("query upgrade migrations: none, then a running and a finished one, -o json as REST prints it", async () => {
  await run("query", "upgrade", "migrations", "-o", "json");
  assert.equal(out, `${JSON.stringify({ migrations: [] })}\n`);
  out = "";
  await commitWith(async (ctx) => {
    const store = ctx.kvStore(keeper.storeKey);
    const running = newMigrationStatus({ upgrade: "v3", module: "bank", name: "balances" }, 1200n);
    running.progress = "0.410000000000000000";
    running.steps = 41n;
    writeMigration(store, { status: running, cursor: new Uint8Array([1]) });
    const finished = newMigrationStatus({ upgrade: "v2", module: "notes", name: "rekey" }, 900n);
    finished.finishedHeight = 950n;
    finished.steps = 50n;
    writeMigration(store, { status: finished, cursor: new Uint8Array() });
    setRunningMigrationCount(store, 1n);
  });
  await run("query", "upgrade", "migrations", "-o", "json");
  assert.equal(
    out,
    `${JSON.stringify({
      migrations: [
        {
          upgrade: "v2",
          module: "notes",
          name: "rekey",
          started_height: "900",
          finished_height: "950",
          progress: "",
          steps: "50",
        },
        {
          upgrade: "v3",
          module: "bank",
          name: "balances",
          started_height: "1200",
          finished_height: "0",
          progress: "0.410000000000000000",
          steps: "41",
        },
      ],
    })}\n`,
  );
  out = "";
  await run("query", "upgrade", "migrations");
  assert.match(out, /^ {2}progress: "0\.410000000000000000"$/m);
});
