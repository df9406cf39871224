// Wiring for `chaind start`: reads the home (config.toml, genesis.json, the validator key and its state),
// opens data/blocks.db, handshakes the App into an Engine and serves the consensus RPC on rpc.laddr.

import { join } from "node:path";
import { ConfigError } from "../config/errors.ts";
import { loadNodeConfig, type NodeConfig } from "../config/node-config.ts";
import { loadNodeKey, nodeIdFromPublicKey } from "../config/node-keys.ts";
import type { AbciApp } from "./abci-app.ts";
import { BlockStore } from "./block-store.ts";
import { Engine, type EngineExit, type EngineLogger } from "./engine.ts";
import { loadEngineGenesis } from "./genesis.ts";
import { PrivValidator } from "./priv-validator.ts";
import { rpcWriteTimeoutMs } from "./rpc/connection-limits.ts";
import { RpcServer } from "./rpc/rpc-server.ts";
import { advertisedP2p } from "./rpc/status-result.ts";

/** What {@link startEmbeddedNode} needs. */
export interface EmbeddedNodeOptions {
  /** The node's home directory (`--home`). */
  home: string;
  /** The application (BaseApp or a test app). */
  app: AbciApp;
  /** config.toml already loaded (otherwise read from the home). */
  nodeConfig?: NodeConfig;
  /** app.toml halt-height (0 = off). */
  haltHeight?: bigint;
  /** app.toml halt-time in Unix seconds (0 = off). */
  haltTime?: bigint;
  logger?: EngineLogger;
}

/** A started node: the engine (not yet producing) and the RPC server (already listening). */
export interface EmbeddedNode {
  engine: Engine;
  rpc: RpcServer;
  config: NodeConfig;
  /** Produces blocks until a stop, a halt or a fault; then closes the RPC server and the block store. */
  run(): Promise<EngineExit>;
  /** Graceful stop: finishes the block in progress; `run()` then resolves. */
  stop(): Promise<void>;
}

/**
 * The node ID of node_key.json (src/config's loader and checks); when the file does not exist, the validator
 * key's ID stands in (a malformed file is a ConfigError, not silently replaced).
 */
async function nodeIdOf(nodeKeyFile: string, validatorPubKey: Uint8Array): Promise<string> {
  try {
    return (await loadNodeKey(nodeKeyFile)).id;
  } catch (error) {
    const missing =
      error instanceof ConfigError &&
      error.code === "CONFIG_UNREADABLE" &&
      (error.cause as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
    if (missing) return nodeIdFromPublicKey(validatorPubKey);
    throw error;
  }
}

/**
 * Starts the embedded engine for a home: handshake (InitChain or replay), RPC listening on rpc.laddr.
 * Call `run()` to produce blocks; exit the process with the returned `exitCode`.
 *
 * @example
 * const node = await startEmbeddedNode({ home, app, haltHeight: appConfig.haltHeight, haltTime: appConfig.haltTime, logger });
 * const detach = stopOnSignals(node, logger);
 * const exit = await node.run(); detach(); await app.close(); process.exit(exit.exitCode);
 */
export async function startEmbeddedNode(options: EmbeddedNodeOptions): Promise<EmbeddedNode> {
  const config = options.nodeConfig ?? (await loadNodeConfig(options.home));
  const genesis = await loadEngineGenesis(config.genesisFile);
  const privValidator = await PrivValidator.load(config.privValidatorKeyFile, config.privValidatorStateFile);
  const store = await BlockStore.open(join(config.dbDir, "blocks.db"));
  let engine: Engine;
  try {
    engine = await Engine.start({
      app: options.app,
      store,
      genesis,
      privValidator,
      consensus: {
        timeoutCommitMs: config.consensus.timeoutCommitMs,
        createEmptyBlocks: config.consensus.createEmptyBlocks,
        createEmptyBlocksIntervalMs: config.consensus.createEmptyBlocksIntervalMs,
      },
      mempool: {
        size: config.mempool.size,
        maxTxsBytes: config.mempool.maxTxsBytes,
        maxTxBytes: config.mempool.maxTxBytes,
        cacheSize: config.mempool.cacheSize,
        keepInvalidTxsInCache: config.mempool.keepInvalidTxsInCache,
        recheck: config.mempool.recheck,
      },
      haltHeight: options.haltHeight,
      haltTime: options.haltTime,
      logger: options.logger,
    });
  } catch (error) {
    await store.close();
    throw error;
  }
  const laddr = config.rpc.laddr;
  let rpc: RpcServer;
  try {
    rpc = await RpcServer.listen({
      context: {
        engine,
        node: {
          moniker: config.moniker,
          nodeId: await nodeIdOf(config.nodeKeyFile, privValidator.pubKey),
          p2pListenAddr: advertisedP2p(config.p2p).listenAddr,
          p2pChannels: advertisedP2p(config.p2p).channels,
          rpcListenAddr: laddr.address,
          timeoutBroadcastTxCommitMs: config.rpc.timeoutBroadcastTxCommitMs,
          txIndexEnabled: config.txIndex.indexer !== "null",
        },
      },
      listen: laddr.protocol === "unix" ? { path: laddr.path } : { host: laddr.host, port: laddr.port },
      maxBodyBytes: config.rpc.maxBodyBytes,
      maxBatchSize: config.rpc.maxRequestBatchSize,
      websocket: {
        maxSubscriptionClients: config.rpc.maxSubscriptionClients,
        maxSubscriptionsPerClient: config.rpc.maxSubscriptionsPerClient,
      },
      limits: {
        maxOpenConnections: config.rpc.maxOpenConnections,
        writeTimeoutMs: rpcWriteTimeoutMs(config.rpc.timeoutBroadcastTxCommitMs),
      },
      logger: options.logger,
    });
  } catch (error) {
    await store.close();
    throw error;
  }
  options.logger?.info({ rpc: rpc.url, height: store.height.toString() }, "consensus RPC listening");
  let finished: Promise<EngineExit> | undefined;
  const run = () => {
    finished ??= (async () => {
      try {
        return await engine.run();
      } finally {
        await rpc.close();
        await store.close();
      }
    })();
    return finished;
  };
  return {
    engine,
    rpc,
    config,
    run,
    async stop() {
      await engine.stop();
      if (finished !== undefined) await finished.catch(() => {});
    },
  };
}

/** Stops the node gracefully on SIGINT/SIGTERM (a second signal is left to Node's default). Returns the detach function. */
export function stopOnSignals(node: EmbeddedNode, logger?: EngineLogger): () => void {
  const onSignal = (signal: NodeJS.Signals) => {
    logger?.info({ signal }, "stopping after the current block");
    detach();
    void node.stop();
  };
  const detach = () => {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  return detach;
}
