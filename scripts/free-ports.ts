// Loopback ports picked before the processes that will listen on them start (a testnet's config files name them).
// They come from below the kernel's ephemeral range: a port the kernel hands out for listen(0), or as the source
// port of any outgoing connection, can be taken by another process between the pick and the bind — a testnet's
// ABCI port was, in a CI run with other tests beside it. Below that range a port is only taken by a process that
// names it, and the ports CometBFT and chaind use by default lie under the range's start.
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";

/** The lowest port picked: above 26656–26658 (CometBFT's defaults) and every default of chaind's. */
const LOWEST = 27_000;
/** Linux's usual ephemeral range starts here; also the fallback where it cannot be read. */
const EPHEMERAL_DEFAULT = 32_768;

/** The first port of the kernel's ephemeral range. */
export function ephemeralRangeStart(): number {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    // A range that starts too low to leave room below it: pick below the usual start instead.
    if (Number.isInteger(low) && low >= LOWEST + 1_000) return low;
  } catch {
    // Not Linux: its ephemeral ranges start at 32768 or above too.
  }
  return EPHEMERAL_DEFAULT;
}

/** A server bound to the port, or undefined when something else holds it. */
async function tryListen(port: number): Promise<Server | undefined> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once("error", () => resolve(undefined));
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

/**
 * `count` distinct TCP ports free on 127.0.0.1 now, chosen at random below the ephemeral range. Every probe
 * stays bound until all are picked, so one call never hands out a port twice.
 */
export async function freeLoopbackPorts(count: number): Promise<number[]> {
  const top = ephemeralRangeStart();
  const held: Server[] = [];
  try {
    const ports: number[] = [];
    for (let tries = 0; ports.length < count; tries++) {
      if (tries >= 100 * count) {
        throw new Error(`found only ${ports.length} of ${count} free ports between ${LOWEST} and ${top} on 127.0.0.1`);
      }
      const port = LOWEST + Math.floor(Math.random() * (top - LOWEST));
      if (ports.includes(port)) continue;
      const server = await tryListen(port);
      if (server === undefined) continue;
      held.push(server);
      ports.push(port);
    }
    return ports;
  } finally {
    await Promise.all(held.map((s) => new Promise<void>((done) => s.close(() => done()))));
  }
}
