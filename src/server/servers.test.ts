// Both servers on real loopback sockets (ports picked at run time): gRPC with a real @grpc/grpc-js
// client (height metadata in and out, error codes, message limits), server reflection v1 and
// v1alpha, grpcurl when installed, and the REST listener's connection limit and read timeout.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { connect, type Socket } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { create, type DescMessage, fromBinary, type Message, type MessageShape, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { Client, credentials, Metadata, type ServiceError, status } from "@grpc/grpc-js";
import { openQueriedChain } from "../../test/support/server/gateway.ts";
import { parseAppConfig } from "../config/app-config.ts";
import { QueryAllBalancesRequestSchema, QueryAllBalancesResponseSchema } from "../gen/chain/bank/v1beta1/query_pb.js";
import {
  QueryCurrentPlanRequestSchema,
  QueryCurrentPlanResponseSchema,
  QueryModuleVersionsRequestSchema,
  QueryModuleVersionsResponseSchema,
} from "../gen/chain/upgrade/v1beta1/query_pb.js";
import {
  ServerReflectionRequestSchema,
  type ServerReflectionResponse,
  ServerReflectionResponseSchema,
} from "../gen/grpc/reflection/v1/reflection_pb.js";
import type { ChainFixture } from "../testing/chain-fixture.ts";
import { type RunningServers, startServers } from "./servers.ts";

const TOML = `
[api]
address = "tcp://127.0.0.1:0"
max-open-connections = 1
rpc-read-timeout = 1
[grpc]
address = "127.0.0.1:0"
max-recv-msg-size = "4096"
`;

let chain: ChainFixture;
let servers: RunningServers;
let client: Client;

before(async () => {
  chain = await openQueriedChain();
  servers = await startServers({ backend: chain.backend, hooks: chain.hooks, config: parseAppConfig(TOML) });
  client = new Client(servers.grpc!.address, credentials.createInsecure());
});

after(async () => {
  client.close();
  await servers.stop();
  await chain.close();
});

interface UnaryResult<T> {
  response?: T;
  error?: ServiceError;
  headers: Metadata;
}

function unary<I extends DescMessage, O extends DescMessage>(
  path: string,
  input: I,
  output: O,
  request: MessageShape<I> | Uint8Array,
  height?: string | string[],
): Promise<UnaryResult<MessageShape<O>>> {
  const metadata = new Metadata();
  for (const value of height === undefined ? [] : [height].flat()) metadata.add("x-chain-block-height", value);
  return new Promise((resolve) => {
    let headers = new Metadata();
    const call = client.makeUnaryRequest(
      path,
      (value: MessageShape<I> | Uint8Array) =>
        Buffer.from(value instanceof Uint8Array ? value : toBinary(input, value as MessageShape<I>)),
      (bytes: Buffer) => fromBinary(output, bytes),
      request,
      metadata,
      (error, response) => resolve({ error: error ?? undefined, response: response as MessageShape<O>, headers }),
    );
    call.on("metadata", (received) => {
      headers = received;
    });
  });
}

describe("gRPC", () => {
  test("a query answers with the height it used in the response metadata", async () => {
    const latest = await unary(
      "/chain.upgrade.v1beta1.Query/CurrentPlan",
      QueryCurrentPlanRequestSchema,
      QueryCurrentPlanResponseSchema,
      create(QueryCurrentPlanRequestSchema),
    );
    assert.equal(latest.error, undefined);
    assert.equal(latest.response?.plan?.name, "v2");
    assert.deepEqual(latest.headers.get("x-chain-block-height"), ["3"]);
    const old = await unary(
      "/chain.upgrade.v1beta1.Query/CurrentPlan",
      QueryCurrentPlanRequestSchema,
      QueryCurrentPlanResponseSchema,
      create(QueryCurrentPlanRequestSchema),
      "1",
    );
    assert.equal(old.response?.plan, undefined);
    assert.deepEqual(old.headers.get("x-chain-block-height"), ["1"]);
    const balance = await unary(
      "/chain.bank.v1beta1.Query/AllBalances",
      QueryAllBalancesRequestSchema,
      QueryAllBalancesResponseSchema,
      create(QueryAllBalancesRequestSchema, { address: chain.alice.bech32 }),
      "1",
    );
    assert.equal(balance.response?.balances[0].amount, "1000000");
  });

  test("bad heights are INVALID_ARGUMENT; registered errors keep their code; bad bytes are INVALID_ARGUMENT", async () => {
    const plan = (height: string | string[]) =>
      unary(
        "/chain.upgrade.v1beta1.Query/CurrentPlan",
        QueryCurrentPlanRequestSchema,
        QueryCurrentPlanResponseSchema,
        create(QueryCurrentPlanRequestSchema),
        height,
      );
    const future = await plan("4");
    assert.equal(future.error?.code, status.INVALID_ARGUMENT);
    assert.equal(
      future.error?.details,
      "cannot query with height in the future; please provide a valid height (latest height: 3)",
    );
    for (const height of ["-1", "abc", "9223372036854775808"]) {
      assert.equal((await plan(height)).error?.code, status.INVALID_ARGUMENT, height);
    }
    // A key sent twice reaches the server joined ("1, 1"); as over REST, equal values are one height.
    const twice = await plan(["1", "1"]);
    assert.equal(twice.error, undefined);
    assert.deepEqual(twice.headers.get("x-chain-block-height"), ["1"]);
    const different = await plan(["1", "2"]);
    assert.equal(different.error?.code, status.INVALID_ARGUMENT);
    assert.equal(
      different.error?.details,
      "x-chain-block-height was given more than once with different values (1, 2)",
    );
    const unknownModule = await unary(
      "/chain.upgrade.v1beta1.Query/ModuleVersions",
      QueryModuleVersionsRequestSchema,
      QueryModuleVersionsResponseSchema,
      create(QueryModuleVersionsRequestSchema, { moduleName: "nope" }),
    );
    assert.equal(unknownModule.error?.code, status.NOT_FOUND);
    assert.match(unknownModule.error?.details ?? "", /module nope not found/);
    // A handler's error still says which height it ran at; a height that cannot be used has none to say.
    assert.deepEqual(unknownModule.headers.get("x-chain-block-height"), ["3"]);
    assert.deepEqual(future.headers.get("x-chain-block-height"), []);
    const garbage = await unary(
      "/chain.bank.v1beta1.Query/AllBalances",
      QueryAllBalancesRequestSchema,
      QueryAllBalancesResponseSchema,
      new Uint8Array([0xff, 0xff, 0xff]),
    );
    assert.equal(garbage.error?.code, status.INVALID_ARGUMENT);
    assert.match(garbage.error?.details ?? "", /cannot decode chain.bank.v1beta1.QueryAllBalancesRequest/);
    const missing = await unary(
      "/chain.nope.Query/Nothing",
      QueryCurrentPlanRequestSchema,
      QueryCurrentPlanResponseSchema,
      create(QueryCurrentPlanRequestSchema),
    );
    assert.equal(missing.error?.code, status.UNIMPLEMENTED);
  });

  test("a request above grpc.max-recv-msg-size is RESOURCE_EXHAUSTED", async () => {
    const big = create(QueryAllBalancesRequestSchema, { address: "x".repeat(5000) });
    const result = await unary(
      "/chain.bank.v1beta1.Query/AllBalances",
      QueryAllBalancesRequestSchema,
      QueryAllBalancesResponseSchema,
      big,
    );
    assert.equal(result.error?.code, status.RESOURCE_EXHAUSTED);
  });
});

function reflect(service: string, requests: Message[]): Promise<ServerReflectionResponse[]> {
  return new Promise((resolve, reject) => {
    const stream = client.makeBidiStreamRequest(
      `/${service}/ServerReflectionInfo`,
      (value: Message) => Buffer.from(toBinary(ServerReflectionRequestSchema, value as never)),
      (bytes: Buffer) => fromBinary(ServerReflectionResponseSchema, bytes),
    );
    const answers: ServerReflectionResponse[] = [];
    stream.on("data", (answer: ServerReflectionResponse) => answers.push(answer));
    stream.on("end", () => resolve(answers));
    stream.on("error", reject);
    for (const request of requests) stream.write(request);
    stream.end();
  });
}

describe("server reflection", () => {
  for (const service of ["grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"]) {
    test(`${service}: services, files by symbol with dependencies, errors in band`, async () => {
      const [list, file, again, unknown] = await reflect(service, [
        create(ServerReflectionRequestSchema, { messageRequest: { case: "listServices", value: "" } }),
        create(ServerReflectionRequestSchema, {
          messageRequest: { case: "fileContainingSymbol", value: "chain.bank.v1beta1.Query.AllBalances" },
        }),
        create(ServerReflectionRequestSchema, {
          messageRequest: { case: "fileByFilename", value: "chain/bank/v1beta1/query.proto" },
        }),
        create(ServerReflectionRequestSchema, {
          messageRequest: { case: "fileContainingSymbol", value: "chain.nope.Thing" },
        }),
      ]);
      assert.equal(list.messageResponse.case, "listServicesResponse");
      const names =
        list.messageResponse.case === "listServicesResponse"
          ? list.messageResponse.value.service.map((s) => s.name)
          : [];
      for (const name of [
        "chain.bank.v1beta1.Query",
        "chain.upgrade.v1beta1.Query",
        "chain.tx.v1beta1.Service",
        "chain.base.tendermint.v1beta1.Service",
        "chain.base.node.v1beta1.Service",
        "grpc.reflection.v1.ServerReflection",
        "grpc.reflection.v1alpha.ServerReflection",
      ]) {
        assert.ok(names.includes(name), name);
      }
      assert.deepEqual(names, [...names].sort());
      assert.equal(file.messageResponse.case, "fileDescriptorResponse");
      const files =
        file.messageResponse.case === "fileDescriptorResponse"
          ? file.messageResponse.value.fileDescriptorProto.map((bytes) => fromBinary(FileDescriptorProtoSchema, bytes))
          : [];
      assert.equal(files[0].name, "chain/bank/v1beta1/query.proto");
      const sentNames = new Set(files.map((f) => f.name));
      for (const f of files)
        for (const dependency of f.dependency) assert.ok(sentNames.has(dependency), `${f.name} needs ${dependency}`);
      // Already sent on this stream: only the file itself comes again.
      assert.equal(
        again.messageResponse.case === "fileDescriptorResponse" &&
          again.messageResponse.value.fileDescriptorProto.length,
        1,
      );
      assert.equal(unknown.messageResponse.case, "errorResponse");
      assert.equal(unknown.messageResponse.case === "errorResponse" && unknown.messageResponse.value.errorCode, 5);
    });
  }

  test("the app's Any types (Msgs inside proposals and txs) are found by symbol, as on a Cosmos SDK node", async () => {
    const [msg] = await reflect("grpc.reflection.v1.ServerReflection", [
      create(ServerReflectionRequestSchema, {
        messageRequest: { case: "fileContainingSymbol", value: "chain.upgrade.v1beta1.MsgSoftwareUpgrade" },
      }),
    ]);
    assert.equal(msg.messageResponse.case, "fileDescriptorResponse");
    const files =
      msg.messageResponse.case === "fileDescriptorResponse"
        ? msg.messageResponse.value.fileDescriptorProto.map((bytes) => fromBinary(FileDescriptorProtoSchema, bytes))
        : [];
    assert.equal(files[0]?.name, "chain/upgrade/v1beta1/tx.proto");
  });
});

describe("grpcurl", () => {
  const grpcurl = [join(homedir(), "go", "bin", "grpcurl"), "/usr/local/bin/grpcurl", "/usr/bin/grpcurl"].find((path) =>
    existsSync(path),
  );
  test("lists the services and calls CurrentPlan and AllBalances with the height header", {
    skip:
      grpcurl === undefined &&
      "grpcurl is not installed (CI installs it with go install github.com/fullstorydev/grpcurl/cmd/grpcurl@latest)",
  }, async () => {
    const run = promisify(execFile);
    const target = servers.grpc!.address;
    const list = await run(grpcurl!, ["-plaintext", target, "list"]);
    for (const name of [
      "chain.upgrade.v1beta1.Query",
      "chain.bank.v1beta1.Query",
      "grpc.reflection.v1.ServerReflection",
    ]) {
      assert.match(list.stdout, new RegExp(name.replaceAll(".", "\\.")));
    }
    const plan = await run(grpcurl!, [
      "-plaintext",
      "-v",
      "-H",
      "x-chain-block-height: 2",
      target,
      "chain.upgrade.v1beta1.Query/CurrentPlan",
    ]);
    assert.match(plan.stdout, /x-chain-block-height: 2/);
    assert.match(plan.stdout, /"name": "v2"/);
    const balances = await run(grpcurl!, [
      "-plaintext",
      "-v",
      "-H",
      "x-chain-block-height:1",
      "-d",
      JSON.stringify({ address: chain.alice.bech32 }),
      target,
      "chain.bank.v1beta1.Query/AllBalances",
    ]);
    assert.match(balances.stdout, /x-chain-block-height: 1/);
    assert.match(balances.stdout, /"amount": "1000000"/);
    // An Any's type is resolved through reflection: without it grpcurl prints "@error … is not recognized".
    const msg = await run(grpcurl!, ["-plaintext", target, "describe", "chain.upgrade.v1beta1.MsgSoftwareUpgrade"]);
    assert.match(msg.stdout, /message MsgSoftwareUpgrade/);
  });
});

describe("REST listener", () => {
  test("serves over a real socket with the height header", async () => {
    const response = await httpGet("/chain/upgrade/v1beta1/current_plan", {
      "x-chain-block-height": "1",
      "content-type": "application/json",
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers["x-chain-block-height"], "1");
    assert.equal(response.body, '{"plan":null}');
  });

  test("max-open-connections: a second connection waits until the first closes", async () => {
    const address = servers.rest!.address as { host: string; port: number };
    await waitFor(() => openCount() === 0);
    const first = await openSocket(address.port);
    await waitFor(() => openCount() === 1);
    const second = httpGet("/chain/upgrade/v1beta1/authority");
    await waitFor(() => waitingCount() === 1);
    first.destroy();
    const response = await second;
    assert.equal(response.status, 200);
    assert.equal(waitingCount(), 0);
  });

  test("rpc-read-timeout: a request that never finishes its headers loses its connection", async () => {
    const address = servers.rest!.address as { host: string; port: number };
    await waitFor(() => openCount() === 0);
    const socket = await openSocket(address.port);
    socket.write("GET /chain/upgrade/v1beta1/authority HTTP/1.1\r\nHost: x\r\n");
    const answer = await new Promise<string>((resolve) => {
      let text = "";
      socket.on("data", (chunk) => {
        text += chunk.toString();
      });
      socket.on("close", () => resolve(text));
    });
    assert.match(answer, /^$|408/);
  });
});

// One request on its own connection, closed after the answer (no keep-alive pool holding a slot).
function httpGet(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${servers.rest!.url}${path}`,
      { agent: false, headers: { connection: "close", ...headers } },
      (response) => {
        let body = "";
        response.on("data", (chunk) => {
          body += chunk.toString();
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
      },
    );
    request.on("error", reject);
    request.end();
  });
}

function openCount(): number {
  return servers.rest!.gate.openConnections;
}

function waitingCount(): number {
  return servers.rest!.gate.waitingConnections;
}

function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => resolve(socket));
    socket.on("error", reject);
  });
}

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(condition(), "condition not reached");
}

describe("limits on a second node", () => {
  test("rpc-write-timeout cuts a response that takes too long; grpc.max-send-msg-size refuses a large answer", async () => {
    const hanging = await startServers({
      backend: chain.backend,
      hooks: { ...chain.hooks, syncing: () => new Promise<boolean>(() => undefined) },
      config: parseAppConfig(
        '[api]\naddress = "tcp://127.0.0.1:0"\nrpc-write-timeout = 1\n[grpc]\naddress = "127.0.0.1:0"\nmax-send-msg-size = "10"\n',
      ),
    });
    const small = new Client(hanging.grpc!.address, credentials.createInsecure());
    try {
      const error = await new Promise<Error>((resolve, reject) => {
        const request = httpRequest(
          `${hanging.rest!.url}/chain/base/tendermint/v1beta1/syncing`,
          { agent: false },
          () => reject(new Error("an answer arrived")),
        );
        request.on("error", resolve);
        request.end();
      });
      assert.match(error.message, /socket hang up|ECONNRESET/);
      const tooLarge = await new Promise<ServiceError | null>((resolve) => {
        small.makeUnaryRequest(
          "/chain.upgrade.v1beta1.Query/CurrentPlan",
          () => Buffer.alloc(0),
          (bytes: Buffer) => bytes,
          {},
          (err) => resolve(err),
        );
      });
      assert.equal(tooLarge?.code, status.RESOURCE_EXHAUSTED);
    } finally {
      small.close();
      await hanging.stop();
    }
  });
});
