// config.toml `rpc.max_open_connections` reaches the consensus RPC of a real node (startNode in
// this process, dev home, real LevelDB and loopback sockets): with a limit of 2, a third connection is
// closed as it arrives while two are held, and the RPC serves again once one of them closes.
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { pino } from "pino";
import { pollUntil, tempDir } from "../../test/support/node/chaind.ts";
import { homePaths, setTomlValues } from "../config/index.ts";
import { type DevHome, prepareDevHome } from "./dev-chain.ts";
import { type RunningNode, startNode } from "./start-node.ts";

const PORTS = { rpcLaddr: "tcp://127.0.0.1:0", apiAddress: "tcp://127.0.0.1:0", grpcAddress: "127.0.0.1:0" };

let dir: Awaited<ReturnType<typeof tempDir>>;
let dev: DevHome;
let node: RunningNode | undefined;
const sockets: Socket[] = [];

before(async () => {
  dir = await tempDir("chaind-rpc-limits-");
  dev = await prepareDevHome({ home: join(dir.path, "home") });
  const configToml = homePaths(dev.home).configToml;
  await writeFile(configToml, setTomlValues(await readFile(configToml, "utf8"), { "rpc.max_open_connections": 2 }));
});

after(async () => {
  for (const socket of sockets) socket.destroy();
  await node?.stop();
  await dir?.remove();
});

/** A connection and what the server sent on it before closing it. */
async function open(port: number): Promise<{ socket: Socket; closed: Promise<string> }> {
  const socket = connect(port, "127.0.0.1");
  sockets.push(socket);
  socket.on("error", () => {});
  let received = "";
  socket.on("data", (chunk) => {
    received += chunk.toString();
  });
  await new Promise<void>((resolve) => socket.once("connect", resolve));
  return { socket, closed: new Promise((resolve) => socket.once("close", () => resolve(received))) };
}

test("rpc.max_open_connections = 2: a third connection is closed while two are held", async () => {
  node = await startNode({ home: dev.home, logger: pino({ level: "silent" }), overrides: PORTS });
  const url = node.endpoints.rpc as string;
  const port = Number(new URL(url).port);
  const held = [await open(port), await open(port)];
  for (const h of held) h.socket.write("GET /health HTTP/1.1\r\nHost: x\r\n");
  const third = await open(port);
  // Refused: closed without a byte while the two held ones are still open. (Without the limit it would only be
  // closed by the 10 s read timeout, as the held ones are.)
  assert.equal(await third.closed, "");
  assert.ok(
    held.every((h) => h.socket.readyState === "open"),
    "the third was refused, not timed out with the others",
  );
  for (const h of held) h.socket.destroy();
  await Promise.all(held.map((h) => h.closed));
  const served = await pollUntil(async () => {
    const response = await fetch(`${url}/health`, { headers: { connection: "close" } }).catch(() => undefined);
    return response?.status === 200 ? true : undefined;
  });
  assert.equal(served, true);
});
