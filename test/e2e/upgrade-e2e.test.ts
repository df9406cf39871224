// The whole upgrade, end to end, on real processes over loopback (issue 9, docs/CONTRACT.md §2, §8, §9, §10): a v1 chain run by
// chainvisor from the v1 release archive, with downloads allowed. Governance schedules `v2` with `--upgrade-info`
// naming the v2 archive on a local HTTP server and its sha256; the plan shows over the CLI, REST and gRPC; with the
// node stopped, `chaind upgrade dry-run v2` reports what the upgrade will do without touching the data, and a v2
// binary started too early refuses (exit 21); then the chain halts at H with the exact upgrade-info.json, chainvisor
// downloads, verifies, switches and restarts, v2 applies the upgrade at H and goes on — and everything the upgrade
// changed is checked from outside, at H-1 and at H+1. (The cancel and skip paths: upgrade-cancel-skip.test.ts.)
//
// Every command is one an operator runs (docs/UPGRADING.md shows the same). Ports are picked at run time, all
// processes run in their own process groups and are stopped at the end, temp dirs are removed.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, readlink, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, type TestContext, test } from "node:test";
import {
  QueryAppliedPlanRequestSchema,
  QueryAppliedPlanResponseSchema,
  QueryCurrentPlanRequestSchema,
  QueryCurrentPlanResponseSchema,
  QueryModuleVersionsRequestSchema,
  QueryModuleVersionsResponseSchema,
} from "../../src/gen/chain/upgrade/v1beta1/query_pb.js";
import {
  blocksWaitMs,
  GOV_PERIOD,
  GOV_PERIOD_MS,
  heightAfter,
  keyCount,
  LEGACY,
  NOTES,
  PLAN_TIME,
  PROPOSAL_WAIT_MS,
  restAppliedHeight,
  restModuleVersions,
  stakeBalance,
  stillRunning,
  storeValue,
  TIMEOUT_COMMIT,
  UPGRADE_TEST_TIMEOUT_MS,
  waitForBlocks,
} from "./support/chain-checks.ts";
import {
  type ChaindBinary,
  type ChainHome,
  chaind,
  chaindJson,
  lastSignedHeight,
  setupChainHome,
  sourceChaind,
} from "./support/chain-home.ts";
import { type FileServer, startFileServer } from "./support/file-server.ts";
import { grpcUnary, latestHeight, restGet, rpcCall, waitForHeight } from "./support/node-api.ts";
import { type ManagedProcess, stopAll, tail } from "./support/processes.ts";
import { buildTestReleases } from "./support/releases.ts";
import { hashTree } from "./support/tree-hash.ts";
import { submitSoftwareUpgrade, voteYes, waitForProposalStatus } from "./support/upgrade-flow.ts";
import { chainvisor, currentChaind, startChainvisor } from "./support/visor.ts";

const BINARY_UPDATED_EARLY =
  'BINARY UPDATED BEFORE TRIGGER! UPGRADE "v2" - in binary but not executed on chain. Downgrade your binary';
const decoder = new TextDecoder();
/** Stores whose key count only the upgrade changes in block H (no txs are sent around it). */
const PREDICTABLE_STORES = new Set(["notes", "beacon", "bank", "upgrade"]);
const ARCHIVE_PATH = "/chaind-v2-linux-amd64.tar.gz";
/** chainvisor's environment beyond DAEMON_HOME/DAEMON_NAME/DAEMON_SHUTDOWN_GRACE (support/visor.ts sets those). */
const VISOR_ENV = {
  DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
  DAEMON_RESTART_AFTER_UPGRADE: "true",
  DAEMON_POLL_INTERVAL: "100ms",
  UNSAFE_SKIP_BACKUP: "false",
};

let work: string;
let server: FileServer;
let chain: ChainHome;
let home: string;
let binary: ChaindBinary;
let visor: ManagedProcess;
/** The plan's height, chosen when the proposal is submitted. */
let height: bigint;
/** The plan's info: the v2 archive's URL on the local server, with its sha256. */
let info: string;
let dryRun: DryRunReport | undefined;

before(async () => {
  work = await mkdtemp(join(tmpdir(), "chaind-upgrade-e2e-"));
  // The single-file releases unpack their application once, here, not into the user's ~/.cache.
  process.env.CHAIND_CACHE_DIR = join(work, "cache");
  const built = await buildTestReleases(join(work, "releases"), ["v1", "v2"]);
  server = await startFileServer({ [ARCHIVE_PATH]: built.v2?.archive ?? "" });
  info = JSON.stringify({
    binaries: { "linux/amd64": `${server.baseUrl}${ARCHIVE_PATH}?checksum=sha256:${built.v2?.sha256}` },
  });
  home = join(work, "home");
  await mkdir(home, { recursive: true });
  // The operator installs the v1 release as chainvisor's genesis release and uses its chaind for everything.
  await chainvisor(home, ["init", built.v1?.archive ?? ""]);
  binary = currentChaind(home);
  chain = await setupChainHome({
    home,
    chainId: "upgrade-e2e",
    binary,
    govPeriod: GOV_PERIOD,
    timeoutCommit: TIMEOUT_COMMIT,
    notes: NOTES,
    legacy: LEGACY,
  });
  visor = startChainvisor(home, VISOR_ENV);
  await waitForBlocks(chain);
});

after(async () => {
  await stopAll();
  await server?.close();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

test("the upgrade proposal passes and the plan shows over the CLI, REST and gRPC", {
  timeout: UPGRADE_TEST_TIMEOUT_MS,
}, async () => {
  // The single-file release carries the libsecp256k1 addon beside its bundle; without it the node would warn.
  assert.doesNotMatch(visor.output(), /verified with OpenSSL/, tail(visor.output()));
  const from = (await latestHeight(chain.rpcUrl)) ?? 0n;
  // Enough blocks for the proposal to pass, the checks below, and the node to be stopped for the dry run.
  height = heightAfter(from, GOV_PERIOD_MS / 1000 + 40);
  const proposal = await submitSoftwareUpgrade(binary, chain, { name: "v2", height, info });
  // The height is far inside the cancellation window (2 × (voting + deposit) + 1h): the CLI says so.
  assert.match(proposal.result.stderr, /^warning:.*cancel/im);
  assert.ok(
    server.requests.some((r) => r.method === "GET" && r.path === ARCHIVE_PATH && r.status === 200),
    "the CLI downloads the archive to check its checksum before submitting",
  );
  await voteYes(binary, chain, proposal.id);
  await waitForProposalStatus(chain, proposal.id, "PROPOSAL_STATUS_PASSED", PROPOSAL_WAIT_MS);

  const expected = { name: "v2", time: PLAN_TIME, height: String(height), info, upgraded_client_state: null };
  const cli = await chaindJson(binary, ["query", "upgrade", "plan", "--node", chain.nodeFlag]);
  assert.deepEqual(cli, expected);
  const text = await chaind(binary, ["query", "upgrade", "plan", "--node", chain.nodeFlag]);
  assert.match(text.stdout, /^name: v2$/m);
  assert.match(text.stdout, new RegExp(`^height: "${height}"$`, "m"));

  const rest = await restGet(chain.apiUrl, "/chain/upgrade/v1beta1/current_plan");
  assert.equal(rest.status, 200);
  assert.equal(rest.text, JSON.stringify({ plan: expected }), "REST current_plan, exactly as docs/CONTRACT.md §2.9");
  assert.match(rest.headers.get("x-chain-block-height") ?? "", /^\d+$/);

  const grpc = await grpcUnary(
    chain.grpcAddress,
    "/chain.upgrade.v1beta1.Query/CurrentPlan",
    QueryCurrentPlanRequestSchema,
    QueryCurrentPlanResponseSchema,
    { $typeName: "chain.upgrade.v1beta1.QueryCurrentPlanRequest" },
  );
  assert.equal(grpc.message.plan?.name, "v2");
  assert.equal(grpc.message.plan?.height, height);
  assert.equal(grpc.message.plan?.info, info);
  assert.match(grpc.height ?? "", /^\d+$/, "gRPC answers carry x-chain-block-height");

  // The v1 state the upgrade will change: notes live in store notes_v1, the legacy store holds its note.
  const notesV1 = await storeValue(chain, "notes_v1", "greeting");
  assert.equal(decoder.decode(notesV1.value), NOTES[0]?.value, notesV1.log);
  const legacy = await storeValue(chain, "legacy", "old");
  assert.equal(decoder.decode(legacy.value), LEGACY[0]?.value, legacy.log);
  assert.notEqual((await storeValue(chain, "notes", "greeting")).code, 0, "v1 has no store named notes");
});

test("the dry run reports the upgrade's effects and leaves the node's data untouched", {
  timeout: UPGRADE_TEST_TIMEOUT_MS,
}, async (t) => {
  await stopVisorBeforeHeight(t);
  const before = await hashTree(join(home, "data"));
  const result = await chaind(sourceChaind("v2"), ["upgrade", "dry-run", "v2", "--home", home, "-o", "json"]);
  assert.deepEqual(await hashTree(join(home, "data")), before, "the dry run changed files under data/");
  dryRun = parseDryRun(result.stdout);
  assert.deepEqual(dryRun.moduleVersions.bank, { before: "1", after: "2" }, "bank migrates 1 → 2");
  assert.deepEqual(dryRun.moduleVersions.beacon, { before: null, after: "1" }, "beacon is new");
  assert.deepEqual(dryRun.protocolVersion, { before: "0", after: "1" });
  assert.equal(dryRun.keysBefore.notes_v1, NOTES.length);
  assert.equal(dryRun.keysBefore.legacy, LEGACY.length);
  assert.equal(dryRun.keysAfter.notes, NOTES.length, "the renamed store keeps its keys");
  assert.equal(dryRun.keysAfter.beacon, 1, "the new store holds its default genesis");
  assert.equal(dryRun.keysAfter.legacy, undefined, "the deleted store is gone");
  assert.equal(dryRun.keysAfter.notes_v1, undefined, "the old name of the renamed store is gone");
  // The text form, for people, says the same.
  const text = await chaind(sourceChaind("v2"), ["upgrade", "dry-run", "v2", "--home", home]);
  t.diagnostic(text.stdout.trimEnd());
  assert.match(text.stdout, /^ {2}bank +1 -> 2 +\*$/m);
  assert.match(text.stdout, /^ {2}notes +3 -> 3 +\(renamed from notes_v1\)$/m);
  assert.deepEqual(await hashTree(join(home, "data")), before, "the dry run changed files under data/");
});

test("a v2 binary started before the upgrade height refuses to run (exit 21)", {
  timeout: UPGRADE_TEST_TIMEOUT_MS,
}, async (t) => {
  await stopVisorBeforeHeight(t);
  const early = await chaind(sourceChaind("v2"), ["start", "--home", home], {
    allowFailure: true,
    timeoutMs: 60_000,
  });
  assert.equal(early.status, 21, `expected exit 21, got ${early.status}\n${tail(early.stdout)}\n${tail(early.stderr)}`);
  assert.ok(`${early.stdout}${early.stderr}`.includes(BINARY_UPDATED_EARLY), tail(early.stdout + early.stderr));
  assert.equal(existsSync(join(home, "data", "upgrade-info.json")), false);
});

test("the chain halts at H with the exact upgrade-info.json; chainvisor downloads, verifies, switches, restarts", {
  timeout: UPGRADE_TEST_TIMEOUT_MS,
}, async () => {
  if (visor.hasExited()) visor = startChainvisor(home, VISOR_ENV);
  await visor.waitForOutput(new RegExp(`UPGRADE "v2" NEEDED at height: ${height}: `), blocksWaitMs(height) + 120_000);
  // v2 applies the plan at H and produces blocks after it.
  await waitForHeight(chain.rpcUrl, height + 2n, 300_000, { abortIf: stillRunning(visor) });
  await visor.waitForOutput(new RegExp(`applying upgrade "v2" at height: ${height}`), 60_000);

  const file = join(home, "data", "upgrade-info.json");
  assert.equal(
    await readFile(file, "utf8"),
    JSON.stringify({ name: "v2", time: PLAN_TIME, height: Number(height), info }),
    "upgrade-info.json as docs/CONTRACT.md §2.5 gives it",
  );
  assert.equal((await stat(file)).mode & 0o777, 0o600);

  assert.equal(await readlink(join(home, "chainvisor", "current")), join("upgrades", "v2"));
  assert.ok(existsSync(join(home, "chainvisor", "upgrades", "v2", "bin", "chaind")));
  const downloads = server.requests.filter((r) => r.method === "GET" && r.path === ARCHIVE_PATH && r.status === 200);
  assert.ok(downloads.length >= 2, "chainvisor downloaded the archive (after the CLI's own check)");
  const version = await chaind(currentChaind(home), ["version"]);
  assert.match(version.stdout, /2\.0\.0/);

  const backups = (await readdir(home)).filter((name) => name.startsWith("data-backup-"));
  assert.equal(backups.length, 1, `one backup of data/ before the switch: ${backups.join(", ")}`);
  assert.ok(existsSync(join(home, backups[0] ?? "", "application.db")));
  assert.equal(visor.hasExited(), false, "chainvisor keeps running the upgraded node");
});

test("after the upgrade: AppliedPlan = H, the applied block, module versions, balances", {
  timeout: UPGRADE_TEST_TIMEOUT_MS,
}, async () => {
  assert.equal(await restAppliedHeight(chain, "v2"), String(height));
  const grpc = await grpcUnary(
    chain.grpcAddress,
    "/chain.upgrade.v1beta1.Query/AppliedPlan",
    QueryAppliedPlanRequestSchema,
    QueryAppliedPlanResponseSchema,
    { $typeName: "chain.upgrade.v1beta1.QueryAppliedPlanRequest", name: "v2" },
  );
  assert.equal(grpc.message.height, height);

  const applied = await chaind(binary, ["query", "upgrade", "applied", "v2", "--node", chain.nodeFlag]);
  const record = JSON.parse(applied.stdout) as BlockRecord;
  const block = (await rpcCall(chain.rpcUrl, "block", { height: String(height) })) as {
    block_id: { hash: string; parts: { total: number; hash: string } };
    block: { header: Record<string, unknown> };
  };
  assert.deepEqual(Object.keys(record).sort(), ["block_id", "block_size", "header", "num_txs"]);
  assert.equal(record.header.height, String(height));
  assert.equal(record.header.chain_id, chain.chainId);
  assert.deepEqual(record.block_id, block.block_id);
  assert.equal(record.header.app_hash, block.block.header.app_hash);
  assert.match(record.block_size, /^\d+$/);
  assert.match(record.num_txs, /^\d+$/);
  const missing = await chaind(binary, ["query", "upgrade", "applied", "v9", "--node", chain.nodeFlag], {
    allowFailure: true,
  });
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /no upgrade found/);

  const versions = await chaindJson<{ module_versions: { name: string; version: string }[] }>(binary, [
    "query",
    "upgrade",
    "module_versions",
    "--node",
    chain.nodeFlag,
  ]);
  const byName = Object.fromEntries(versions.module_versions.map((m) => [m.name, m.version]));
  assert.equal(byName.bank, "2", "bank migrated 1 → 2");
  assert.equal(byName.beacon, "1", "the new module is at its consensus version");
  const names = versions.module_versions.map((m) => m.name);
  assert.deepEqual(names, [...names].sort(), "sorted by name");
  const grpcVersions = await grpcUnary(
    chain.grpcAddress,
    "/chain.upgrade.v1beta1.Query/ModuleVersions",
    QueryModuleVersionsRequestSchema,
    QueryModuleVersionsResponseSchema,
    { $typeName: "chain.upgrade.v1beta1.QueryModuleVersionsRequest", moduleName: "bank" },
  );
  assert.deepEqual(
    grpcVersions.message.moduleVersions.map((m) => [m.name, m.version]),
    [["bank", 2n]],
  );

  // Nobody sent anything since before H: every balance is what it was before the upgrade.
  for (const account of [chain.alice, chain.validator]) {
    assert.equal(await stakeBalance(chain, account.address), await stakeBalance(chain, account.address, height - 1n));
  }
  assert.equal(await stakeBalance(chain, chain.alice.address), chain.balances.alice);
});

test("x-chain-block-height: H-1 shows the state before the upgrade, H+1 the state after", {
  timeout: UPGRADE_TEST_TIMEOUT_MS,
}, async () => {
  const before = await restModuleVersions(chain, height - 1n);
  const after = await restModuleVersions(chain, height + 1n);
  assert.equal(before.bank, "1");
  assert.equal(before.beacon, undefined);
  assert.equal(after.bank, "2");
  assert.equal(after.beacon, "1");

  const metadataAt = async (h: bigint) => {
    const answer = await restGet(chain.apiUrl, "/chain/bank/v1beta1/denoms_metadata", h);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.headers.get("x-chain-block-height"), String(h));
    return (answer.body as { metadatas: { base: string; display: string }[] }).metadatas;
  };
  assert.deepEqual(await metadataAt(height - 1n), [], "no denom metadata before the bank migration");
  const migrated = await metadataAt(height + 1n);
  assert.deepEqual(
    migrated.map((m) => [m.base, m.display]),
    [["stake", "STAKE"]],
    "the bank migration wrote the stake metadata",
  );

  const grpcBefore = await grpcUnary(
    chain.grpcAddress,
    "/chain.upgrade.v1beta1.Query/ModuleVersions",
    QueryModuleVersionsRequestSchema,
    QueryModuleVersionsResponseSchema,
    { $typeName: "chain.upgrade.v1beta1.QueryModuleVersionsRequest", moduleName: "bank" },
    height - 1n,
  );
  assert.equal(grpcBefore.height, String(height - 1n));
  assert.deepEqual(
    grpcBefore.message.moduleVersions.map((m) => [m.name, m.version]),
    [["bank", 1n]],
  );
});

test("the renamed store keeps its data, the added store has its genesis, the deleted store is gone", {
  timeout: UPGRADE_TEST_TIMEOUT_MS,
}, async () => {
  for (const note of NOTES) {
    const answer = await storeValue(chain, "notes", note.key);
    assert.equal(answer.code, 0, answer.log);
    assert.equal(decoder.decode(answer.value), note.value);
  }
  const beacon = await storeValue(chain, "beacon", "release");
  assert.equal(beacon.code, 0, beacon.log);
  assert.equal(decoder.decode(beacon.value), "v2");

  for (const gone of ["legacy", "notes_v1"]) {
    const answer = await storeValue(chain, gone, gone === "legacy" ? "old" : "greeting");
    assert.notEqual(answer.code, 0, `store ${gone} should be gone after the upgrade, got ${JSON.stringify(answer)}`);
  }
});

test("the dry run predicted what the upgrade did", { timeout: UPGRADE_TEST_TIMEOUT_MS }, async (t) => {
  if (dryRun === undefined) {
    t.skip("no dry-run report (chaind upgrade dry-run missing or failed above)");
    return;
  }
  for (const [store, count] of Object.entries(dryRun.keysAfter)) {
    const real = await keyCount(chain, store, height);
    if (PREDICTABLE_STORES.has(store)) assert.equal(real, count, `keys in store ${store} at H`);
    else t.diagnostic(`store ${store}: dry run ${count} keys, block H ${real} (the block's own changes included)`);
  }
  const versions = await restModuleVersions(chain, height);
  for (const [module, change] of Object.entries(dryRun.moduleVersions)) {
    assert.equal(versions[module], change.after ?? undefined, `module ${module} at H`);
  }
});

/** Stops chainvisor (and its node) while the chain is still below H, so the node's data holds still. */
async function stopVisorBeforeHeight(t: TestContext): Promise<void> {
  if (visor.hasExited()) return;
  const at = (await latestHeight(chain.rpcUrl)) ?? 0n;
  assert.ok(at < height - 3n, `the chain is already at ${at}, too close to the plan height ${height}`);
  const started = performance.now();
  // As an operator would: `kill <chainvisor pid>`; chainvisor passes the signal on and waits for the node.
  await visor.stop(15_000, "leader");
  t.diagnostic(`chainvisor and the v1 node stopped in ${Math.round(performance.now() - started)} ms:`);
  t.diagnostic(tail(visor.output(), 6));
  const committed = await lastSignedHeight(chain.home);
  assert.ok(committed < height, `the node committed ${committed} before it stopped, plan height ${height}`);
}

/** The block record `query upgrade applied` prints (docs/CONTRACT.md §8). */
interface BlockRecord {
  block_id: { hash: string; parts: { total: number; hash: string } };
  block_size: string;
  header: Record<string, unknown> & { height: string; chain_id: string; app_hash: string };
  num_txs: string;
}

/** What the dry run reports (`-o json`), the parts compared with the real upgrade. */
interface DryRunReport {
  /** Store name → keys after the upgrade (deleted stores are absent). */
  keysAfter: Record<string, number>;
  /** Store name → keys before the upgrade (added stores are absent). */
  keysBefore: Record<string, number>;
  /** Module → consensus version before (null: new module) and after. */
  moduleVersions: Record<string, { before: string | null; after: string | null }>;
  protocolVersion: { before: string; after: string };
}

/** Reads `chaind upgrade dry-run -o json` output. */
function parseDryRun(stdout: string): DryRunReport {
  const report = JSON.parse(stdout) as {
    stores: { name: string; keys_before: number | null; keys_after: number | null; renamed_from: string | null }[];
    module_versions: { name: string; before: string | null; after: string | null }[];
    protocol_version: { before: string; after: string };
  };
  const keysAfter: Record<string, number> = {};
  const keysBefore: Record<string, number> = {};
  for (const store of report.stores) {
    if (store.keys_after !== null) keysAfter[store.name] = store.keys_after;
    if (store.keys_before !== null) keysBefore[store.renamed_from ?? store.name] = store.keys_before;
  }
  const moduleVersions: DryRunReport["moduleVersions"] = {};
  for (const m of report.module_versions) moduleVersions[m.name] = { before: m.before, after: m.after };
  return { keysAfter, keysBefore, moduleVersions, protocolVersion: report.protocol_version };
}
