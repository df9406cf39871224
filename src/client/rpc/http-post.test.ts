// postForText: the body on success; undefined (the caller falls back to fetch) on any failure or a non-http URL.
// postForAnswer: the same with the status and Content-Type.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import { test } from "node:test";
import { parseAnswer, postForAnswer, postForText, readAnswer } from "./http-post.ts";

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

test("reads chunked answers, and answers from a server that keeps the connection open", async () => {
  const chunked = createServer((_req, res) => {
    res.write("first ");
    setImmediate(() => res.end("second é"));
  });
  // A raw server that answers and never closes, whatever the request's `connection: close` says.
  const keepsOpen = createNetServer((socket) =>
    socket.once("data", () => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 17\r\n\r\n{"jsonrpc":"2.0"}')),
  );
  for (const server of [chunked, keepsOpen])
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const port = (server: { address(): unknown }) => (server.address() as AddressInfo).port;
    assert.equal(await postForText(`http://127.0.0.1:${port(chunked)}`, "{}"), "first second é");
    assert.equal(await postForText(`http://127.0.0.1:${port(keepsOpen)}`, "{}"), '{"jsonrpc":"2.0"}');
  } finally {
    chunked.close();
    keepsOpen.close();
  }
});

test("heads it cannot read leave the request to fetch; so do addresses it does not handle", async () => {
  assert.equal(await postForText("http://127.0.0.1:26657/websocket", "{}"), undefined);
  assert.equal(parseAnswer(Buffer.from("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"), true), "ok");
  assert.equal(parseAnswer(Buffer.from("HTTP/1.1 200 OK\r\n\r\nto the end"), true), "to the end");
  assert.equal(parseAnswer(Buffer.from("HTTP/1.1 200 OK\r\n\r\nnot ended"), false), undefined);
  assert.equal(parseAnswer(Buffer.from("SSH-2.0-OpenSSH\r\n\r\n"), true), undefined);
  assert.equal(parseAnswer(Buffer.from("HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\n\r\nx"), true), undefined);
  assert.equal(
    parseAnswer(Buffer.from("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n"), true),
    undefined,
  );
  assert.equal(
    parseAnswer(Buffer.from("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n"), true),
    undefined,
  );
});

test("postForAnswer and readAnswer also give the status and the Content-Type (named when the body is not JSON-RPC)", async () => {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(501, { "content-type": "text/html;charset=utf-8" }).end("<html>\n</html>"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const port = (server.address() as AddressInfo).port;
    assert.deepEqual(await postForAnswer(`http://127.0.0.1:${port}`, "{}"), {
      status: 501,
      contentType: "text/html;charset=utf-8",
      text: "<html>\n</html>",
    });
  } finally {
    server.close();
  }
  assert.deepEqual(readAnswer(Buffer.from("HTTP/1.0 404 Not Found\r\n\r\ngone"), true), {
    status: 404,
    contentType: undefined,
    text: "gone",
  });
  assert.equal(readAnswer(Buffer.from("HTTP/1.1 200 OK\r\n\r\nnot ended"), false), undefined);
});
