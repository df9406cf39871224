// A real `chaind start` for the benchmarks that measure the node from outside (end-to-end sends, memory
// under load, garbage floods): a dev home with extra funded bench accounts, 1 s blocks, every listener on
// a loopback port picked at run time, started through the node's test helpers (never a hard-coded entry).
import { readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { type Agent, request } from "node:http";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { homePaths, loadGenesis, saveGenesis, setTomlValues } from "../src/config/index.ts";
import { MsgSendSchema } from "../src/gen/chain/bank/v1beta1/tx_pb.js";
import { prepareDevHome } from "../src/node/dev-chain.ts";
import { addGenesisAccount } from "../src/node/genesis-accounts.ts";
import { packAny, signTx, type TestKey, testKey } from "../src/testing/app.ts";
import {
  bannerEndpoints,
  type ChaindProcess,
  LOOPBACK_PORT_FLAGS,
  pollUntil,
  spawnChaind,
  tempDir,
} from "../test/support/node/chaind.ts";

/** A running bench node. */
export interface BenchNode {
  home: string;
  chainId: string;
  rpc: string;
  rest: string;
  grpc: string;
  /** With `metrics: true`: the consensus and the application metrics URLs. */
  metrics?: { consensus: string; app: string };
  process: ChaindProcess;
  /** Resident set size of the node process now, in bytes (from /proc). */
  rss(): number;
  /** CPU seconds the node process has used so far (all its threads). */
  cpuSeconds(): number;
  /** SIGTERM, wait for the exit, remove the temp dir. */
  stop(): Promise<void>;
}

/** `count` bench sender keys (deterministic seeds, so runs are comparable). */
export function benchKeys(count: number, prefix = "bench-e2e"): TestKey[] {
  return Array.from({ length: count }, (_, i) => testKey(`${prefix}-${i}`));
}

/** Starts a node whose genesis funds `accounts`, with `timeout_commit` (default 1 s blocks). */
export async function startBenchNode(options: {
  accounts: TestKey[];
  timeoutCommit?: string;
  /** Turn on config.toml [instrumentation] (on a port picked at run time) and app.toml [telemetry]. */
  metrics?: boolean;
  /** Vote extensions (upgrade readiness) as `chaind dev` sets them, on from height 1 (default), or off. */
  voteExtensions?: boolean;
}): Promise<BenchNode> {
  const dir = await tempDir("chaind-bench-node-");
  try {
    const dev = await prepareDevHome({ home: join(dir.path, "home") });
    const paths = homePaths(dev.home);
    const genesis = await loadGenesis(paths.genesis);
    let appState = genesis.appState ?? {};
    for (const key of options.accounts) {
      appState = addGenesisAccount(appState, { address: key.bech32, coins: [{ denom: "stake", amount: 10n ** 15n }] });
    }
    const consensusParams =
      options.voteExtensions === false
        ? { ...genesis.consensusParams, abci: { voteExtensionsEnableHeight: 0n } }
        : genesis.consensusParams;
    await saveGenesis(paths.genesis, { ...genesis, appState, consensusParams });
    await writeFile(
      paths.configToml,
      setTomlValues(await readFile(paths.configToml, "utf8"), {
        "consensus.timeout_commit": options.timeoutCommit ?? "1s",
        ...(options.metrics === true
          ? { "instrumentation.prometheus": true, "instrumentation.prometheus_listen_addr": "127.0.0.1:0" }
          : {}),
      }),
    );
    if (options.metrics === true) {
      await writeFile(
        paths.appToml,
        setTomlValues(await readFile(paths.appToml, "utf8"), { "telemetry.enabled": true }),
      );
    }
    // CHAIND_BENCH_CPU_PROF=<dir> writes a V8 CPU profile of the node there when it exits (for `node --cpu-prof`
    // analysis of where the node's time goes under the bench's load); CHAIND_BENCH_NODE_OPTIONS adds any other
    // Node options to the node (e.g. --trace-gc) and CHAIND_BENCH_NODE_LOG=<file> keeps its output.
    const profileDir = process.env.CHAIND_BENCH_CPU_PROF;
    const nodeOptions = [
      profileDir === undefined ? "" : `--cpu-prof --cpu-prof-dir=${profileDir}`,
      process.env.CHAIND_BENCH_NODE_OPTIONS ?? "",
    ]
      .join(" ")
      .trim();
    const env = nodeOptions === "" ? undefined : { NODE_OPTIONS: nodeOptions };
    const child = spawnChaind(["--home", dev.home, "start", ...LOOPBACK_PORT_FLAGS], { userHome: dir.path, env });
    const endpoints = await bannerEndpoints(child);
    const rpc = endpoints.rpc;
    await pollUntil(async () => ((await latestHeight(rpc)) >= 1n ? true : undefined), {
      what: "the bench node's first block",
      timeoutMs: 120_000,
    });
    return {
      home: dev.home,
      chainId: dev.chainId,
      rpc,
      rest: endpoints.rest as string,
      grpc: (endpoints.grpc as string).replace(/^\w+:\/\//, ""),
      metrics:
        endpoints.metrics !== undefined && endpoints.appMetrics !== undefined
          ? { consensus: endpoints.metrics, app: endpoints.appMetrics }
          : undefined,
      process: child,
      rss: () => rssOf(child.child.pid as number),
      cpuSeconds: () => cpuSecondsOf(child.child.pid as number),
      async stop() {
        child.signal("SIGTERM");
        await child.exited;
        const log = process.env.CHAIND_BENCH_NODE_LOG;
        if (log !== undefined) await writeFile(log, child.stdout + child.stderr);
        await dir.remove();
      },
    };
  } catch (err) {
    await dir.remove();
    throw err;
  }
}

/** Resident set size of process `pid` in bytes (VmRSS of /proc/<pid>/status). */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb) * 1024;
}

/**
 * CPU seconds process `pid` has used so far, all threads (utime + stime of /proc/<pid>/stat): the
 * work a figure cost, which unlike its wall time hardly depends on what else the machine runs.
 */
export function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15 (1-based).
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100; // clock ticks: 100 per second on Linux
}

/** The node's latest block height (consensus RPC /status). */
export async function latestHeight(rpc: string): Promise<bigint> {
  const status = (await (await fetch(`${rpc}/status`)).json()) as {
    result: { sync_info: { latest_block_height: string } };
  };
  return BigInt(status.result.sync_info.latest_block_height);
}

/** Account numbers of `addresses` through the REST gateway. */
export async function accountNumbers(rest: string, addresses: string[]): Promise<bigint[]> {
  const out: bigint[] = [];
  for (const address of addresses) {
    const res = await fetch(`${rest}/chain/auth/v1beta1/accounts/${address}`);
    const body = (await res.json()) as { account?: { account_number?: string } };
    if (body.account?.account_number === undefined) throw new Error(`no account ${address}: ${JSON.stringify(body)}`);
    out.push(BigInt(body.account.account_number));
  }
  return out;
}

/** `count` signed bank sends of one sender, sequences `from`..`from+count-1`. */
export function signedSends(
  key: TestKey,
  options: { chainId: string; accountNumber: bigint; from: bigint; count: number; to: string },
): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < options.count; i++) {
    out.push(
      signTx({
        key,
        chainId: options.chainId,
        accountNumber: options.accountNumber,
        sequence: options.from + BigInt(i),
        fee: [{ denom: "stake", amount: 200n }],
        messages: [
          packAny(
            MsgSendSchema,
            create(MsgSendSchema, {
              fromAddress: key.bech32,
              toAddress: options.to,
              amount: [{ denom: "stake", amount: "1" }],
            }),
          ),
        ],
      }),
    );
  }
  return out;
}

/** A JSON-RPC answer of the consensus RPC. */
export interface RpcAnswer<T = { code: number; codespace: string; log: string; hash: string }> {
  result?: T;
  error?: { code: number; message: string; data?: string };
}

/** One JSON-RPC POST over `agent` (a keep-alive agent per sender keeps one connection each). */
export function rpcPost<T>(
  url: URL,
  agent: Agent,
  method: string,
  params: Record<string, unknown>,
): Promise<RpcAnswer<T>> {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")) as RpcAnswer<T>);
          } catch (err) {
            reject(err);
          }
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
