// `upgrade rehearse` as real processes on a real node's state (issue 33). A dev chain of the rehearsal test chain
// (support/rehearse-chain.ts) runs a few blocks with a bank send, then stops; every rehearsal starts from height 2
// of that home and follows the source's blocks, so the send runs under the new rules. A clean upgrade passes every
// check; a handler that reads Date.now(), one that numbers items in Math.random() order and one that formats with
// the process's locale are caught by the determinism check, naming the store and key; a failing `after` check is
// reported by name; sends the new rules refuse are reported with their code; a snapshot archive of the same state
// gives the same app hash as the home; bad input is one line with status 1; the source home is never written.
import assert from "node:assert/strict";
import { cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { homePaths } from "../../src/config/index.ts";
import { dumpHomeSnapshot, exportHomeSnapshot } from "../../src/node/snapshot-home.ts";
import {
  bannerEndpoints,
  type ChainBinary,
  killAllStarted,
  LOOPBACK_PORT_FLAGS,
  spawnChainBinary,
  tempDir,
  waitForHeight,
} from "../../src/testing/index.ts";
import { PROJECT_ROOT } from "../support/node/chaind.ts";
import { rehearseChain } from "./support/rehearse-chain.ts";
import { hashTree } from "./support/tree-hash.ts";

const REHEARSED: ChainBinary = {
  node: process.execPath,
  entry: join(import.meta.dirname, "support", "rehearse-chaind.ts"),
  cwd: PROJECT_ROOT,
  releaseEnv: "REHEARSE_RELEASE",
};

interface RehearsalJson {
  passed: boolean;
  failures: string[];
  height: string;
  applied_at: string;
  app_hash_after: string;
  checks: { name: string; phase: string; passed: boolean; error: string | null }[];
  determinism: {
    ran: boolean;
    equal: boolean;
    second: { time_zone: string; locale: string } | null;
    difference: { store: string; key: string | null; key_text: string | null } | null;
  };
  follow: {
    blocks: {
      height: string;
      txs: number;
      succeeded: number;
      broken: { code: number; codespace: string; log: string }[];
    }[];
  } | null;
  duration_ms: { handler: number; pause_estimate: number };
  peak_rss_bytes: number;
}

let dir: Awaited<ReturnType<typeof tempDir>>;
let home: string;
let userHome: string;
let sourceHashes: Record<string, string>;

before(async () => {
  dir = await tempDir("chaind-rehearse-");
  home = join(dir.path, "home");
  userHome = join(dir.path, "user");
  const node = spawnChainBinary(REHEARSED, ["dev", "--home", home, ...LOOPBACK_PORT_FLAGS], { userHome });
  try {
    const { rpc } = await bannerEndpoints(node);
    await waitForHeight(rpc, 3n);
    const bob = await spawnChainBinary(
      REHEARSED,
      ["keys", "show", "bob", "-a", "--home", home, "--keyring-backend", "test"],
      {
        userHome,
      },
    ).exited;
    assert.equal(bob.code, 0, bob.stderr);
    const send = await spawnChainBinary(
      REHEARSED,
      [
        "tx",
        "bank",
        "send",
        "alice",
        bob.stdout.trim(),
        "1stake",
        "--home",
        home,
        "--keyring-backend",
        "test",
        "-y",
        "--wait",
        "--node",
        rpc.replace("http://", "tcp://"),
      ],
      { userHome },
    ).exited;
    assert.equal(send.code, 0, send.stderr);
  } finally {
    node.signal("SIGTERM");
    await node.exited;
  }
  sourceHashes = await hashTree(homePaths(home).dataDir);
});

after(async () => {
  await killAllStarted();
  await dir?.remove();
});

async function rehearse(args: string[], fault = "") {
  const run = await spawnChainBinary(REHEARSED, ["--home", home, "upgrade", "rehearse", "v2", ...args], {
    userHome,
    env: { REHEARSE_FAULT: fault },
  }).exited;
  return { ...run, report: run.stdout.startsWith("{") ? (JSON.parse(run.stdout) as RehearsalJson) : undefined };
}

const FOLLOW = ["--height", "2", "--follow", "1000", "-o", "json"];

test("a clean upgrade passes every check: invariants, the upgrade's checks, determinism, the followed send", async () => {
  const { code, stderr, report } = await rehearse(FOLLOW);
  assert.equal(code, 0, stderr);
  assert.ok(report?.passed);
  assert.equal(report.height, "2");
  assert.equal(report.applied_at, "3");
  const names = report.checks.map((c) => `${c.name} ${c.phase}`);
  for (const expected of ["bank/total-supply after", "v2/notes-kept before", "v2/notes-kept after"]) {
    assert.ok(names.includes(expected), `${expected} in ${names.join(", ")}`);
  }
  assert.ok(report.checks.every((c) => c.passed));
  assert.equal(report.determinism.ran, true);
  assert.equal(report.determinism.equal, true);
  assert.notEqual(report.determinism.second?.time_zone, undefined);
  const followed = report.follow?.blocks ?? [];
  assert.ok(followed.length >= 2);
  assert.equal(followed[0].height, "3");
  assert.equal(
    followed.reduce((n, b) => n + b.succeeded, 0),
    1,
    "the bank send succeeds under v2",
  );
  assert.ok(report.duration_ms.pause_estimate >= report.duration_ms.handler);
  assert.ok(report.peak_rss_bytes > 0);
});

for (const [fault, key] of [
  ["clock", "upgraded-at"],
  ["random", "item-"],
  ["locale", "total"],
] as const) {
  test(`a handler whose output depends on the ${fault} is caught by the determinism check, store and key named`, async () => {
    const { code, stderr, report } = await rehearse(["-o", "json"], fault);
    assert.equal(code, 1);
    assert.equal(report?.passed, false);
    assert.equal(report.determinism.equal, false);
    assert.equal(report.determinism.difference?.store, "notes");
    assert.ok(report.determinism.difference?.key_text?.startsWith(key), JSON.stringify(report.determinism));
    assert.match(
      stderr,
      /^Error: the rehearsal of upgrade "v2" failed: determinism: .*store notes, first differing key/m,
    );
    assert.doesNotMatch(stderr, /\n\s+at /);
  });
}

test("an upgrade whose after check fails is reported with the check's name", async () => {
  const { code, stdout, stderr } = await rehearse([], "after");
  assert.equal(code, 1);
  assert.match(stdout, /^ {2}FAIL {2}v2\/notes-kept \(after\): 1 notes before the upgrade, 0 after$/m);
  assert.match(stderr, /check v2\/notes-kept \(after\) failed/);
});

test("followed sends the new rules refuse are reported with their code", async () => {
  const { code, report } = await rehearse(FOLLOW, "send-disabled");
  assert.equal(code, 1);
  const broken = (report?.follow?.blocks ?? []).flatMap((b) => b.broken);
  assert.equal(broken.length, 1);
  assert.equal(broken[0].codespace, "bank");
  assert.equal(broken[0].code, 5);
  assert.match(broken[0].log, /send transactions are disabled/);
});

test("a snapshot archive of the home's latest height rehearses to the same app hash as the home itself", async () => {
  // The snapshot is taken in a copy: export writes data/snapshots of the home it is given.
  const copy = join(dir.path, "snapshot-home");
  await cp(home, copy, { recursive: true });
  const info = await exportHomeSnapshot({ home: copy, chain: rehearseChain });
  const archive = join(dir.path, "state.tar.gz");
  await dumpHomeSnapshot({ home: copy, height: info.height, format: info.format, out: archive });

  const [fromHome, fromSnapshot] = [
    await rehearse(["-o", "json"]),
    await rehearse(["--snapshot", archive, "-o", "json"]),
  ];
  assert.equal(fromHome.code, 0, fromHome.stderr);
  assert.equal(fromSnapshot.code, 0, fromSnapshot.stderr);
  assert.equal(fromSnapshot.report?.height, info.height.toString());
  assert.equal(fromSnapshot.report?.app_hash_after, fromHome.report?.app_hash_after);

  // A damaged archive, and one of another chain: one line each, status 1.
  const damaged = join(dir.path, "damaged.tar.gz");
  const bytes = await readFile(archive);
  await writeFile(damaged, bytes.subarray(0, Math.floor(bytes.length / 2)));
  const broken = await rehearse(["--snapshot", damaged]);
  assert.equal(broken.code, 1);
  assert.match(broken.stderr, /^Error: .*damaged\.tar\.gz/m);
  assert.doesNotMatch(broken.stderr, /\n\s+at /);

  const other = join(dir.path, "other-chain");
  await cp(homePaths(home).configDir, homePaths(other).configDir, { recursive: true });
  const genesis = JSON.parse(await readFile(homePaths(other).genesis, "utf8")) as { chain_id: string };
  genesis.chain_id = "another-chain";
  await writeFile(homePaths(other).genesis, JSON.stringify(genesis));
  const foreign = await spawnChainBinary(
    REHEARSED,
    ["--home", other, "upgrade", "rehearse", "v2", "--snapshot", archive],
    {
      userHome,
    },
  ).exited;
  assert.equal(foreign.code, 1);
  assert.match(foreign.stderr, /is of chain "chaind-dev", but this home's genesis\.json is of chain "another-chain"/);
});

test("--block-time sets block H+1's time, which the app hash after the upgrade depends on", async () => {
  // A real upgrade at H+1 is matched only with that block's time (staking keeps the header in state).
  const at = (time: string, more: string[] = []) =>
    rehearse(["--height", "2", "--no-determinism", "-o", "json", "--block-time", time, ...more]);
  const first = await at("2030-01-02T03:04:05.123456789Z");
  const again = await at("2030-01-02T03:04:05.123456789Z");
  const later = await at("2030-01-02T03:04:06.123456789Z");
  const proposed = await at("2030-01-02T03:04:05.123456789Z", ["--proposer", "AB".repeat(20)]);
  for (const run of [first, again, later, proposed]) assert.equal(run.code, 0, run.stderr);
  assert.equal(first.report?.applied_at, "3");
  assert.equal(again.report?.app_hash_after, first.report?.app_hash_after);
  assert.notEqual(later.report?.app_hash_after, first.report?.app_hash_after);
});

test("bad input is one line with status 1, and the source home is never written", async () => {
  const cases: [string[], RegExp][] = [
    [
      ["--home", home, "upgrade", "rehearse", "v9"],
      /no release in this binary performs the upgrade "v9" \(it knows: v2\)/,
    ],
    [
      ["--home", home, "upgrade", "rehearse", "v2", "--height", "9999"],
      /--height 9999 is in the future: the latest committed height is \d+/,
    ],
    [["--home", home, "upgrade", "rehearse", "v2", "--height", "x"], /expected a positive whole number/],
    [["--home", home, "upgrade", "rehearse", "v2", "--block-time", "yesterday"], /expected an RFC 3339 time/],
    [["--home", home, "upgrade", "rehearse", "v2", "--proposer", "zz"], /expected an address of 40 hex digits/],
    [
      ["--home", home, "upgrade", "rehearse", "v2", "--follow", "1", "--block-time", "2030-01-01T00:00:00Z"],
      /--block-time and --proposer set block H\+1, which --follow takes from the source/,
    ],
    [
      ["--home", home, "upgrade", "rehearse", "v2", "--snapshot", join(dir.path, "none.tar.gz")],
      /none\.tar\.gz: no such file/,
    ],
  ];
  for (const [args, expected] of cases) {
    const run = await spawnChainBinary(REHEARSED, args, { userHome }).exited;
    assert.equal(run.code, 1, args.join(" "));
    assert.match(run.stderr, expected);
    assert.doesNotMatch(run.stderr, /\n\s+at /);
  }
  assert.deepEqual(await hashTree(homePaths(home).dataDir), sourceHashes);
});
