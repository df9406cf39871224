// A real engine driving the KV test app, with its consensus RPC on a loopback port picked at run time:
// the setup every RPC-level test (WebSocket, connection limits, the client's tx subscription) starts from.
import { Engine } from "../../../src/engine/engine.ts";
import { RpcServer, type RpcServerOptions } from "../../../src/engine/rpc/rpc-server.ts";
import { makeTestChain, type TestChain } from "./fixtures.ts";
import { KvApp } from "./kv-app.ts";

/** Options of {@link startKvRpcNode}. */
export interface KvRpcNodeOptions {
  /** node_info.moniker. */
  moniker: string;
  /** Block interval (default 20 ms). */
  timeoutCommitMs?: number;
  /** Produce blocks right away (default true); false leaves the engine started but not running. */
  run?: boolean;
  /** Server options beyond the context and the listen address (limits, websocket, ...). */
  server?: Omit<RpcServerOptions, "context" | "listen">;
}

/** A started engine and its RPC server. */
export interface KvRpcNode {
  chain: TestChain;
  engine: Engine;
  server: RpcServer;
  /** The bound port. */
  port: number;
  /** Stops the server and the engine and removes the chain's files. */
  close(): Promise<void>;
}

/** Starts the KV app under a real engine with its consensus RPC on 127.0.0.1 (port picked at run time). */
export async function startKvRpcNode(options: KvRpcNodeOptions): Promise<KvRpcNode> {
  const chain = await makeTestChain({ appState: { seeded: "1" } });
  const engine = await Engine.start({
    app: new KvApp(),
    store: await chain.openStore(),
    genesis: chain.genesis,
    privValidator: await chain.privValidator(),
    consensus: {
      timeoutCommitMs: options.timeoutCommitMs ?? 20,
      createEmptyBlocks: true,
      createEmptyBlocksIntervalMs: 0,
    },
  });
  const server = await RpcServer.listen({
    ...options.server,
    context: {
      engine,
      node: {
        moniker: options.moniker,
        nodeId: "0123456789abcdef0123456789abcdef01234567",
        p2pListenAddr: "tcp://0.0.0.0:26656",
        rpcListenAddr: "tcp://127.0.0.1:0",
        timeoutBroadcastTxCommitMs: 5000,
      },
    },
    listen: { host: "127.0.0.1", port: 0 },
  });
  const running = options.run === false ? undefined : engine.run();
  return {
    chain,
    engine,
    server,
    port: (server.address as { port: number }).port,
    async close() {
      await server.close();
      await engine.stop();
      await running;
      await engine.store.close();
      await chain.cleanup();
    },
  };
}
