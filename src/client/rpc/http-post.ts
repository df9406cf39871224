// A JSON-RPC read over node:http rather than fetch. fetch's first use loads undici, which costs a client
// command more start-up than everything else it does for `query bank balances` bar Node itself; node:http
// is part of Node's start-up snapshot. Only the successful path is taken here: on any failure the caller
// repeats the request through fetch, so what the user sees on an unreachable node is what it always was.
// Reads only (a repeated read is harmless); broadcasts always go through fetch.
// node:http is taken with process.getBuiltinModule, not an `import`: an ESM import of node:http reads
// every export of the module, WebSocket among them, and that getter loads undici after all.
const { request } = process.getBuiltinModule("node:http");

/** The body of the answer to POSTing `body` to `url`, or undefined when the caller should use fetch instead. */
export function postForText(url: string, body: string): Promise<string | undefined> {
  if (!url.startsWith("http:")) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const req = request(url, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
    });
    req.on("error", () => resolve(undefined));
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", () => resolve(undefined));
      res.on("end", () => resolve(res.complete ? Buffer.concat(chunks).toString("utf8") : undefined));
      // A cut connection may close the answer without `end` or `error`; the first settlement wins.
      res.on("close", () => resolve(undefined));
    });
    req.end(body);
  });
}
