// Replay mode (issue 19, docs/CONTRACT.md §12 Replay) on a chain that really went v1 → halt → v2: governance schedules upgrade
// "v2" on a fast v1 chain with notes in the store v2 renames and a store v2 deletes; v1 halts at H (exit 20), the v2
// release carries on from H (store rename, delete and add, bank migration 1 → 2). Then, with the v2 release alone:
// - `chaind replay` rebuilds a new home from genesis, switching v1 → v2 in process at H, and every height's app hash
//   (and FinalizeBlock results) equals the source's, checked here height by height; the source is not modified;
// - a node starts on the home the replay wrote and produces blocks after its tip;
// - `chaind start --replay-releases` on a fresh home holding only the source's blocks replays them through H in its
//   handshake and goes on producing blocks;
// - a release whose rules differ (a changed migration) is stopped at H with height, expected and computed hash;
// - the v1 release alone stops at H with the upgrade halt, and bad arguments get one-line errors.
import assert from "node:assert/strict";
import { cp, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { referenceChain } from "../../chain/app.ts";
import { migrateBankV1ToV2 } from "../../chain/migrations/bank-v2.ts";
import { v1, v2 } from "../../chain/releases.ts";
import { homePaths, loadGenesis, saveGenesis, setTomlValues } from "../../src/config/index.ts";
import { BlockStore } from "../../src/engine/block-store.ts";
import { MetadataSchema } from "../../src/gen/chain/bank/v1beta1/bank_pb.js";
import { type DevHome, prepareDevHome } from "../../src/node/dev-chain.ts";
import { createNodeLogger } from "../../src/node/logger.ts";
import { openChainSwitchingApp } from "../../src/replay/chain-line.ts";
import { ReplayMismatchError, replayHome } from "../../src/replay/replay-home.ts";
import { buildChainApp, type Release, withMigrations } from "../../src/runtime/index.ts";
import { openMultiStore } from "../../src/store/index.ts";
import { scheduleUpgradeByVote } from "../../src/testing/governance.ts";
import { closeVerifyPool } from "../../src/x/auth/verify-pool.ts";
import { bankModule } from "../../src/x/bank/module.ts";
import { UPGRADE_EXIT_CODES } from "../../src/x/upgrade/errors.ts";
import {
  bannerEndpoints,
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
import { hashTree } from "./support/tree-hash.ts";

const NOTES = [
  { key: "greeting", value: "hello from v1" },
  { key: "motto", value: "replay without drama" },
];
const LEGACY = [{ key: "old", value: "to be deleted by v2" }];
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex").toUpperCase();

let dir: Awaited<ReturnType<typeof tempDir>>;
let dev: DevHome;
let userHome: string;
/** The plan's height. */
let upgradeHeight = 0n;
/** The source chain's last height. */
let tip = 0n;

before(async () => {
  dir = await tempDir("chaind-node-replay-");
  userHome = join(dir.path, "user");
  dev = await prepareDevHome({ home: join(dir.path, "source") });
  const paths = homePaths(dev.home);
  const genesis = await loadGenesis(paths.genesis);
  const appState = structuredClone(genesis.appState ?? {}) as Record<string, unknown> & {
    gov: { params: Record<string, unknown> };
  };
  // 20 s periods: room for the vote to land on a busy machine (the plan height is counted at the
  // fastest block pace, so the proposal always passes before it).
  appState.gov.params.voting_period = "20s";
  appState.gov.params.max_deposit_period = "20s";
  appState.gov.params.expedited_voting_period = "10s";
  appState.notes = { notes: NOTES };
  appState.legacy = { notes: LEGACY };
  // A chain started before readiness (no vote extensions): v2's handler turns them on from H + 1, so the replay
  // also goes through that consensus-parameter update and the extended commits the blocks carry after it.
  const consensusParams = structuredClone(genesis.consensusParams);
  consensusParams.abci.voteExtensionsEnableHeight = 0n;
  await saveGenesis(paths.genesis, { ...genesis, consensusParams, appState: appState as never });
  await writeFile(
    paths.configToml,
    setTomlValues(await readFile(paths.configToml, "utf8"), { "consensus.timeout_commit": "500ms" }),
  );
});

after(async () => {
  await killAllChaind();
  await closeVerifyPool();
  await dir?.remove();
});

/** A read-only look at a home's block store: a copy is opened, so the home itself is never touched. */
async function withBlocks<T>(home: string, read: (store: BlockStore) => Promise<T>): Promise<T> {
  const copy = join(dir.path, `blocks-copy-${Math.random().toString(36).slice(2)}`);
  await cp(homePaths(home).blocksDb, copy, { recursive: true });
  const store = await BlockStore.open(copy);
  try {
    return await read(store);
  } finally {
    await store.close();
  }
}

/** Every height's FinalizeBlock app hash (uppercase hex) recorded in a home's block store. */
async function appHashes(home: string): Promise<Map<bigint, string>> {
  return withBlocks(home, async (store) => {
    const out = new Map<bigint, string>();
    for (let h = store.base; h <= store.height; h++) {
      const results = await store.results(h);
      assert.ok(results !== undefined, `height ${h} has results`);
      out.set(h, hex(results.appHash));
    }
    return out;
  });
}

test("the source chain goes v1 → halt at H → v2", async () => {
  const validator = dev.keys.find((key) => key.name === "validator")?.address as string;
  let node = spawnChaind(["--home", dev.home, "start", ...LOOPBACK_PORT_FLAGS], { userHome });
  const { rpc, rest } = await bannerEndpoints(node);
  await waitForHeight(rpc, 1n);
  // 80 blocks of at least 500 ms: 40 s or more, so the proposal passes (20 s) before the plan's height.
  upgradeHeight = (await latestHeight(rpc)) + 80n;
  await scheduleUpgradeByVote({
    rpc,
    rest: rest as string,
    home: dev.home,
    chainId: dev.chainId,
    keyName: "validator",
    address: validator,
    name: "v2",
    height: upgradeHeight,
    title: "upgrade to v2",
    summary: "replay e2e",
  });
  const halted = await node.exited;
  assert.equal(halted.code, UPGRADE_EXIT_CODES.needed, halted.stderr.slice(-3000));

  node = spawnChaind(["--home", dev.home, "start", ...LOOPBACK_PORT_FLAGS], {
    userHome,
    env: { CHAIND_RELEASE: "v2" },
  });
  const resumed = await bannerEndpoints(node);
  await waitForHeight(resumed.rpc, upgradeHeight + 5n);
  // Vote extensions are on from H + 1: the validator's signals are recorded (the blocks the replay goes through
  // carry extended commits from H + 2 on).
  const readiness = (await (await fetch(`${resumed.rest}/chain/upgrade/v1beta1/readiness`)).json()) as {
    validators: { last_signal_height: string }[];
  };
  assert.ok(
    BigInt(readiness.validators[0]?.last_signal_height ?? "0") >= upgradeHeight + 1n,
    JSON.stringify(readiness),
  );
  node.signal("SIGTERM");
  assert.equal((await node.exited).code, 0);
  tip = await withBlocks(dev.home, async (store) => store.height);
  assert.ok(tip >= upgradeHeight + 5n);
});

test("chaind replay with the v2 release alone reproduces every app hash from genesis, height by height", async () => {
  assert.ok(tip > 0n, "the source chain was produced");
  const before = await hashTree(homePaths(dev.home).dataDir);
  const target = join(dir.path, "replayed");
  const result = await runChaind(["replay", "--from", dev.home, "--home", target, "-o", "json"], {
    userHome,
    env: { CHAIND_RELEASE: "v2" },
  });
  assert.equal(result.code, 0, result.stderr.slice(-4000));
  assert.deepEqual(await hashTree(homePaths(dev.home).dataDir), before, "the replay changed the source's data");

  const report = JSON.parse(result.stdout) as {
    from_height: string;
    to_height: string;
    blocks: number;
    heights_per_second: number;
    app_hash: string;
    segments: { release: string; entered_by: string | null; from_height: string; to_height: string }[];
  };
  assert.equal(report.from_height, "1");
  assert.equal(report.to_height, tip.toString());
  assert.equal(report.blocks, Number(tip));
  assert.ok(report.heights_per_second > 0);
  assert.deepEqual(
    report.segments.map((s) => [s.release, s.entered_by, s.from_height, s.to_height]),
    [
      ["v1", null, "1", (upgradeHeight - 1n).toString()],
      ["v2", "v2", upgradeHeight.toString(), tip.toString()],
    ],
  );
  assert.match(result.stderr, /switching from release v1 to v2 in process/);

  // Height by height: the results this replay computed and saved against what the source recorded.
  const expected = await appHashes(dev.home);
  const got = await appHashes(target);
  assert.equal(got.size, expected.size);
  for (const [height, hash] of expected) assert.equal(got.get(height), hash, `app hash at height ${height}`);
  assert.equal(report.app_hash, expected.get(tip));

  // The replayed state is v2's: the renamed store holds v1's notes, the deleted store is gone, beacon was added.
  // Opening with v2's store set fails unless the state has exactly those stores.
  const v2App = await buildChainApp({
    chain: referenceChain,
    home: target,
    chainId: dev.chainId,
    logger: createNodeLogger({ level: "silent" }),
    release: v2,
    deferLoad: true,
    storeLoader: "none",
  });
  const storeNames = v2App.moduleManager.storeKeys();
  assert.ok(storeNames.includes("notes") && storeNames.includes("beacon") && !storeNames.includes("legacy"));
  const state = await openMultiStore({ path: homePaths(target).applicationDb, storeNames, createIfMissing: false });
  try {
    assert.equal(state.lastCommit().version, tip);
    assert.equal(hex(state.lastCommit().appHash), expected.get(tip));
    const greeting = await (await state.view()).store("notes").get(new TextEncoder().encode("greeting"));
    assert.equal(new TextDecoder().decode(greeting), NOTES[0]?.value, "the renamed store keeps v1's notes");
  } finally {
    await state.close();
  }
  // Nothing of the halt path happened in the new home.
  await assert.rejects(readFile(homePaths(target).upgradeInfo), { code: "ENOENT" });

  // The text report, for people: the totals and one line per release segment (no TTY here, so no progress bar).
  const text = await runChaind(["replay", "--from", dev.home, "--home", join(dir.path, "replayed-text")], {
    userHome,
    env: { CHAIND_RELEASE: "v2" },
  });
  assert.equal(text.code, 0, text.stderr.slice(-3000));
  assert.match(
    text.stdout,
    new RegExp(`^replayed heights 1\\.\\.${tip} \\(${tip} blocks\\) in [0-9.]+ s: [0-9.]+ heights/s$`, "m"),
  );
  assert.match(
    text.stdout,
    new RegExp(`^every app hash matches the source; app hash at ${tip}: ${expected.get(tip)}$`, "m"),
  );
  assert.match(text.stdout, new RegExp(`^ {2}v1 +heights 1\\.\\.${upgradeHeight - 1n} \\(`, "m"));
  assert.match(
    text.stdout,
    new RegExp(`^ {2}v2 +heights ${upgradeHeight}\\.\\.${tip} \\(\\d+ blocks, entered by upgrade "v2"\\)`, "m"),
  );
  assert.doesNotMatch(text.stdout + text.stderr, /\[[=\u2588\u2591 -]+\]/, "no progress bar without a TTY");
});

test("a node starts on the home chaind replay wrote and carries on from its tip", async () => {
  // The replay saves the engine state a live node saves: a start on the replayed home once failed at its first block
  // ("Cannot convert undefined to a BigInt") because the saved block id had been stored in Buffer form.
  const target = join(dir.path, "replayed");
  await stat(homePaths(target).blocksDb);
  const node = spawnChaind(["--home", target, "start", ...LOOPBACK_PORT_FLAGS], {
    userHome,
    env: { CHAIND_RELEASE: "v2" },
  });
  const { rpc } = await bannerEndpoints(node);
  await waitForHeight(rpc, tip + 2n);
  node.signal("SIGTERM");
  assert.equal((await node.exited).code, 0, node.stderr.slice(-3000));
});

test("a release whose rules differ is stopped at the first different height with height, expected and got", async () => {
  assert.ok(tip > 0n, "the source chain was produced");
  // A release author's mistake: the v2 migration writes the denom metadata slightly differently.
  const altered: Release = {
    ...v2,
    modules: (keepers) => [
      ...(v2.modules?.(keepers) ?? []).filter((m) => m.name !== "bank"),
      withMigrations(bankModule(keepers.bankKeeper), {
        consensusVersion: 2n,
        migrations: [
          {
            from: 1n,
            async run(ctx) {
              await migrateBankV1ToV2(ctx, keepers.bankKeeper);
              keepers.bankKeeper.setDenomMetadata(
                ctx,
                create(MetadataSchema, { base: "stray", display: "STRAY", name: "Stray" }),
              );
            },
          },
        ],
      }),
    ],
  };
  const expected = await appHashes(dev.home);
  const target = join(dir.path, "mismatch");
  const logger = createNodeLogger({ level: "silent" });
  const genesis = await loadGenesis(homePaths(dev.home).genesis);
  const error = await replayHome({
    sourceHome: dev.home,
    home: target,
    openApp: (home) =>
      openChainSwitchingApp({ chain: referenceChain, home, chainId: genesis.chainId, logger, release: altered }),
  }).then(
    () => assert.fail("the replay should have stopped"),
    (err: unknown) => err,
  );
  assert.ok(error instanceof ReplayMismatchError, String(error));
  assert.equal(error.height, upgradeHeight);
  assert.equal(error.expected, expected.get(upgradeHeight));
  assert.notEqual(error.got, error.expected);
  assert.match(
    error.message,
    new RegExp(`^app hash mismatch at height ${upgradeHeight}: expected ${error.expected} .*, got ${error.got} `),
  );
});

test("the v1 release alone stops at H with the upgrade halt", async () => {
  assert.ok(tip > 0n, "the source chain was produced");
  const result = await runChaind(["replay", "--from", dev.home, "--home", join(dir.path, "v1-only")], {
    userHome,
    env: { CHAIND_RELEASE: "v1" },
  });
  assert.equal(result.code, UPGRADE_EXIT_CODES.needed, result.stderr.slice(-3000));
  assert.match(result.stderr, new RegExp(`the replay halted at height ${upgradeHeight} running release v1: `));
  assert.doesNotMatch(result.stderr, /^\s+at /m, "no stack trace");
});

test("bad arguments get one-line errors and leave nothing behind", async () => {
  const nonEmpty = join(dir.path, "non-empty");
  await mkdir(nonEmpty, { recursive: true });
  await writeFile(join(nonEmpty, "keep.txt"), "x");
  let result = await runChaindInProcess(["replay", "--from", dev.home, "--home", nonEmpty]);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /the target home .*non-empty is not empty: replay builds a new home/);
  assert.deepEqual(Object.keys(await hashTree(nonEmpty)), ["keep.txt"]);

  // A target inside the source (here inside its block store's folder) would be written into the source it reads.
  const sourceTree = await hashTree(homePaths(dev.home).dataDir);
  for (const inside of [join(homePaths(dev.home).blocksDb, "x"), join(homePaths(dev.home).dataDir, "new-home")]) {
    result = await runChaindInProcess(["replay", "--from", dev.home, "--home", inside]);
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /the target home .* lies inside the source home .*, which replay only reads; give a path outside it/,
    );
  }
  assert.deepEqual(await hashTree(homePaths(dev.home).dataDir), sourceTree);

  // A source whose app.toml is broken: the error names the source's file, not the copy in the (removed) target.
  const brokenConfig = join(dir.path, "broken-config");
  await cp(dev.home, brokenConfig, { recursive: true });
  await writeFile(homePaths(brokenConfig).appToml, "[[[");
  const brokenTarget = join(dir.path, "broken-target");
  result = await runChaindInProcess(["replay", "--from", brokenConfig, "--home", brokenTarget]);
  assert.equal(result.code, 1);
  assert.match(
    result.stderr,
    new RegExp(`^Error: ${homePaths(brokenConfig).appToml}: line 1, column \\d+: invalid TOML`),
  );
  await assert.rejects(stat(brokenTarget), { code: "ENOENT" });

  const noBlocks = join(dir.path, "no-blocks");
  await mkdir(join(noBlocks, "config"), { recursive: true });
  await cp(homePaths(dev.home).genesis, homePaths(noBlocks).genesis);
  const fresh = join(dir.path, "fresh");
  result = await runChaindInProcess(["replay", "--from", noBlocks, "--home", fresh]);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /the source home .*no-blocks has no blocks to replay/);
  await assert.rejects(readFile(join(fresh, "config", "genesis.json")), { code: "ENOENT" });

  // A block store that exists but holds no height: found only after copying, and the target is removed again.
  await (await BlockStore.open(homePaths(noBlocks).blocksDb)).close();
  result = await runChaindInProcess(["replay", "--from", noBlocks, "--home", fresh]);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /the source home .*no-blocks has no blocks to replay/);
  await assert.rejects(stat(fresh), { code: "ENOENT" });

  result = await runChaindInProcess(["replay", "--from", join(dir.path, "missing"), "--home", fresh]);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /the source home .*missing does not exist/);
});

test("chaind start --replay-releases with v2 alone replays the source's blocks from genesis and carries on", async () => {
  assert.ok(tip > 0n, "the source chain was produced");
  const source = homePaths(dev.home);
  const home = homePaths(join(dir.path, "synced"));
  await mkdir(home.dataDir, { recursive: true });
  await cp(source.configDir, home.configDir, { recursive: true });
  await cp(source.blocksDb, home.blocksDb, { recursive: true });
  await cp(source.privValidatorState, home.privValidatorState);
  // Snapshots every 2 heights: they go on after the in-process switch to v2 (the commit hook follows the release).
  await writeFile(
    home.appToml,
    setTomlValues(await readFile(home.appToml, "utf8"), {
      "state-sync.snapshot-interval": 2n,
      "state-sync.snapshot-keep-recent": 2n,
    }),
  );
  const expected = await appHashes(dev.home);

  const node = spawnChaind(["--home", home.home, "start", "--replay-releases", ...LOOPBACK_PORT_FLAGS], {
    userHome,
    env: { CHAIND_RELEASE: "v2" },
  });
  const { rpc, rest } = await bannerEndpoints(node);
  await waitForHeight(rpc, tip + 2n);
  // The header of tip + 1 carries the app hash this node computed for tip.
  const block = await rpcCall<{ block: { header: { app_hash: string } } }>(rpc, "block", {
    height: (tip + 1n).toString(),
  });
  assert.equal(block.block.header.app_hash, expected.get(tip));
  const applied = (await (await fetch(`${rest}/chain/upgrade/v1beta1/applied_plan/v2`)).json()) as { height: string };
  assert.equal(applied.height, upgradeHeight.toString());
  assert.match(node.stderr, /switching from release v1 to v2 in process/);
  // The banner comes after the handshake, whose replay has crossed H already.
  assert.match(node.stdout, /^chaind 2\.0\.0 \(release v2, in-place upgrades: rules of release v2, active on chain\)/m);
  // A snapshot of a height the v2 release committed (the newest two are kept, so older ones may be gone).
  const beyondSwitch = await pollUntil(
    async () => {
      const listed = await runChaind(["--home", home.home, "snapshots", "list", "-o", "json"], { userHome });
      assert.equal(listed.code, 0, listed.stderr);
      return (JSON.parse(listed.stdout) as { height: string }[]).find((s) => BigInt(s.height) > upgradeHeight);
    },
    { timeoutMs: 240_000, what: `a snapshot above the switch height ${upgradeHeight}` },
  );
  assert.ok(BigInt(beyondSwitch.height) > upgradeHeight);
  node.signal("SIGTERM");
  assert.equal((await node.exited).code, 0, node.stderr.slice(-3000));
  await assert.rejects(readFile(home.upgradeInfo), { code: "ENOENT" });
});

test("replay mode resumes after a stop just before H and just after it", async () => {
  assert.ok(tip > 0n, "the source chain was produced");
  const source = homePaths(dev.home);
  const home = homePaths(join(dir.path, "resumed"));
  await mkdir(home.dataDir, { recursive: true });
  await cp(source.configDir, home.configDir, { recursive: true });
  await cp(source.blocksDb, home.blocksDb, { recursive: true });
  await cp(source.privValidatorState, home.privValidatorState);
  const expected = await appHashes(dev.home);
  const env = { CHAIND_RELEASE: "v2" };
  const start = (extra: string[]) =>
    spawnChaind(["--home", home.home, "start", "--replay-releases", ...LOOPBACK_PORT_FLAGS, ...extra], {
      userHome,
      env,
    });

  // halt-height stops the handshake's replay after committing that height: first H-1 (v1's stores, plan due
  // next), then H (v2 committed the upgrade block), each time restarting in replay mode from there.
  for (const stopAt of [upgradeHeight - 1n, upgradeHeight]) {
    // A halt-height stop exits 0 (docs/CONTRACT.md §8), wherever it happens.
    const stopped = await start(["--halt-height", stopAt.toString()]).exited;
    assert.equal(stopped.code, 0, stopped.stderr.slice(-3000));
    const state = await openCommitted(home.applicationDb, stopAt === upgradeHeight ? "v2" : "v1");
    try {
      assert.equal(state.lastCommit().version, stopAt);
      assert.equal(hex(state.lastCommit().appHash), expected.get(stopAt));
    } finally {
      await state.close();
    }
  }
  const node = start([]);
  const { rpc } = await bannerEndpoints(node);
  await waitForHeight(rpc, tip + 1n);
  const block = await rpcCall<{ block: { header: { app_hash: string } } }>(rpc, "block", {
    height: (tip + 1n).toString(),
  });
  assert.equal(block.block.header.app_hash, expected.get(tip));
  assert.match(node.stderr, /running the rules of release v2, the release active on chain/);
  assert.match(node.stdout, /\(release v2, in-place upgrades: rules of release v2, active on chain\)/);
  node.signal("SIGTERM");
  assert.equal((await node.exited).code, 0, node.stderr.slice(-3000));
});

/** Opens a stopped home's state with `release`'s store set (which fails unless the state has exactly those). */
async function openCommitted(path: string, release: "v1" | "v2") {
  const chain = await buildChainApp({
    chain: referenceChain,
    home: dir.path,
    chainId: dev.chainId,
    logger: createNodeLogger({ level: "silent" }),
    release: release === "v1" ? v1 : v2,
    deferLoad: true,
    storeLoader: "none",
  });
  return openMultiStore({ path, storeNames: chain.moduleManager.storeKeys(), createIfMissing: false });
}

test("a skipped upgrade height does not switch releases (the plan is skipped, so history differs at H)", async () => {
  assert.ok(tip > 0n, "the source chain was produced");
  const source = homePaths(dev.home);
  const home = homePaths(join(dir.path, "skipped"));
  await mkdir(home.dataDir, { recursive: true });
  await cp(source.configDir, home.configDir, { recursive: true });
  await cp(source.blocksDb, home.blocksDb, { recursive: true });
  await cp(source.privValidatorState, home.privValidatorState);
  const expected = await appHashes(dev.home);
  const result = await runChaind(
    [
      "--home",
      home.home,
      "start",
      "--replay-releases",
      "--unsafe-skip-upgrades",
      upgradeHeight.toString(),
      ...LOOPBACK_PORT_FLAGS,
    ],
    { userHome, env: { CHAIND_RELEASE: "v2" } },
  );
  assert.equal(result.code, 1, result.stderr.slice(-3000));
  assert.match(result.stderr, new RegExp(`UPGRADE "v2" SKIPPED at ${upgradeHeight}`));
  assert.match(
    result.stderr,
    new RegExp(
      `replaying height ${upgradeHeight} gave app hash [0-9A-F]+ but the block store recorded ${expected.get(upgradeHeight)}`,
    ),
  );
  assert.doesNotMatch(result.stderr, /switching from release/);
});
