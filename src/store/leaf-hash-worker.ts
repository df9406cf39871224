// The second thread of a commit's leaf hashing (leaf-hasher.ts): receives its hasher's shared
// buffers once, then on each wake-up follows the current job, claiming chunks until it is closed.
import { parentPort } from "node:worker_threads";
import { ChunkHasher, type LeafHashBuffers } from "./leaf-hash-jobs.ts";

let hasher: ChunkHasher | undefined;

parentPort?.on("message", (message: { buffers?: LeafHashBuffers; run?: true }) => {
  if (message.buffers !== undefined) hasher = new ChunkHasher(message.buffers);
  if (message.run === true) hasher?.work(true);
});
