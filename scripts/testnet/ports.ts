// The loopback ports of every node: a fixed block per node from --base-port (each checked free), or free ports
// picked below the kernel's ephemeral range by ../free-ports.ts.
import { createServer, type Server } from "node:net";
import { freeLoopbackPorts } from "../free-ports.ts";
import { type NodePorts, TestnetError } from "./types.ts";

const PORT_KINDS = ["p2p", "rpc", "abci", "api", "grpc"] as const;

async function listenOn(port: number): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolveListen, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolveListen());
  });
  return server;
}

/**
 * Ports for `count` nodes: from the base (node i at base + 10·i + 0..4, each checked free), or picked at random
 * below the ephemeral range (free-ports.ts). Every probe stays bound until all are picked, so no port is handed
 * out twice.
 */
export async function allocatePorts(count: number, basePort?: number): Promise<NodePorts[]> {
  if (basePort === undefined) {
    const picked = await freeLoopbackPorts(count * PORT_KINDS.length);
    return Array.from({ length: count }, (_, i) => {
      const ports = {} as NodePorts;
      for (const [k, kind] of PORT_KINDS.entries()) ports[kind] = picked[i * PORT_KINDS.length + k];
      return ports;
    });
  }
  const held: Server[] = [];
  try {
    const result: NodePorts[] = [];
    for (let i = 0; i < count; i++) {
      const ports = {} as NodePorts;
      for (const [k, kind] of PORT_KINDS.entries()) {
        const wanted = basePort + 10 * i + k;
        if (wanted > 65535) throw new TestnetError(`--base-port ${basePort} leaves no room for ${count} nodes`);
        let server: Server;
        try {
          server = await listenOn(wanted);
        } catch (cause) {
          throw new TestnetError(`port ${wanted} on 127.0.0.1 (node${i} ${kind}) is in use: pick another --base-port`, {
            cause,
          });
        }
        held.push(server);
        ports[kind] = wanted;
      }
      result.push(ports);
    }
    return result;
  } finally {
    await Promise.all(held.map((s) => new Promise<void>((done) => s.close(() => done()))));
  }
}
