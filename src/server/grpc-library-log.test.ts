// A gRPC port in use is one error, not that error plus the library's own line on stderr.
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { test } from "node:test";
import pino from "pino";
import { bindGrpcServer, buildGrpcServer, stopGrpcServer } from "./grpc-server.ts";

test("binding a port in use rejects with the port named, and @grpc/grpc-js writes nothing to stderr", async (t) => {
  const squatter = createServer();
  await new Promise<void>((resolve) => squatter.listen(0, "127.0.0.1", resolve));
  const address = squatter.address();
  assert.ok(address !== null && typeof address === "object");
  const written: string[] = [];
  t.mock.method(console, "error", (...args: unknown[]) => written.push(args.join(" ")));
  const { server } = buildGrpcServer({
    backend: {} as never,
    routes: [],
    maxRecvMsgSize: 1 << 20,
    maxSendMsgSize: 1 << 20,
    logger: pino({ level: "silent" }),
  });
  try {
    await assert.rejects(bindGrpcServer(server, "127.0.0.1", address.port), {
      message: new RegExp(`cannot listen for gRPC on 127\\.0\\.0\\.1:${address.port}: .*EADDRINUSE`),
    });
    assert.deepEqual(written, []);
  } finally {
    await stopGrpcServer(server, 100);
    await new Promise((resolve) => squatter.close(resolve));
  }
});
