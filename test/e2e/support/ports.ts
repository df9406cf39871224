// Loopback ports picked at run time: the OS hands out a free port for 127.0.0.1:0, which is then released for the
// node to bind. All ports of one call are held open together, so they are distinct from each other.
import { createServer, type Server } from "node:net";

/** `count` distinct free TCP ports on 127.0.0.1. */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(0, "127.0.0.1", resolve);
      });
      const address = server.address();
      if (address === null || typeof address === "string") throw new Error("expected a TCP address");
      ports.push(address.port);
    }
    return ports;
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}
