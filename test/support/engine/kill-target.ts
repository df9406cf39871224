// Child process for the SIGKILL test: runs the embedded node on a home with the persistent KV app and prints
// its RPC URL as one JSON line. The parent kills it at random moments.
import { join } from "node:path";
import { startEmbeddedNode, stopOnSignals } from "../../../src/engine/embedded-node.ts";
import { KvApp } from "./kv-app.ts";

const home = process.argv[2];
if (home === undefined) {
  process.stderr.write("usage: kill-target.ts <home>\n");
  process.exit(2);
}
const app = new KvApp({ file: join(home, "data", "kv-app.json") });
const node = await startEmbeddedNode({ home, app });
process.stdout.write(`${JSON.stringify({ rpc: node.rpc.url, height: node.engine.store.height.toString() })}\n`);
stopOnSignals(node);
const exit = await node.run();
process.stdout.write(`${JSON.stringify({ exit: exit.reason, height: exit.height.toString() })}\n`);
process.exit(exit.exitCode);
