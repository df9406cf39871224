// The node-side upgrade tools as real processes: `chaind upgrade dry-run` on a dev chain's state
// reports the v2 release's store changes, migrations and app hash and leaves the node's data
// byte-for-byte untouched (checked by hashing every file); bad requests exit 1 with the reason; and
// `chaind pre-upgrade` exits 0 quietly, as the sidecar's protocol expects.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { cp, readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { after, before, test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { referenceChain } from "../../chain/app.ts";
import { homePaths, loadGenesis } from "../../src/config/index.ts";
import { RequestFinalizeBlockSchema } from "../../src/gen/tendermint/abci/types_pb.js";
import { releaseForUpgrade } from "../../src/node/dry-run.ts";
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

test("upgrade dry-run refuses an unknown upgrade and a height it cannot open, with status 1", async () => {
  // The binary's command tree in this process: these checks need no process of their own.
  const unknown = await runChaindInProcess(["--home", home, "upgrade", "dry-run", "v9"]);
  const older = await runChaindInProcess(["--home", home, "upgrade", "dry-run", "v2", "--height", "2"]);
  const future = await runChaindInProcess(["--home", home, "upgrade", "dry-run", "v2", "--height", "9"]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /no release in this binary performs the upgrade "v9" \(it knows: v2, v3\)/);
  assert.equal(older.code, 1);
  assert.match(older.stderr, /--height 2: .*latest \(3\)/);
  assert.equal(future.code, 1);
  assert.match(future.stderr, /--height 9 is in the future: the latest committed height is 3/);
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
