// Rehearsal in CI, as a chain team runs it before every release (docs/BUILD-A-CHAIN.md "Rehearsal in your CI"):
// build a v1 state with the chain's own binary (genesis signatures, a few blocks), stop the node, and rehearse the
// next release's upgrade on it with `guestbookd upgrade rehearse v2 -o json`. Exit 0 means the store rename, the
// migration, the module's invariant and the upgrade's own check passed and two runs in different environments
// (time zone, locale, clock, Math.random) agreed; on 1, the report and stderr say which check failed.
// Imports only `chaind/...`, Node's built-ins and the chain's own files, as a chain outside this repository would.
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, test } from "node:test";
import { homePaths, loadGenesis, saveGenesis, setTomlValues } from "chaind/config";
import { prepareDevHome } from "chaind/node";
import { useChain } from "chaind/runtime";
import { type ChainBinary, killAllStarted, LOOPBACK_PORT_FLAGS, spawnChainBinary, tempDir } from "chaind/testing";
import { guestbookChain } from "./app.ts";

const GUESTBOOKD: ChainBinary = {
  node: process.execPath,
  entry: join(import.meta.dirname, "cmd", "guestbookd.ts"),
  cwd: import.meta.dirname,
  releaseEnv: "GUESTBOOK_RELEASE",
};

let dir: Awaited<ReturnType<typeof tempDir>> | undefined;

after(async () => {
  await killAllStarted();
  await dir?.remove();
});

test("guestbookd upgrade rehearse v2 passes on a real v1 state: rename, migration, invariant, check, determinism", async () => {
  dir = await tempDir("guestbook-rehearsal-");
  useChain(guestbookChain);
  const dev = await prepareDevHome({ home: join(dir.path, "home") });
  const paths = homePaths(dev.home);
  const genesis = await loadGenesis(paths.genesis);
  const appState = { ...(genesis.appState ?? {}) } as Record<string, unknown>;
  appState.guestbook = {
    signatures: [
      { name: "ada", message: "hello from genesis" },
      { name: "grace", message: "the first guest" },
    ],
  };
  await saveGenesis(paths.genesis, { ...genesis, appState: appState as never });
  await writeFile(
    paths.configToml,
    setTomlValues(await readFile(paths.configToml, "utf8"), { "consensus.timeout_commit": "200ms" }),
  );
  const userHome = join(dir.path, "user");
  // The v1 node stops by itself after block 3: a real, stopped state to rehearse on.
  const v1 = await spawnChainBinary(
    GUESTBOOKD,
    ["--home", dev.home, "start", "--halt-height", "3", ...LOOPBACK_PORT_FLAGS],
    { userHome },
  ).exited;
  assert.equal(v1.code, 0, v1.stderr.slice(-2000));

  // The step a CI job runs: the next release's binary rehearses its upgrade.
  const rehearsal = await spawnChainBinary(
    GUESTBOOKD,
    ["--home", dev.home, "upgrade", "rehearse", "v2", "-o", "json"],
    {
      userHome,
    },
  ).exited;
  assert.equal(rehearsal.code, 0, `${rehearsal.stdout}\n${rehearsal.stderr}`);
  const report = JSON.parse(rehearsal.stdout) as {
    passed: boolean;
    checks: { name: string; phase: string; passed: boolean }[];
    determinism: { equal: boolean };
    stores: { name: string; renamed_from: string | null }[];
    module_versions: { name: string; before: string | null; after: string | null }[];
  };
  assert.equal(report.passed, true);
  assert.deepEqual(report.checks.map((c) => `${c.name} ${c.phase} ${c.passed}`).sort(), [
    "bank/total-supply after true",
    "guestbook/entries-readable after true",
    "v2/every-signature-migrated after true",
    "v2/every-signature-migrated before true",
  ]);
  assert.equal(report.determinism.equal, true);
  assert.equal(report.stores.find((s) => s.name === "guestbook")?.renamed_from, "entries_v1");
  assert.deepEqual(
    report.module_versions.find((m) => m.name === "guestbook"),
    { name: "guestbook", before: "1", after: "2" },
  );
});
