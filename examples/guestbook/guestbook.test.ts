// The proof that a chain developer can build a chain from the package: the guestbook chain (its own module, its own
// upgrade "v2" with a store rename and a migration) is set up, started as a real process through its own binary
// (cmd/guestbookd.ts), upgraded by governance — v1 halts at the plan's height with exit 20, v2 applies the store
// rename and the migration and carries on — refused as v1 afterwards (exit 21), and replayed from genesis by v2
// alone (`guestbookd replay`, the library's replay mode). Imports only `chaind/...`
// (the package's exports), Node's built-ins and @bufbuild/protobuf, as a chain outside this repository would.
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { homePaths, loadGenesis, saveGenesis, setTomlValues } from "chaind/config";
import { MsgSoftwareUpgradeSchema } from "chaind/gen/chain/upgrade/v1beta1/tx_pb.js";
import { PlanSchema } from "chaind/gen/chain/upgrade/v1beta1/upgrade_pb.js";
import { type DevHome, prepareDevHome } from "chaind/node";
import { useChain } from "chaind/runtime";
import { openMultiStore, readCommittedStoreNames } from "chaind/store";
import {
  bannerEndpoints,
  type ChainBinary,
  killAllStarted,
  LOOPBACK_PORT_FLAGS,
  latestHeight,
  packAny,
  scheduleUpgradeByVote,
  spawnChainBinary,
  startTestNode,
  tempDir,
  waitForHeight,
} from "chaind/testing";
import { defaultUpgradeAuthority, UPGRADE_EXIT_CODES } from "chaind/x/upgrade";
import { guestbookChain, v1, v2 } from "./app.ts";

const GUESTBOOKD: ChainBinary = {
  node: process.execPath,
  entry: join(import.meta.dirname, "cmd", "guestbookd.ts"),
  cwd: import.meta.dirname,
  releaseEnv: "GUESTBOOK_RELEASE",
};
const SIGNATURES = [
  { name: "ada", message: "hello from genesis" },
  { name: "grace", message: "the first guest" },
];

let dir: Awaited<ReturnType<typeof tempDir>>;
let dev: DevHome;

before(async () => {
  dir = await tempDir("guestbook-chain-");
  // The home is made in this process for the guestbook chain (its genesis holds the guestbook module's defaults).
  useChain(guestbookChain);
  dev = await prepareDevHome({ home: join(dir.path, "home") });
  const paths = homePaths(dev.home);
  const genesis = await loadGenesis(paths.genesis);
  const appState = structuredClone(genesis.appState ?? {}) as Record<string, unknown> & {
    gov: { params: Record<string, unknown> };
  };
  assert.deepEqual(appState.guestbook, { signatures: [] }, "the module's default genesis is in the dev genesis");
  appState.guestbook = { signatures: SIGNATURES };
  // 20 s periods: room for the vote to land on a busy machine (the plan height below is counted at
  // the fastest block pace, so the proposal always passes before it).
  appState.gov.params.voting_period = "20s";
  appState.gov.params.max_deposit_period = "20s";
  appState.gov.params.expedited_voting_period = "10s";
  await saveGenesis(paths.genesis, { ...genesis, appState: appState as never });
  await writeFile(
    paths.configToml,
    setTomlValues(await readFile(paths.configToml, "utf8"), { "consensus.timeout_commit": "500ms" }),
  );
});

after(async () => {
  await killAllStarted();
  await dir?.remove();
});

const start = (release?: "v2") =>
  spawnChainBinary(GUESTBOOKD, ["--home", dev.home, "start", ...LOOPBACK_PORT_FLAGS], {
    userHome: join(dir.path, "user"),
    env: release === undefined ? {} : { GUESTBOOK_RELEASE: release },
  });

/** The committed key → value pairs of one store of the node's state (the node stopped). */
async function storeContents(): Promise<{ stores: string[]; entries: Map<string, Map<string, string>> }> {
  const path = homePaths(dev.home).applicationDb;
  const stores = await readCommittedStoreNames(path);
  const state = await openMultiStore({ path, storeNames: stores, createIfMissing: false });
  try {
    const view = await state.view();
    const entries = new Map<string, Map<string, string>>();
    for (const name of stores.filter((s) => s === "guestbook" || s === "entries_v1")) {
      const rows = new Map<string, string>();
      for await (const [key, value] of view.store(name).iterate()) {
        rows.set(new TextDecoder().decode(key), new TextDecoder().decode(value));
      }
      entries.set(name, rows);
    }
    return { stores, entries };
  } finally {
    await state.close();
  }
}

test("the guestbook chain starts as v1, upgrades to v2 by governance (store rename + migration), and refuses v1 after", async () => {
  let node = start();
  const { rpc, rest } = await bannerEndpoints(node);
  assert.match(node.stdout, /\(release v1\)/);
  await waitForHeight(rpc, 1n);
  // 80 blocks of at least 500 ms: 40 s or more, so the proposal passes (20 s) before the plan's height.
  const upgradeHeight = (await latestHeight(rpc)) + 80n;
  const validator = dev.keys.find((key) => key.name === "validator")?.address as string;
  await scheduleUpgradeByVote({
    rpc,
    rest: rest as string,
    home: dev.home,
    chainId: dev.chainId,
    keyName: "validator",
    address: validator,
    name: "v2",
    height: upgradeHeight,
    title: "guestbook v2",
    summary: "rename the store, migrate the messages",
  });

  const halted = await node.exited;
  assert.equal(halted.code, UPGRADE_EXIT_CODES.needed, halted.stderr.slice(-3000));
  assert.match(halted.stderr, new RegExp(`UPGRADE "v2" NEEDED at height: ${upgradeHeight}: `));
  const before = await storeContents();
  assert.ok(before.stores.includes("entries_v1") && !before.stores.includes("guestbook"), before.stores.join(","));
  assert.deepEqual(
    Object.fromEntries(before.entries.get("entries_v1") ?? []),
    Object.fromEntries(SIGNATURES.map((s) => [s.name, s.message])),
  );

  node = start("v2");
  const resumed = await bannerEndpoints(node);
  assert.match(node.stdout, /\(release v2\)/);
  await waitForHeight(resumed.rpc, upgradeHeight + 1n);
  const applied = (await (await fetch(`${resumed.rest}/chain/upgrade/v1beta1/applied_plan/v2`)).json()) as {
    height: string;
  };
  assert.equal(applied.height, upgradeHeight.toString());
  const versions = (await (await fetch(`${resumed.rest}/chain/upgrade/v1beta1/module_versions`)).json()) as {
    module_versions: { name: string; version: string }[];
  };
  assert.equal(versions.module_versions.find((m) => m.name === "guestbook")?.version, "2");
  node.signal("SIGTERM");
  assert.equal((await node.exited).code, 0);

  const after = await storeContents();
  assert.ok(after.stores.includes("guestbook") && !after.stores.includes("entries_v1"), after.stores.join(","));
  assert.deepEqual(
    Object.fromEntries(after.entries.get("guestbook") ?? []),
    Object.fromEntries(SIGNATURES.map((s) => [s.name, JSON.stringify({ message: s.message, signedIn: "v1" })])),
  );

  const downgraded = await start().exited;
  assert.equal(downgraded.code, UPGRADE_EXIT_CODES.wrongBinary, downgraded.stderr.slice(-3000));
  assert.match(downgraded.stderr, /^Error: wrong app version 1, upgrade handler is missing for v2 upgrade plan$/m);
  assert.doesNotMatch(downgraded.stderr, /^\s+at /m);

  // Replay mode comes with the library: v2 alone (its line is v2 ← v1, from `upgradesFrom`) rebuilds the chain
  // from genesis in a new home, switching to v2's rules in process at the upgrade, every app hash checked.
  const replayed = await spawnChainBinary(
    GUESTBOOKD,
    ["replay", "--from", dev.home, "--home", join(dir.path, "replayed"), "-o", "json"],
    { userHome: join(dir.path, "user"), env: { GUESTBOOK_RELEASE: "v2" } },
  ).exited;
  assert.equal(replayed.code, 0, replayed.stderr.slice(-3000));
  const report = JSON.parse(replayed.stdout) as {
    segments: { release: string; entered_by: string | null; from_height: string }[];
  };
  assert.deepEqual(
    report.segments.map((segment) => [segment.release, segment.entered_by, segment.from_height]),
    [
      ["v1", null, "1"],
      ["v2", "v2", upgradeHeight.toString()],
    ],
  );
});

// The same upgrade in the test process (docs/BUILD-A-CHAIN.md, "6. Test it"): the releases exactly as the binary runs
// them — v2 naming v1 in `upgradesFrom` — block by block with startTestNode, restarted as v2 after the halt.
test("in process, with the testing kit: v1 halts at the plan, restarted as v2 it applies the upgrade", async () => {
  const home = join(dir.path, "test-node");
  let node = await startTestNode({ home, release: v1 });
  await node.nextBlock();
  const upgradeHeight = 10n;
  const plan = create(PlanSchema, { name: "v2", height: upgradeHeight });
  await node.passProposal([
    packAny(MsgSoftwareUpgradeSchema, create(MsgSoftwareUpgradeSchema, { authority: defaultUpgradeAuthority(), plan })),
  ]);
  let halt: (Error & { exitCode?: number }) | undefined;
  while (halt === undefined && node.app.lastBlockHeight() < upgradeHeight) {
    await node.nextBlock().catch((err: Error) => {
      halt = err;
    });
  }
  assert.equal(halt?.exitCode, UPGRADE_EXIT_CODES.needed, String(halt));
  assert.match(halt.message, new RegExp(`^UPGRADE "v2" NEEDED at height: ${upgradeHeight}: `));
  await node.close();

  node = await startTestNode({ home, release: v2 });
  try {
    assert.ok(node.storeLoaderInstalled, "upgrade-info.json names v2 at the next height: the rename is installed");
    await node.nextBlock();
    const ctx = await node.query();
    assert.equal(await node.keeper.getDoneHeight(ctx, "v2"), upgradeHeight);
    assert.equal((await node.keeper.getModuleVersionMap(ctx)).get("guestbook"), 2n);
  } finally {
    await node.close();
  }
});
