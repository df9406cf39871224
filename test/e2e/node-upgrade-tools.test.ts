// The node-side upgrade tools as real processes: `chaind upgrade dry-run` on a dev chain's state
// reports the v2 release's store changes, migrations and app hash and leaves the node's data
// byte-for-byte untouched (checked by hashing every file), at the latest height or an older one the home still
// holds; bad requests exit 1 with the reason; and `chaind pre-upgrade` exits 0 quietly, as the sidecar's protocol
// expects.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { cp, readdir, readFile, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import { after, before, test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { referenceChain } from "../../chain/app.ts";
import { hexUpper } from "../../src/app/tx-response.ts";
import { homePaths, loadGenesis } from "../../src/config/index.ts";
import { RequestFinalizeBlockSchema } from "../../src/gen/tendermint/abci/types_pb.js";
import { DryRunError, dryRunUpgrade, releaseForUpgrade } from "../../src/node/dry-run.ts";
import { runUpgrade } from "../../src/node/rehearse/upgrade-run.ts";
import { useChain } from "../../src/runtime/current-chain.ts";
import { openMultiStore, readCommittedStoreNames } from "../../src/store/index.ts";
import { closeVerifyPool } from "../../src/x/auth/verify-pool.ts";
import { doneKey, UPGRADE_STORE_KEY } from "../../src/x/upgrade/keys.ts";
import { killAllChaind, LOOPBACK_PORT_FLAGS, runChaind, runChaindInProcess, tempDir } from "../support/node/chaind.ts";

// runChaindInProcess runs the command tree in this process: serve the reference chain, as chain/cmd/chaind.ts does.
useChain(referenceChain);

let dir: Awaited<ReturnType<typeof tempDir>>;
let home: string;
let userHome: string;

before(async () => {
  dir = await tempDir("chaind-node-upgrade-tools-");
  home = join(dir.path, "home");
  userHome = join(dir.path, "user");
  // A dev chain that stops by itself after block 3: a real state store to dry-run on.
  const dev = await runChaind(["dev", "--home", home, "--halt-height", "3", ...LOOPBACK_PORT_FLAGS], { userHome });
  assert.equal(dev.code, 0, dev.stderr.slice(-2000));
});

after(async () => {
  await killAllChaind();
  await dir?.remove();
});

async function hashTree(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (path: string) => {
    for (const entry of await readdir(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) await walk(full);
      else
        out.set(
          relative(root, full),
          createHash("sha256")
            .update(await readFile(full))
            .digest("hex"),
        );
    }
  };
  await walk(root);
  return out;
}

interface DryRunJson {
  name: string;
  release: { name: string };
  height: string;
  applied_at: string;
  scheduled_plan: unknown;
  store_upgrades: { added: string[]; renamed: { old_key: string; new_key: string }[]; deleted: string[] };
  stores: { name: string; keys_before: number | null; keys_after: number | null; renamed_from: string | null }[];
  module_versions: { name: string; before: string | null; after: string | null }[];
  protocol_version: { before: string; after: string };
  app_hash_before: string;
  app_hash_after: string;
}

test("upgrade dry-run reports the v2 upgrade on a copy and leaves the node's data untouched", async () => {
  const dataDir = homePaths(home).dataDir;
  const hashesBefore = await hashTree(dataDir);
  assert.ok([...hashesBefore.keys()].some((file) => file.startsWith("application.db")));

  const [asJson, asText] = await Promise.all([
    runChaind(["--home", home, "upgrade", "dry-run", "v2", "-o", "json"], { userHome }),
    runChaind(["--home", home, "upgrade", "dry-run", "v2", "--height", "3"], { userHome }),
  ]);
  assert.equal(asJson.code, 0, asJson.stderr);
  const report = JSON.parse(asJson.stdout) as DryRunJson;
  assert.equal(report.release.name, "v2");
  assert.equal(report.height, "3");
  assert.equal(report.applied_at, "4");
  assert.equal(report.scheduled_plan, null);
  assert.deepEqual(report.store_upgrades, {
    added: ["beacon"],
    renamed: [{ old_key: "notes_v1", new_key: "notes" }],
    deleted: ["legacy"],
  });
  const store = (name: string) => report.stores.find((s) => s.name === name);
  assert.deepEqual(store("beacon"), { name: "beacon", keys_before: null, keys_after: 1, renamed_from: null });
  assert.equal(store("legacy")?.keys_after, null);
  assert.equal(store("notes")?.renamed_from, "notes_v1");
  assert.equal(store("notes_v1"), undefined);
  assert.ok((store("acc")?.keys_before ?? 0) > 0);
  const version = (name: string) => report.module_versions.find((m) => m.name === name);
  assert.deepEqual(version("bank"), { name: "bank", before: "1", after: "2" });
  assert.deepEqual(version("beacon"), { name: "beacon", before: null, after: "1" });
  assert.deepEqual(version("auth"), { name: "auth", before: "1", after: "1" });
  assert.deepEqual(report.protocol_version, { before: "0", after: "1" });
  assert.match(report.app_hash_before, /^[0-9A-F]{64}$/);
  assert.match(report.app_hash_after, /^[0-9A-F]{64}$/);
  assert.notEqual(report.app_hash_after, report.app_hash_before);

  assert.equal(asText.code, 0, asText.stderr);
  assert.match(asText.stdout, /^ {2}bank +1 -> 2 +\*$/m);
  assert.match(asText.stdout, /^ {2}beacon +- -> 1 +\(added\)$/m);
  assert.match(asText.stdout, new RegExp(`^app hash after: +${report.app_hash_after}`, "m"));
  assert.match(asText.stdout, /^took [0-9.]+ ms/m);

  assert.deepEqual(await hashTree(dataDir), hashesBefore);
});

test("upgrade rehearse v2 on the reference chain passes its checks and its determinism run, leaving the data untouched", async () => {
  const dataDir = homePaths(home).dataDir;
  const hashesBefore = await hashTree(dataDir);
  const run = await runChaind(["--home", home, "upgrade", "rehearse", "v2", "-o", "json"], { userHome });
  assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
  const report = JSON.parse(run.stdout) as DryRunJson & {
    passed: boolean;
    checks: { name: string; phase: string; passed: boolean }[];
    determinism: { equal: boolean };
  };
  assert.equal(report.passed, true);
  // The dry run's fields are all there.
  assert.equal(report.height, "3");
  assert.deepEqual(report.protocol_version, { before: "0", after: "1" });
  assert.deepEqual(report.checks.map((c) => `${c.name} ${c.phase} ${c.passed}`).sort(), [
    "bank/total-supply after true",
    "v2/notes-kept after true",
    "v2/notes-kept before true",
    "v2/supply-unchanged after true",
    "v2/supply-unchanged before true",
  ]);
  assert.equal(report.determinism.equal, true);
  assert.deepEqual(await hashTree(dataDir), hashesBefore);
});

test("upgrade dry-run refuses an unknown upgrade and a height above the latest, with status 1", async () => {
  // The binary's command tree in this process: these checks need no process of their own.
  const unknown = await runChaindInProcess(["--home", home, "upgrade", "dry-run", "v9"]);
  const future = await runChaindInProcess(["--home", home, "upgrade", "dry-run", "v2", "--height", "9"]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /no release in this binary performs the upgrade "v9" \(it knows: v2, v3\)/);
  assert.equal(future.code, 1);
  assert.match(future.stderr, /--height 9 is in the future: the latest committed height is 3/);
});

/** Every file under `root` with its size and modification time: what a write, even one that restores the bytes, changes. */
async function listTree(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (path: string) => {
    for (const entry of await readdir(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      const info = await stat(full);
      out.set(`${relative(root, full)}${entry.isDirectory() ? "/" : ""}`, `${info.size} ${info.mtimeMs}`);
      if (entry.isDirectory()) await walk(full);
    }
  };
  await walk(root);
  return out;
}

test("upgrade dry-run --height H starts from the state at any height the home still holds, which stays untouched", async () => {
  // A copy of the dev home (latest 3) carried on to height 7, a note added to notes_v1 at each height, with pruning
  // keeping the last 4 versions: heights 3..7 held, 1 and 2 pruned.
  const grown = join(dir.path, "grown");
  await cp(home, grown, { recursive: true });
  const db = homePaths(grown).applicationDb;
  const appHashes = new Map<bigint, string>();
  const store = await openMultiStore({
    path: db,
    storeNames: await readCommittedStoreNames(db),
    pruning: { strategy: "custom", keepRecent: 4n, interval: 1n },
  });
  let earliest: bigint;
  try {
    appHashes.set(3n, hexUpper(store.lastCommit().appHash));
    for (let v = 4; v <= 7; v++) {
      const branch = store.branch();
      branch.store("notes_v1").set(new TextEncoder().encode(`grown-${v}`), new TextEncoder().encode(`${v}`));
      await store.stage(branch);
      const info = await store.commit();
      appHashes.set(info.version, hexUpper(info.appHash));
    }
    await store.idle();
    earliest = store.earliestVersion();
  } finally {
    await store.close();
  }
  assert.equal(earliest, 3n);
  const listingBefore = await listTree(grown);
  const hashesBefore = await hashTree(grown);

  const dryRun = async (height?: string) => {
    const run = await runChaindInProcess([
      "--home",
      grown,
      "upgrade",
      "dry-run",
      "v2",
      "-o",
      "json",
      ...(height === undefined ? [] : ["--height", height]),
    ]);
    assert.equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout) as DryRunJson;
  };
  const latest = await dryRun();
  const older = await dryRun("5");
  const earliestHeld = await dryRun("3");
  // The dev home itself is at height 3: its dry run at the latest is what the older height's should be.
  const ofDevHome = await runChaindInProcess(["--home", home, "upgrade", "dry-run", "v2", "-o", "json"]);
  assert.equal(ofDevHome.code, 0, ofDevHome.stderr);
  const atThreeOnItsOwn = JSON.parse(ofDevHome.stdout) as DryRunJson & { duration_ms?: unknown };

  const notes = (report: DryRunJson) => report.stores.find((s) => s.name === "notes");
  assert.deepEqual([latest.height, latest.applied_at], ["7", "8"]);
  assert.deepEqual([older.height, older.applied_at], ["5", "6"]);
  assert.deepEqual([earliestHeld.height, earliestHeld.applied_at], ["3", "4"]);
  // The state as of each height: its notes (renamed by v2's store loader, the keys kept) and its committed app hash.
  assert.deepEqual(notes(latest), { name: "notes", keys_before: 4, keys_after: 4, renamed_from: "notes_v1" });
  assert.deepEqual(notes(older), { name: "notes", keys_before: 2, keys_after: 2, renamed_from: "notes_v1" });
  assert.deepEqual(notes(earliestHeld), { name: "notes", keys_before: 0, keys_after: 0, renamed_from: "notes_v1" });
  assert.equal(latest.app_hash_before, appHashes.get(7n));
  assert.equal(older.app_hash_before, appHashes.get(5n));
  assert.equal(earliestHeld.app_hash_before, appHashes.get(3n));
  assert.notEqual(older.app_hash_after, latest.app_hash_after);
  // The same upgrade, handler and migrations: the older height's report is the one a home at that height gives.
  assert.deepEqual(older.module_versions, latest.module_versions);
  assert.deepEqual(older.store_upgrades, latest.store_upgrades);
  const { duration_ms: _took, ...fromOlder } = earliestHeld as DryRunJson & { duration_ms?: unknown };
  const { duration_ms: _tookToo, ...onItsOwn } = atThreeOnItsOwn;
  assert.deepEqual(fromOlder, onItsOwn);

  // Heights it cannot start from: one line each, status 1.
  const refused: [string, RegExp][] = [
    ["8", /--height 8 is in the future: the latest committed height is 7$/m],
    ["2", /--height 2: the home no longer holds that state \(earliest available height 3, latest 7\)$/m],
    ["0", /expected a positive whole number/],
    ["-1", /expected a positive whole number/],
    ["2.5", /expected a positive whole number/],
    ["x", /expected a positive whole number/],
  ];
  for (const [height, expected] of refused) {
    const run = await runChaindInProcess(["--home", grown, "upgrade", "dry-run", "v2", "--height", height]);
    assert.equal(run.code, 1, height);
    assert.match(run.stderr, expected, height);
    assert.equal(run.stderr.trim().split("\n").length, 1, run.stderr);
    assert.equal(run.stdout, "");
  }
  // The library refuses a height below 1 itself (the CLI never passes one).
  await assert.rejects(dryRunUpgrade({ home: grown, name: "v2", height: 0n }), (err: unknown) => {
    assert.ok(err instanceof DryRunError);
    assert.match(err.message, /^--height 0: a height is a positive whole number/);
    return true;
  });

  // The source home: the same files, sizes, modification times and contents.
  assert.deepEqual(await listTree(grown), listingBefore);
  assert.deepEqual(await hashTree(grown), hashesBefore);
});

test("upgrade dry-run of an upgrade the state has already applied says so, with status 1", async () => {
  // A copy of the dev home whose state marks v2 done at height 3, as the upgrade's own block would have.
  const applied = join(dir.path, "applied");
  await cp(home, applied, { recursive: true });
  const db = homePaths(applied).applicationDb;
  const store = await openMultiStore({ path: db, storeNames: await readCommittedStoreNames(db) });
  const branch = store.branch();
  const height = new Uint8Array(8);
  new DataView(height.buffer).setBigUint64(0, 3n);
  branch.store(UPGRADE_STORE_KEY).set(doneKey("v2"), height);
  await store.stage(branch);
  await store.commit();
  await store.close();

  const again = await runChaindInProcess(["--home", applied, "upgrade", "dry-run", "v2"]);
  assert.equal(again.code, 1);
  assert.match(
    again.stderr,
    /the upgrade "v2" was already applied at height 3: there is nothing to dry-run on this state/,
  );
  assert.doesNotMatch(again.stderr, /\n\s+at /);

  // The rehearsal reads the done record through its one open of the state, where the store loader applies v2's store
  // changes at the next height: here the stores are still v1's, so that open succeeds and the record refuses it.
  const rehearsed = await runChaindInProcess(["--home", applied, "upgrade", "rehearse", "v2", "--no-determinism"]);
  assert.equal(rehearsed.code, 1);
  assert.match(rehearsed.stderr, /the upgrade "v2" was already applied at height 3: rehearse on a state before it/);
  assert.doesNotMatch(rehearsed.stderr, /\n\s+at /);
});

test("upgrade rehearse of a state the real upgrade has run on says so in one line, with status 1", async () => {
  // The real upgrade at height 4 on a copy: v2's stores are there now, so applying its store changes once more (the
  // rehearsal's open) fails, and the rehearsal reads the done record to say why.
  const upgraded = join(dir.path, "upgraded");
  await cp(home, upgraded, { recursive: true });
  const { chainId } = await loadGenesis(homePaths(upgraded).genesis);
  const { chain } = await runUpgrade({
    home: upgraded,
    name: "v2",
    chain: referenceChain,
    release: releaseForUpgrade("v2", referenceChain),
    chainId,
    block: create(RequestFinalizeBlockSchema, { height: 4n, time: timestampFromMs(Date.now()), txs: [] }),
    inspect: false,
  });
  await chain.app.close();
  await closeVerifyPool();

  const rehearsed = await runChaindInProcess(["--home", upgraded, "upgrade", "rehearse", "v2", "--no-determinism"]);
  assert.equal(rehearsed.code, 1);
  assert.match(
    rehearsed.stderr,
    /the upgrade "v2" was already applied at height 4: rehearse on a state before it \(--height 3 or lower\)/,
  );
  assert.doesNotMatch(rehearsed.stderr, /\n\s+at /);
});

test("pre-upgrade exits 0 without output and documents the protocol in its help", async () => {
  const [run, help] = await Promise.all([
    runChaind(["pre-upgrade"], { userHome }),
    runChaind(["pre-upgrade", "--help"], { userHome }),
  ]);
  assert.deepEqual([run.code, run.stdout, run.stderr], [0, "", ""]);
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /30 +fatal/);
  assert.match(help.stdout, /31 +retry/);
});
