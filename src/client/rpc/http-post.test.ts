// postForText: the body on success; undefined (the caller falls back to fetch) on any failure or a non-http URL.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { postForText } from "./http-post.ts";

test("returns the answer's body to a POST, as sent", async () => {
  const server = createServer((req, res) => {
    let got = "";
    req.on("data", (chunk: Buffer) => (got += chunk.toString()));
    req.on("end", () => res.end(`${req.method} ${req.headers["content-type"]} ${got} é`));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    assert.equal(await postForText(`http://127.0.0.1:${port}`, '{"a":1}'), 'POST application/json {"a":1} é');
  } finally {
    server.close();
  }
});

test("a refused connection, a connection cut mid-answer and https leave the request to fetch", async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const { port: closedPort } = closed.address() as AddressInfo;
  await new Promise((resolve) => closed.close(resolve));
  assert.equal(await postForText(`http://127.0.0.1:${closedPort}`, "{}"), undefined);

  const cutting = createServer((_req, res) => {
    res.writeHead(200, { "content-length": "100" });
    res.write("partial");
    res.socket?.destroy();
  });
  await new Promise<void>((resolve) => cutting.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = cutting.address() as AddressInfo;
    assert.equal(await postForText(`http://127.0.0.1:${port}`, "{}"), undefined);
  } finally {
    cutting.close();
  }
  assert.equal(await postForText("https://127.0.0.1:1", "{}"), undefined);
});
