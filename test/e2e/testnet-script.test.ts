// scripts/testnet.ts: its command line, its port allocation and `stop`, which must end the processes it recorded
// and never a process that merely reuses a recorded pid (all without CometBFT); and, with the real CometBFT, a
// start whose recorded ports another process holds, which moves to new ports (scripts/testnet/port-retry.ts).
import assert from "node:assert/strict";
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { promisify } from "node:util";
import { ephemeralRangeStart } from "../../scripts/free-ports.ts";
import { resetFreshNodeData } from "../../scripts/testnet/homes.ts";
import {
  allocatePorts,
  findPortCollision,
  MANIFEST_FILE,
  PIDS_FILE,
  type PidsFile,
  PortInUseError,
  startTestnet,
  stopTestnet,
  stopTestnetDir,
  TestnetError,
  type TestnetManifest,
  type TestnetNode,
} from "../../scripts/testnet/index.ts";
import { homePaths } from "../../src/config/home.ts";
import { testnetSkipReason } from "./testnet-support/requirements.ts";

const SCRIPT = join(import.meta.dirname, "..", "..", "scripts", "testnet.ts");

async function runScript(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [SCRIPT, ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "testnet-script-"));
  dirs.push(dir);
  return dir;
}
const children: ChildProcess[] = [];
after(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** A process that idles with `marker` on its command line (as a node has its home), in its own group. */
function idleProcess(marker: string): { child: ChildProcess; exited: Promise<NodeJS.Signals | number | null> } {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", marker], {
    stdio: "ignore",
    detached: true,
  });
  children.push(child);
  const exited = new Promise<NodeJS.Signals | number | null>((done) =>
    child.once("exit", (code, signal) => done(signal ?? code)),
  );
  return { child, exited };
}

describe("scripts/testnet.ts command line", () => {
  it("prints the usage and exits 2 without a command, an unknown option, or no --dir", async () => {
    const argLists = [[], ["start", "--bogus"], ["start"], ["restart", "--dir", "/tmp/x"]];
    const results = await Promise.all(argLists.map((args) => runScript(args)));
    results.forEach((result, i) => {
      assert.equal(result.code, 2, `args ${JSON.stringify(argLists[i])}`);
      assert.match(result.stderr, /usage:\n\s+node scripts\/testnet\.ts start --dir <dir>/);
    });
  });

  it("refuses bad numbers, naming the flag and what it expects", async () => {
    const dir = await tempDir();
    const cases: [string[], RegExp][] = [
      [["--validators", "0"], /--validators 0: expected a whole number from 1 to 50/],
      [["--validators", "four"], /--validators four: expected a whole number from 1 to 50/],
      [["--base-port", "80"], /--base-port 80: expected a whole number from 1024 to 65535/],
      [["--base-port", "65530"], /--base-port 65530 leaves no room for 4 nodes/],
      [["--voting-period", "1m"], /--voting-period 1m: expected whole seconds, at least 2s, e.g. 20s/],
      [["--account", "chain1abc"], /--account chain1abc: expected <address>=<coins>/],
    ];
    const results = await Promise.all(
      cases.map(([flags]) => runScript(["start", "--dir", join(dir, "net"), ...flags])),
    );
    results.forEach((result, i) => {
      assert.equal(result.code, 1, cases[i][0].join(" "));
      assert.match(result.stderr, cases[i][1]);
    });
  });

  it("refuses a non-empty directory it did not set up, and writes nothing into it", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "notes.txt"), "mine");
    const result = await runScript(["start", "--dir", dir]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /is not empty and holds no testnet\.json: give an empty or new --dir/);
    assert.deepEqual(await readdir(dir), ["notes.txt"]);
  });

  it("`stop` on a directory that never ran says so", async () => {
    const dir = await tempDir();
    const result = await runScript(["stop", "--dir", dir]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /pids\.json not found: was a testnet started in/);
  });
});

describe("allocatePorts", () => {
  it("hands out distinct ports for every node", async () => {
    const ports = await allocatePorts(4);
    const all = ports.flatMap((p) => [p.p2p, p.rpc, p.abci, p.api, p.grpc]);
    assert.equal(new Set(all).size, 20);
    // Below the kernel's ephemeral range, where neither listen(0) nor an outgoing connection can take them.
    const top = ephemeralRangeStart();
    for (const port of all) assert.ok(port >= 27_000 && port < top, `port ${port}, ephemeral range from ${top}`);
  });

  it("lays nodes out from a base port, and names a port that is taken", async () => {
    // node1's rpc (base + 10 + 1) is the port we hold. Other processes (tests running beside this one) may hold a
    // port of the same layout that is checked first: then the error names that one (node and kind parsed all the
    // same) and the test tries another layout.
    let named = false;
    for (let attempt = 0; attempt < 10 && !named; attempt++) {
      const blocker = createServer();
      await new Promise<void>((done) => blocker.listen(0, "127.0.0.1", done));
      const taken = (blocker.address() as { port: number }).port;
      try {
        await assert.rejects(allocatePorts(2, taken - 11), (error: unknown) => {
          assert.ok(error instanceof TestnetError);
          const match = /^port (\d+) on 127\.0\.0\.1 \(node(\d) (\w+)\) is in use/.exec(error.message);
          assert.ok(match, error.message);
          named = Number(match[1]) === taken;
          if (named) assert.deepEqual([match[2], match[3]], ["1", "rpc"]);
          return true;
        });
      } finally {
        await new Promise<void>((done) => blocker.close(() => done()));
      }
    }
    assert.ok(named, "in 10 layouts, some other process always held an earlier port");
    const free = await allocatePorts(1);
    const base = free[0].p2p;
    const laidOut = await allocatePorts(2, base).catch(() => undefined);
    if (laidOut !== undefined) {
      assert.deepEqual(laidOut[1], {
        p2p: base + 10,
        rpc: base + 11,
        abci: base + 12,
        api: base + 13,
        grpc: base + 14,
      });
    }
  });
});

describe("stopTestnetDir", () => {
  it("stops the recorded processes and clears pids.json, leaving alone a pid that is not the node's", async () => {
    const dir = await tempDir();
    const home = join(dir, "node0");
    await mkdir(home);
    const node = idleProcess(home);
    const stranger = idleProcess(join(dir, "elsewhere"));
    const pids: PidsFile = {
      nodes: [
        { moniker: "node0", home, chaind: node.child.pid!, cometbft: null },
        // A pid reused by an unrelated process: its command line does not name the home.
        { moniker: "node1", home: join(dir, "node1"), chaind: stranger.child.pid!, cometbft: null },
      ],
    };
    await writeFile(join(dir, PIDS_FILE), JSON.stringify(pids));
    assert.equal(await stopTestnetDir(dir, { graceMs: 5_000 }), 1);
    assert.equal(await node.exited, "SIGTERM");
    assert.equal(stranger.child.exitCode, null, "the unrelated process still runs");
    assert.equal(stranger.child.signalCode, null);
    const cleared = JSON.parse(await readFile(join(dir, PIDS_FILE), "utf8")) as PidsFile;
    assert.deepEqual(
      cleared.nodes.map((n) => [n.chaind, n.cometbft]),
      [
        [null, null],
        [null, null],
      ],
    );
  });

  it("kills with SIGKILL a process that ignores SIGTERM past the grace", async () => {
    const dir = await tempDir();
    const home = join(dir, "node0");
    const program = "process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000)";
    const stubborn = spawn(process.execPath, ["-e", program, home], {
      stdio: ["ignore", "pipe", "ignore"],
      detached: true,
    });
    children.push(stubborn);
    const exited = new Promise((done) => stubborn.once("exit", (_code, signal) => done(signal)));
    // Signalled only once its handler is in place.
    await new Promise((done) => stubborn.stdout!.once("data", done));
    await writeFile(
      join(dir, PIDS_FILE),
      JSON.stringify({ nodes: [{ moniker: "node0", home, chaind: null, cometbft: stubborn.pid }] }),
    );
    assert.equal(await stopTestnetDir(dir, { graceMs: 300 }), 1);
    assert.equal(await exited, "SIGKILL");
  });
});

/**
 * A server holding `port` on 127.0.0.1, as another program beside the testnet might. It hangs up on whoever
 * connects (a peer dialling a p2p port it took), so that closing it never waits on a connection.
 */
async function occupy(port: number): Promise<Server> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((done, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", done);
  });
  return server;
}

async function release(servers: Server[]): Promise<void> {
  await Promise.all(servers.map((s) => new Promise<void>((done) => s.close(() => done()))));
}

async function manifestOf(dir: string): Promise<TestnetManifest> {
  return JSON.parse(await readFile(join(dir, MANIFEST_FILE), "utf8")) as TestnetManifest;
}

describe("findPortCollision", () => {
  it("reads only the process's own output, names the node's port, and ignores other failures", async () => {
    const dir = await tempDir();
    const logFile = join(dir, "cometbft.log");
    const ports = { p2p: 27_101, rpc: 27_102, abci: 27_103, api: 27_104, grpc: 27_105 };
    const earlier = "ERROR: failed to start node: listen tcp 127.0.0.1:27102: bind: address already in use\n";
    await writeFile(logFile, earlier);
    const exited = (logStart: number) => ({
      kind: "cometbft" as const,
      pid: 1,
      logFile,
      logStart,
      exited: Promise.resolve(1),
      hasExited: () => true,
    });
    const node = (proc: ReturnType<typeof exited>): TestnetNode =>
      ({ moniker: "node3", ports, cometbft: proc }) as unknown as TestnetNode;
    // A collision of an earlier run of the node, in the same (appended) log, is not this run's.
    await appendFile(logFile, "ERROR: failed to start node: genesis doc is invalid\n");
    assert.equal(findPortCollision([node(exited(earlier.length))]), undefined);
    const start = (await readFile(logFile)).length;
    await appendFile(
      logFile,
      "ERROR: failed to start node: failed to listen on 127.0.0.1:27102: listen tcp 127.0.0.1:27102: bind: address already in use\n",
    );
    const found = findPortCollision([node(exited(start))]);
    assert.deepEqual([found?.node.moniker, found?.kind, found?.port], ["node3", "rpc", 27_102]);
    // chaind's wording (Node's EADDRINUSE) for its REST port.
    const chaindStart = (await readFile(logFile)).length;
    await appendFile(
      logFile,
      '{"msg":"cannot start the REST API: listen EADDRINUSE: address already in use 127.0.0.1:27104"}\n',
    );
    const rest = findPortCollision([node(exited(chaindStart))]);
    assert.deepEqual([rest?.kind, rest?.port], ["api", 27_104]);
  });
});

describe("resetFreshNodeData", () => {
  it("leaves a node's data/ as `chaind init` did: only a height-0 priv_validator_state.json", async () => {
    const home = await tempDir();
    const data = homePaths(home).dataDir;
    // What a first attempt killed while CometBFT created its databases leaves: a goleveldb directory without its
    // entry point (CURRENT), the app's store, a signing state past height 0.
    await mkdir(join(data, "blockstore.db"), { recursive: true });
    await writeFile(join(data, "blockstore.db", "000001.log"), "partial");
    await mkdir(join(data, "application.db"), { recursive: true });
    await writeFile(join(data, "application.db", "CURRENT"), "MANIFEST-000002\n");
    await writeFile(homePaths(home).privValidatorState, '{"height":"1","round":0,"step":3}');
    await resetFreshNodeData(home);
    assert.deepEqual(await readdir(data), ["priv_validator_state.json"]);
    assert.deepEqual(JSON.parse(await readFile(homePaths(home).privValidatorState, "utf8")), {
      height: "0",
      round: 0,
      step: 0,
    });
  });
});

const skipReal = await testnetSkipReason("testnet port collisions");

describe("a testnet whose ports another process took", { skip: skipReal }, () => {
  it("starts again on new ports, with the configs, the peers and the manifest rewritten", async () => {
    const dir = await tempDir();
    await stopTestnet(await startTestnet({ dir, validators: 2 }));
    const before = await manifestOf(dir);
    // node1's RPC (CometBFT's bind failed there in a busy CI run) and node0's p2p port, which node1's peers name.
    const takenRpc = before.nodes[1].ports.rpc;
    const takenP2p = before.nodes[0].ports.p2p;
    const blockers = [await occupy(takenRpc), await occupy(takenP2p)];
    const lines: string[] = [];
    try {
      const net = await startTestnet({ dir, log: (line) => lines.push(line) });
      try {
        assert.notEqual(net.nodes[1].ports.rpc, takenRpc);
        assert.notEqual(net.nodes[0].ports.p2p, takenP2p);
        assert.ok(
          lines.some((l) => /was taken by another process: picking new ports \(attempt 2 of 3\)/.test(l)),
          lines.join("\n"),
        );
        const after = await manifestOf(dir);
        assert.deepEqual(
          after.nodes.map((n) => n.ports),
          net.nodes.map((n) => n.ports),
        );
        const config1 = await readFile(homePaths(net.nodes[1].home).configToml, "utf8");
        assert.match(config1, new RegExp(`laddr = "tcp://127\\.0\\.0\\.1:${net.nodes[1].ports.rpc}"`));
        assert.match(
          config1,
          new RegExp(`persistent_peers = "${net.nodes[0].nodeId}@127\\.0\\.0\\.1:${net.nodes[0].ports.p2p}"`),
        );
        // startTestnet waited for a new block on both validators: with 2 of 2 needed, they found each other.
      } finally {
        await stopTestnet(net);
      }
    } finally {
      await release(blockers);
    }
  });

  it("with --base-port fails at once, naming the node and the port, and keeps the manifest", async () => {
    const dir = await tempDir();
    await stopTestnet(await startTestnet({ dir, validators: 1 }));
    const before = await manifestOf(dir);
    const taken = before.nodes[0].ports.rpc;
    const blockers = [await occupy(taken)];
    try {
      await assert.rejects(startTestnet({ dir, basePort: 27_000 }), (error: unknown) => {
        assert.ok(error instanceof PortInUseError, String(error));
        assert.match(
          error.message,
          new RegExp(`^node0's rpc port ${taken} on 127\\.0\\.0\\.1 was in use: .*address already in use`),
        );
        return true;
      });
      assert.deepEqual(await manifestOf(dir), before);
    } finally {
      await release(blockers);
    }
  });
});
