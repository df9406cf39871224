// A small HTTP server on 127.0.0.1:<picked port> that serves release archives the way a release page would, and
// remembers every request so a test can tell that a download really happened.
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One request the server answered. */
export interface ServedRequest {
  method: string;
  path: string;
  status: number;
}

/** A running file server. */
export interface FileServer {
  /** `http://127.0.0.1:<port>` */
  readonly baseUrl: string;
  /** The requests answered so far, oldest first. */
  readonly requests: ServedRequest[];
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/** Serves each file of `files` (URL path → file on disk) with GET and HEAD; everything else is 404. */
export async function startFileServer(files: Record<string, string>): Promise<FileServer> {
  const requests: ServedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    const file = files[path];
    const record = (status: number) => requests.push({ method: req.method ?? "", path, status });
    if (file === undefined || (req.method !== "GET" && req.method !== "HEAD")) {
      record(404);
      res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    stat(file).then(
      (info) => {
        record(200);
        res.writeHead(200, { "content-type": "application/gzip", "content-length": info.size });
        if (req.method === "HEAD") res.end();
        else createReadStream(file).pipe(res);
      },
      () => {
        record(404);
        res.writeHead(404).end();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
