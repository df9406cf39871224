// The gRPC port closes connections that never send the HTTP/2 preface, and leaves real HTTP/2 clients
// alone however long they stay idle (real grpc-js server, real sockets on loopback).
import assert from "node:assert/strict";
import { connect as http2Connect } from "node:http2";
import { connect, type Socket } from "node:net";
import { after, before, describe, test } from "node:test";
import { Server } from "@grpc/grpc-js";
import { bindGrpcServer, stopGrpcServer } from "./grpc-server.ts";

const TIMEOUT_MS = 300;

function closed(socket: Socket): Promise<void> {
  return new Promise((resolve, reject) => {
    const deadline = setTimeout(() => reject(new Error("the silent connection was never closed")), 60_000);
    socket.once("close", () => {
      clearTimeout(deadline);
      resolve();
    });
  });
}

function opened(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => resolve(socket));
    socket.once("error", reject);
    socket.resume(); // reads, so that the server's close is seen
  });
}

describe("gRPC preface timeout", () => {
  const server = new Server();
  let port: number;
  before(async () => {
    port = await bindGrpcServer(server, "127.0.0.1", 0, TIMEOUT_MS);
  });
  after(() => stopGrpcServer(server, 100));

  test("a connection that sends nothing, or only part of the preface, is closed", async () => {
    const silent = await opened(port);
    const partial = await opened(port);
    partial.write("PRI * HTTP/2.0\r\n"); // 16 of the preface's 24 bytes
    await Promise.all([closed(silent), closed(partial)]);
  });

  test("an HTTP/2 client that sent the preface keeps its idle connection past the timeout", async () => {
    const session = http2Connect(`http://127.0.0.1:${port}`);
    try {
      await new Promise<void>((resolve, reject) => {
        session.once("connect", () => resolve());
        session.once("error", reject);
      });
      // A silent connection opened after the client's: once it is closed, the client's connection is older
      // than the timeout too.
      await closed(await opened(port));
      assert.equal(session.closed || session.destroyed, false, "the client's session is still open");
      // And it still carries calls: an unknown method is answered UNIMPLEMENTED (12) over the same session.
      const status = await new Promise<string | undefined>((resolve, reject) => {
        const stream = session.request({ ":method": "POST", ":path": "/x.Y/Z", "content-type": "application/grpc" });
        let grpcStatus: string | undefined;
        stream.on("response", (headers) => {
          grpcStatus ??= headers["grpc-status"] as string | undefined;
        });
        stream.on("trailers", (trailers) => {
          grpcStatus ??= trailers["grpc-status"] as string | undefined;
        });
        stream.on("close", () => resolve(grpcStatus));
        stream.on("error", reject);
        stream.resume();
        stream.end();
      });
      assert.equal(status, "12");
    } finally {
      session.destroy();
    }
  });
});
