// Stepped migrations on the real node (issue 32 item 3): the reference chain goes v1 → v2 → v3 through two real halts
// (exit 20), and v3's upgrade starts its stepped migration (every balance record indexed into `holders`, 2,000 a
// block; the genesis holds 80,000 extra balances so it takes about 40 blocks). The REST Migrations query reports it;
// the node is SIGKILLed in the middle and restarted; it resumes from the stored cursor, a bank send is refused by
// CheckTx with `module bank is migrating: N% done, started at height H`, the CLI query shows it, it finishes, and the
// same send is then accepted. Finally `chaind replay` (one uninterrupted process, switching v1 → v2 → v3 in process) reproduces the app
// hash of every height the killed-and-restarted node committed.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { homePaths, loadGenesis, saveGenesis, setTomlValues } from "../../src/config/index.ts";
import { addressToBech32 } from "../../src/crypto/index.ts";
import { BlockStore } from "../../src/engine/block-store.ts";
import { MsgSendSchema } from "../../src/gen/chain/bank/v1beta1/tx_pb.js";
import { type DevHome, prepareDevHome } from "../../src/node/dev-chain.ts";
import { broadcastAndWait } from "../../src/testing/broadcast.ts";
import { scheduleUpgradeByVote } from "../../src/testing/governance.ts";
import { closeVerifyPool } from "../../src/x/auth/verify-pool.ts";
import { UPGRADE_EXIT_CODES } from "../../src/x/upgrade/errors.ts";
import {
  bannerEndpoints,
  killAllChaind,
  LOOPBACK_PORT_FLAGS,
  latestHeight,
  pollUntil,
  runChaind,
  spawnChaind,
  tempDir,
  waitForHeight,
} from "../support/node/chaind.ts";

const EXTRA_BALANCES = 80_000;
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex").toUpperCase();

interface MigrationJson {
  upgrade: string;
  module: string;
  name: string;
  started_height: string;
  finished_height: string;
  progress: string;
  steps: string;
}

let dir: Awaited<ReturnType<typeof tempDir>>;
let dev: DevHome;
let userHome: string;
let v3Height = 0n;
let tip = 0n;

before(async () => {
  dir = await tempDir("chaind-stepped-");
  userHome = join(dir.path, "user");
  dev = await prepareDevHome({ home: join(dir.path, "source") });
  const paths = homePaths(dev.home);
  const genesis = await loadGenesis(paths.genesis);
  const appState = structuredClone(genesis.appState ?? {}) as Record<string, unknown> & {
    gov: { params: Record<string, unknown> };
    bank: { balances: { address: string; coins: { denom: string; amount: string }[] }[]; supply: unknown[] };
  };
  appState.gov.params.voting_period = "10s";
  appState.gov.params.max_deposit_period = "10s";
  appState.gov.params.expedited_voting_period = "5s";
  for (let i = 0; i < EXTRA_BALANCES; i++) {
    appState.bank.balances.push({
      address: addressToBech32(randomBytes(20)),
      coins: [{ denom: "stake", amount: "7" }],
    });
  }
  appState.bank.supply = []; // computed from the balances
  await saveGenesis(paths.genesis, { ...genesis, appState: appState as never });
  await writeFile(
    paths.configToml,
    setTomlValues(await readFile(paths.configToml, "utf8"), { "consensus.timeout_commit": "300ms" }),
  );
});

after(async () => {
  await killAllChaind();
  await closeVerifyPool();
  await dir?.remove();
});

/** Runs `release` until the plan `name` (scheduled here by the validator's vote) halts it with exit 20. */
async function upgradeTo(release: string, name: string): Promise<bigint> {
  const validator = dev.keys.find((key) => key.name === "validator")?.address as string;
  const node = spawnChaind(["--home", dev.home, "start", ...LOOPBACK_PORT_FLAGS], {
    userHome,
    env: { CHAIND_RELEASE: release },
  });
  const { rpc, rest } = await bannerEndpoints(node);
  await waitForHeight(rpc, (await latestHeight(rpc)) + 1n);
  // 60 blocks of at least 300 ms: 18 s or more, so the proposal (10 s of voting) passes before the plan's height.
  const height = (await latestHeight(rpc)) + 60n;
  await scheduleUpgradeByVote({
    rpc,
    rest: rest as string,
    home: dev.home,
    chainId: dev.chainId,
    keyName: "validator",
    address: validator,
    name,
    height,
    title: `upgrade to ${name}`,
    summary: "stepped migration e2e",
  });
  const halted = await node.exited;
  assert.equal(halted.code, UPGRADE_EXIT_CODES.needed, halted.stderr.slice(-3000));
  return height;
}

async function migrationsOver(rest: string): Promise<MigrationJson[]> {
  const response = await fetch(`${rest}/chain/upgrade/v1beta1/migrations`);
  assert.equal(response.status, 200);
  return ((await response.json()) as { migrations: MigrationJson[] }).migrations;
}

function send(rpc: string, rest: string) {
  const alice = dev.keys.find((k) => k.name === "alice")?.address as string;
  const bob = dev.keys.find((k) => k.name === "bob")?.address as string;
  return broadcastAndWait({
    rpc,
    rest,
    home: dev.home,
    chainId: dev.chainId,
    keyName: "alice",
    address: alice,
    schema: MsgSendSchema,
    message: create(MsgSendSchema, { fromAddress: alice, toAddress: bob, amount: [{ denom: "stake", amount: "1" }] }),
  });
}

test("v3's stepped migration runs across blocks, refuses bank's txs, survives a SIGKILL and finishes", {
  timeout: 900_000,
}, async () => {
  await upgradeTo("v1", "v2");
  v3Height = await upgradeTo("v2", "v3");

  let node = spawnChaind(["--home", dev.home, "start", ...LOOPBACK_PORT_FLAGS], {
    userHome,
    env: { CHAIND_RELEASE: "v3" },
  });
  let endpoints = await bannerEndpoints(node);
  let rest = endpoints.rest as string;
  const running = await pollUntil(
    async () => {
      const [migration] = await migrationsOver(rest);
      return migration !== undefined && BigInt(migration.steps) >= 1n ? migration : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 100, what: "the stepped migration" },
  );
  assert.deepEqual(
    [running.upgrade, running.module, running.name, running.started_height, running.finished_height],
    ["v3", "bank", "holders-index", v3Height.toString(), "0"],
  );
  assert.match(running.progress, /^0\.\d{18}$/);

  // SIGKILL in the middle of the migration (early: most of it is left for the checks after the restart).
  const before = await pollUntil(
    async () => {
      const [migration] = await migrationsOver(rest);
      return migration !== undefined && BigInt(migration.steps) >= 2n ? migration : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 100, what: "the stepped migration's second step" },
  );
  node.signal("SIGKILL");
  await node.exited;
  assert.equal(before.finished_height, "0", "still running when killed");

  node = spawnChaind(["--home", dev.home, "start", ...LOOPBACK_PORT_FLAGS], {
    userHome,
    env: { CHAIND_RELEASE: "v3" },
  });
  endpoints = await bannerEndpoints(node);
  rest = endpoints.rest as string;
  // It resumes from the stored cursor; while bank migrates its sends are refused (CheckTx), with how far it is and
  // since when, and the CLI shows it too.
  await assert.rejects(
    send(endpoints.rpc, rest),
    new RegExp(`refused by CheckTx \\(code 7\\): module bank is migrating: \\d+% done, started at height ${v3Height}$`),
  );
  const cli = await runChaind(["query", "upgrade", "migrations", "-o", "json", "--node", endpoints.rpc], { userHome });
  assert.equal(cli.code, 0, cli.stderr);
  const shown = (JSON.parse(cli.stdout) as { migrations: MigrationJson[] }).migrations[0];
  assert.equal(shown?.name, "holders-index");
  assert.ok(BigInt(shown?.steps ?? "0") >= BigInt(before.steps), "resumed, not restarted");
  const finished = await pollUntil(
    async () => {
      const [migration] = await migrationsOver(rest);
      return migration !== undefined && migration.finished_height !== "0" ? migration : undefined;
    },
    { timeoutMs: 300_000, what: "the stepped migration to finish" },
  );
  assert.equal(finished.progress, "1.000000000000000000");
  // 80,000 extra balances and a few of the dev chain's own, 2,000 a step: 41 steps with the one that finds none left.
  assert.ok(BigInt(finished.steps) >= 41n, JSON.stringify(finished));
  assert.equal(BigInt(finished.finished_height), v3Height + BigInt(finished.steps));

  // Done: bank's txs are accepted again.
  await send(endpoints.rpc, rest);
  await waitForHeight(endpoints.rpc, BigInt(finished.finished_height) + 3n);
  node.signal("SIGTERM");
  assert.equal((await node.exited).code, 0);
  const copy = join(dir.path, "blocks-copy");
  await cp(homePaths(dev.home).blocksDb, copy, { recursive: true });
  const store = await BlockStore.open(copy);
  tip = store.height;
  await store.close();
});

test("chaind replay of the chain (v1 → v2 → v3, stepped migration, a SIGKILL) reproduces every app hash", {
  timeout: 900_000,
}, async () => {
  assert.ok(tip > v3Height, "the source chain was produced");
  const target = join(dir.path, "replayed");
  const result = await runChaind(["replay", "--from", dev.home, "--home", target, "-o", "json"], {
    userHome,
    env: { CHAIND_RELEASE: "v3" },
  });
  assert.equal(result.code, 0, result.stderr.slice(-4000));
  const report = JSON.parse(result.stdout) as {
    to_height: string;
    segments: { release: string; entered_by: string | null; from_height: string }[];
  };
  assert.equal(report.to_height, tip.toString());
  assert.deepEqual(
    report.segments.map((s) => [s.release, s.entered_by]),
    [
      ["v1", null],
      ["v2", "v2"],
      ["v3", "v3"],
    ],
  );
  assert.equal(report.segments[2]?.from_height, v3Height.toString());

  // Height by height: what the replay computed against what the killed-and-restarted source recorded.
  const hashes = async (home: string) => {
    const copy = join(dir.path, `hashes-${Math.random().toString(36).slice(2)}`);
    await cp(homePaths(home).blocksDb, copy, { recursive: true });
    const store = await BlockStore.open(copy);
    try {
      const out = new Map<bigint, string>();
      for (let h = store.base; h <= store.height; h++) {
        const results = await store.results(h);
        assert.ok(results !== undefined, `height ${h} has results`);
        out.set(h, hex(results.appHash));
      }
      return out;
    } finally {
      await store.close();
    }
  };
  const expected = await hashes(dev.home);
  const got = await hashes(target);
  assert.equal(got.size, expected.size);
  for (const [height, hash] of expected) assert.equal(got.get(height), hash, `app hash at height ${height}`);
});
