import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import {
  bannerEndpoints,
  killAllChaind,
  LOOPBACK_PORT_FLAGS,
  runChaind,
  spawnChaind,
  tempDir,
} from "../../test/support/node/chaind.ts";
import { prepareDevHome } from "../node/dev-chain.ts";
import {
  NODE_MALLOC_ARENA_MAX,
  NODE_MALLOC_MMAP_THRESHOLD,
  nodeRelaunch,
  type RelaunchProcess,
} from "./node-relaunch.ts";

after(killAllChaind);

const plain: RelaunchProcess = {
  platform: "linux",
  execPath: "/opt/node/bin/node",
  argv0: "node",
  execArgv: ["--import=./log.mjs"],
  argv: ["/opt/node/bin/node", "/app/chain/cmd/chaind.ts", "--home", "/h", "start", "--abci"],
  env: { PATH: "/bin", NODE_OPTIONS: "--trace-gc" },
  sea: false,
};

test("start and dev relaunch with the same command line, MALLOC_ARENA_MAX and MALLOC_MMAP_THRESHOLD_", () => {
  for (const command of ["start", "dev"]) {
    assert.deepEqual(nodeRelaunch(command, plain), {
      file: "/opt/node/bin/node",
      args: ["node", "--import=./log.mjs", "/app/chain/cmd/chaind.ts", "--home", "/h", "start", "--abci"],
      env: {
        PATH: "/bin",
        NODE_OPTIONS: "--trace-gc",
        MALLOC_ARENA_MAX: NODE_MALLOC_ARENA_MAX,
        MALLOC_MMAP_THRESHOLD_: NODE_MALLOC_MMAP_THRESHOLD,
      },
    });
  }
});

test("a MALLOC_MMAP_THRESHOLD_ the user set is kept", () => {
  const env = { ...plain.env, MALLOC_MMAP_THRESHOLD_: "1048576" };
  assert.equal(nodeRelaunch("start", { ...plain, env })?.env.MALLOC_MMAP_THRESHOLD_, "1048576");
});

test("a single executable relaunches under its invoked name, without the launcher's argv[1]", () => {
  const sea: RelaunchProcess = {
    ...plain,
    execPath: "/usr/local/bin/chaind-v2-linux-amd64",
    argv0: "chaind",
    execArgv: [],
    argv: ["/usr/local/bin/chaind-v2-linux-amd64", "/cache/chaind/v2-abc/chaind.js", "start"],
    sea: true,
  };
  assert.deepEqual(nodeRelaunch("start", sea)?.args, ["chaind", "start"]);
  assert.equal(nodeRelaunch("start", sea)?.file, "/usr/local/bin/chaind-v2-linux-amd64");
});

test("no relaunch for other commands, other systems, or a MALLOC_ARENA_MAX already set", () => {
  for (const command of [undefined, "version", "query", "q", "keys", "status", "init", "tx"]) {
    assert.equal(nodeRelaunch(command, plain), undefined, String(command));
  }
  assert.equal(nodeRelaunch("start", { ...plain, platform: "darwin" }), undefined);
  assert.equal(nodeRelaunch("start", { ...plain, env: { MALLOC_ARENA_MAX: "8" } }), undefined);
});

/** The environment of process `pid` (Linux /proc). */
function environOf(pid: number): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of readFileSync(`/proc/${pid}/environ`, "utf8").split("\0")) {
    const eq = entry.indexOf("=");
    if (eq > 0) out.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return out;
}

test("a real `chaind start` runs as the same process with MALLOC_ARENA_MAX set, and stops cleanly", async (t) => {
  if (process.platform !== "linux") return t.skip("MALLOC_ARENA_MAX is glibc's");
  const dir = await tempDir("chaind-relaunch-");
  try {
    const dev = await prepareDevHome({ home: join(dir.path, "home") });
    for (const [preset, expected] of [
      [undefined, NODE_MALLOC_ARENA_MAX],
      ["4", "4"],
    ] as const) {
      const env: Record<string, string> = preset === undefined ? {} : { MALLOC_ARENA_MAX: preset };
      const node = spawnChaind(["--home", dev.home, "start", ...LOOPBACK_PORT_FLAGS], { userHome: dir.path, env });
      await bannerEndpoints(node);
      // The pid the caller started is the node itself (execve kept it), with the variable in its environment.
      const environ = environOf(node.child.pid as number);
      assert.equal(environ.get("MALLOC_ARENA_MAX"), expected);
      assert.equal(
        environ.get("MALLOC_MMAP_THRESHOLD_"),
        preset === undefined ? NODE_MALLOC_MMAP_THRESHOLD : undefined,
      );
      node.signal("SIGTERM");
      const result = await node.exited;
      assert.equal(result.code, 0, `signal ${result.signal}: ${result.stderr}`);
    }
    // Other commands are not relaunched: `version` answers with the caller's environment as it was.
    const version = await runChaind(["version"], { userHome: dir.path });
    assert.equal(version.code, 0, version.stderr);
  } finally {
    await dir.remove();
  }
});
