// Query throughput of the REST gateway and the gRPC server (docs/CONTRACT.md §11), each against a bare server
// on the same library answering the same bytes, measured in this run on loopback:
// - REST current_plan and balances vs a bare node:http server (load: autocannon, a separate process);
// - gRPC CurrentPlan vs a bare @grpc/grpc-js server (load: this file re-run as a child process that
//   keeps a fixed number of unary calls in flight).
// Runs are short and bounded; the ratio is what matters, not the absolute numbers.
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { create, toBinary } from "@bufbuild/protobuf";
import { Client, credentials, Server, ServerCredentials } from "@grpc/grpc-js";
import { parseAppConfig } from "../src/config/app-config.ts";
import { QueryCurrentPlanRequestSchema } from "../src/gen/chain/upgrade/v1beta1/query_pb.js";
import { startServers } from "../src/server/servers.ts";
import { openChainFixture, schedule } from "../src/testing/chain-fixture.ts";
import type { BenchRow } from "./harness.ts";

const SECONDS = 2;
const WARMUP_SECONDS = 2;
const ROUNDS = 3;
const CONNECTIONS = 16;
const IN_FLIGHT = 32;
const CURRENT_PLAN = "/chain.upgrade.v1beta1.Query/CurrentPlan";
/** What autocannon sends to the gateway and to the bare server alike. */
const REQUEST_HEADERS = { "content-type": "application/json" };
const self = fileURLToPath(import.meta.url);
const node = process.execPath;

/**
 * Throughput of `measure(target)` for the subject and the baseline: both warmed up first (a fresh
 * server spends its first seconds compiling), then measured in alternating rounds so that a
 * neighbour's load on this shared machine hits both alike; the median of each is reported.
 */
async function compare(measure: (target: "subject" | "baseline", seconds: number) => Promise<number>) {
  await measure("baseline", WARMUP_SECONDS);
  await measure("subject", WARMUP_SECONDS);
  const subject: number[] = [];
  const baseline: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    baseline.push(await measure("baseline", SECONDS));
    subject.push(await measure("subject", SECONDS));
  }
  return { value: median(subject), baseline: median(baseline) };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function autocannonRun(url: string, headers: Record<string, string>, seconds: number): Promise<number> {
  const autocannon = fileURLToPath(new URL("../node_modules/autocannon/autocannon.js", import.meta.url));
  const args = [autocannon, "-c", String(CONNECTIONS), "-d", String(seconds), "-j"];
  for (const [name, value] of Object.entries(headers)) args.push("-H", `${name}=${value}`);
  const { stdout } = await promisify(execFile)(node, [...args, url], { maxBuffer: 16 << 20 });
  const result = JSON.parse(stdout) as { requests: { average: number }; non2xx: number; errors: number };
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx answers and ${result.errors} errors under load`);
  }
  return result.requests.average;
}

/** Calls per second a child process gets from `path` on `address`. */
async function grpcThroughput(address: string, path: string, request: Uint8Array, seconds: number): Promise<number> {
  const args = [self, "--grpc-load", address, path, Buffer.from(request).toString("base64"), String(seconds)];
  const child = spawn(node, args, {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (chunk) => {
    out += chunk.toString();
  });
  const [code] = await once(child, "exit");
  if (code !== 0) throw new Error(`the gRPC load process exited with ${code}`);
  return (JSON.parse(out) as { perSecond: number }).perSecond;
}

// The child side: keep IN_FLIGHT unary calls running for `seconds`, print calls per second.
async function grpcLoad(address: string, path: string, requestBase64: string, seconds: number): Promise<void> {
  const client = new Client(address, credentials.createInsecure());
  const request = Buffer.from(requestBase64, "base64");
  const call = () =>
    new Promise<void>((resolve, reject) =>
      client.makeUnaryRequest(
        path,
        (b: Buffer) => b,
        (b: Buffer) => b,
        request,
        (err) => (err ? reject(err) : resolve()),
      ),
    );
  for (let i = 0; i < 100; i++) await call(); // connect and settle
  let count = 0;
  const end = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      await call();
      count++;
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const elapsed = (performance.now() - start) / 1000;
  client.close();
  process.stdout.write(JSON.stringify({ perSecond: count / elapsed }));
}

/** A node:http server answering every request with `body` and the gateway's headers. */
async function bareHttp(body: string, height: string): Promise<{ url: string; close: () => void }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, {
      "content-type": "application/json; charset=utf-8",
      "x-chain-block-height": height,
      "grpc-metadata-x-chain-block-height": height,
      "content-length": Buffer.byteLength(body),
    });
    response.end(body);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => server.close() };
}

/** A grpc-js server answering `path` with `response` bytes. */
async function bareGrpc(path: string, response: Buffer): Promise<{ address: string; close: () => void }> {
  const server = new Server();
  server.addService(
    {
      call: {
        path,
        requestStream: false,
        responseStream: false,
        requestSerialize: (b: Buffer) => b,
        requestDeserialize: (b: Buffer) => b,
        responseSerialize: (b: Buffer) => b,
        responseDeserialize: (b: Buffer) => b,
      },
    },
    { call: (_call: unknown, callback: (err: null, value: Buffer) => void) => callback(null, response) },
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (err, bound) =>
      err ? reject(err) : resolve(bound),
    ),
  );
  return { address: `127.0.0.1:${port}`, close: () => server.forceShutdown() };
}

/** The benchmark rows. */
export async function run(): Promise<BenchRow[]> {
  const chain = await openChainFixture();
  chain.at(1n, schedule("v2", 1000n));
  await chain.nextBlock();
  await chain.nextBlock([chain.send(chain.bob, "100")]);
  const servers = await startServers({
    backend: chain.backend,
    hooks: chain.hooks,
    config: parseAppConfig(
      '[api]\naddress = "tcp://127.0.0.1:0"\nmax-open-connections = 0\n[grpc]\naddress = "127.0.0.1:0"\n',
    ),
  });
  const rows: BenchRow[] = [];
  try {
    const rest = servers.rest!.url;
    for (const [name, path] of [
      ["current_plan", "/chain/upgrade/v1beta1/current_plan"],
      ["balances", `/chain/bank/v1beta1/balances/${chain.alice.bech32}`],
    ] as const) {
      const sample = await fetch(`${rest}${path}`);
      const body = await sample.text();
      const bare = await bareHttp(body, sample.headers.get("x-chain-block-height") ?? "0");
      try {
        // Both get the same request (headers included): the bare server must parse what ours parses.
        const { value, baseline } = await compare((target, seconds) =>
          autocannonRun(`${target === "subject" ? rest : bare.url}${path}`, REQUEST_HEADERS, seconds),
        );
        rows.push({
          name: `REST ${name} throughput`,
          value,
          baseline,
          unit: "req/s",
          target: ">= 0.5x bare node:http",
          met: value >= 0.5 * baseline,
        });
      } finally {
        bare.close();
      }
    }

    const request = toBinary(QueryCurrentPlanRequestSchema, create(QueryCurrentPlanRequestSchema));
    const sampleResponse = await new Promise<Buffer>((resolve, reject) => {
      const client = new Client(servers.grpc!.address, credentials.createInsecure());
      client.makeUnaryRequest(
        CURRENT_PLAN,
        (b: Buffer) => b,
        (b: Buffer) => b,
        Buffer.from(request),
        (err, value) => {
          client.close();
          if (err || value === undefined) reject(err ?? new Error("no response"));
          else resolve(value);
        },
      );
    });
    const bare = await bareGrpc(CURRENT_PLAN, sampleResponse);
    try {
      const { value, baseline } = await compare((target, seconds) =>
        grpcThroughput(target === "subject" ? servers.grpc!.address : bare.address, CURRENT_PLAN, request, seconds),
      );
      rows.push({
        name: "gRPC CurrentPlan unary throughput",
        value,
        baseline,
        unit: "calls/s",
        target: ">= 0.5x bare @grpc/grpc-js",
        met: value >= 0.5 * baseline,
      });
    } finally {
      bare.close();
    }
  } finally {
    await servers.stop();
    await chain.close();
  }
  return rows;
}

if (process.argv[1] === self && process.argv[2] === "--grpc-load") {
  await grpcLoad(process.argv[3], process.argv[4], process.argv[5], Number(process.argv[6]));
}
