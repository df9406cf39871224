// A kill in the middle of an atomic write leaves `.upgrade-info.json.tmp-<pid>-<hex>` (and the like)
// in data/: a real node started on that home removes the temporaries of writers that are gone, logs
// each, and leaves alone those of a writer that still runs and every other file.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { pino } from "pino";
import { tempDir } from "../../test/support/node/chaind.ts";
import { homePaths } from "../config/index.ts";
import { removeStaleTemporaries } from "../config/stale-temporaries.ts";
import { type DevHome, prepareDevHome } from "./dev-chain.ts";
import { type RunningNode, startNode } from "./start-node.ts";

const PORTS = { rpcLaddr: "tcp://127.0.0.1:0", apiAddress: "tcp://127.0.0.1:0", grpcAddress: "127.0.0.1:0" };

let dir: Awaited<ReturnType<typeof tempDir>>;
let dev: DevHome;
let node: RunningNode | undefined;

/** The pid of a process that has exited (so no writer of that pid runs any more). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid as number;
}

before(async () => {
  dir = await tempDir("chaind-stale-tmp-");
  dev = await prepareDevHome({ home: join(dir.path, "home") });
});

after(async () => {
  await node?.stop();
  await dir?.remove();
});

test("start removes temporaries (files and snapshot folders) of interrupted writes, keeps a live writer's and every other file", async () => {
  const { dataDir, configDir } = homePaths(dev.home);
  const dead = await deadPid();
  const stale = [
    `.upgrade-info.json.tmp-${dead}-0a1b2c3d4e5f`,
    `.priv_validator_state.json.tmp-${dead}-00ff00ff00ff`,
    `upgrade-info.json.tmp-${dead}-deadbeef`,
  ];
  const live = `.upgrade-info.json.tmp-${process.ppid}-abcdefabcdef`;
  const keep = ["upgrade-info.json.tmp-notapid-abc", "notes.tmp"];
  for (const name of [...stale, live, ...keep]) await writeFile(join(dataDir, name), '{"name":"v2","height');
  await writeFile(join(configDir, `.genesis.json.tmp-${dead}-123456789abc`), "{");
  // A kill while a snapshot was written or an archive unpacked leaves a hidden folder in data/snapshots.
  const snapshotsDir = join(dataDir, "snapshots");
  const staleFolders = [`.tmp-20-1-${dead}-1764400000000`, `.tmp-load-${dead}-1764400000000-0a1b2c3d`];
  const liveFolder = `.tmp-40-1-${process.ppid}-1764400000000`;
  for (const name of [...staleFolders, liveFolder, "20/1"]) {
    await mkdir(join(snapshotsDir, name), { recursive: true });
    await writeFile(join(snapshotsDir, name, "0"), "chunk");
  }

  const lines: string[] = [];
  const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(line) });
  node = await startNode({ home: dev.home, logger, overrides: PORTS });
  const left = await readdir(dataDir);
  for (const name of stale) assert.ok(!left.includes(name), `${name} is still in data/`);
  assert.ok(left.includes(live), "the temporary of a running writer was removed");
  for (const name of keep) assert.ok(left.includes(name), `${name} was removed`);
  assert.deepEqual(
    (await readdir(configDir)).filter((n) => n.includes(".tmp-")),
    [],
    "config/ still holds a temporary",
  );
  for (const name of stale) {
    assert.ok(
      lines.some((l) => l.includes(name) && l.includes("interrupted write")),
      `no log line names ${name}`,
    );
  }
  assert.deepEqual((await readdir(snapshotsDir)).sort(), [liveFolder, "20"].sort(), "snapshot temporaries remain");
  assert.deepEqual(await readdir(join(snapshotsDir, "20", "1")), ["0"], "a snapshot folder was touched");
  for (const name of staleFolders) {
    assert.ok(
      lines.some((l) => l.includes(name) && l.includes("snapshot temporary")),
      `no log line names ${name}`,
    );
  }
  await node.stop();
  node = undefined;
});

test("removeStaleTemporaries: a missing directory has none", async () => {
  assert.deepEqual(await removeStaleTemporaries(join(dir.path, "nope")), []);
});
