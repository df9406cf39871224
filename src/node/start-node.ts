// `chaind start` as a library call: load the settings (nothing starts when they are wrong), build the
// chain's App for this release, drive it with the embedded engine (default) or serve it to
// CometBFT over ABCI (`abci: true`), start the gRPC server and REST gateway when app.toml enables them,
// and report one exit status when the node stops: 0 after a signal or app.toml's halt-height/halt-time,
// the upgrade halt's own status (src/x/upgrade/errors.ts UPGRADE_EXIT_CODES), 1 after a fault.
// Everything started is closed before `done` resolves: servers, engine or ABCI server, the App's store
// and the signature-verification workers.
import type { Logger } from "pino";
import { AbciServer } from "../abci/server.ts";
import { currentBinaryName } from "../config/home.ts";
import { formatDecCoins, homePaths, loadNodeKey } from "../config/index.ts";
import { removeStaleTemporaries } from "../config/stale-temporaries.ts";
import { nativeSecp256k1Problem, SECP256K1_ENV } from "../crypto/native-secp256k1.ts";
import { ConsensusMetrics } from "../engine/consensus-metrics.ts";
import { type EmbeddedNode, startEmbeddedNode } from "../engine/embedded-node.ts";
import { type AbciObserver, observeAbci } from "../engine/observed-app.ts";
import { advertisedP2p } from "../engine/rpc/status-result.ts";
import { UserError } from "../errors/user-error.ts";
import { buildReplayChainApp } from "../replay/chain-line.ts";
import { buildChainApp, type ChainApp, type ChainAppOptions } from "../runtime/build-app.ts";
import { currentChain } from "../runtime/current-chain.ts";
import type { ChainDefinition, Release } from "../runtime/release.ts";
import { appNodeHooks, appQueryBackend } from "../server/app-backend.ts";
import type { NodeHooks } from "../server/query-backend.ts";
import { type RunningServers, startServers } from "../server/servers.ts";
import { attachSnapshots, snapshotDir } from "../snapshots/node-snapshots.ts";
import { SnapshotStore } from "../snapshots/snapshot-store.ts";
import { closeVerifyPool } from "../x/auth/verify-pool.ts";
import { UPGRADE_EXIT_CODES } from "../x/upgrade/errors.ts";
import { AppTelemetry } from "./app-telemetry.ts";
import { cometNodeHooks, cometRpcAddress } from "./comet-hooks.ts";
import { engineNodeHooks } from "./engine-hooks.ts";
import { listenForMetrics } from "./metrics-listener.ts";
import { loadNodeSettings, type NodeOverrides, type NodeSettings } from "./node-settings.ts";
import { type SupervisedHaltWait, supervisedHaltWait } from "./supervised-halt.ts";

/** A listener could not start (a port in use, an address not on this machine); the message names the setting. */
export class NodeStartError extends UserError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "NodeStartError";
  }
}

const LISTEN_ERRNO = new Set(["EADDRINUSE", "EADDRNOTAVAIL", "EACCES", "ENOTFOUND"]);

/** `err` as a NodeStartError naming `what` when it is a failure to listen; otherwise `err`. */
function listenError(err: unknown, what: string): unknown {
  if (!(err instanceof Error)) return err;
  const errno = (err as NodeJS.ErrnoException).code;
  const listening =
    (typeof errno === "string" && LISTEN_ERRNO.has(errno)) ||
    /cannot listen|EADDRINUSE|EADDRNOTAVAIL/.test(err.message);
  return listening ? new NodeStartError(`cannot start ${what}: ${err.message}`, { cause: err }) : err;
}

/** Options of {@link startNode}. */
export interface StartNodeOptions {
  home: string;
  logger: Logger;
  /** Serve the App to CometBFT over ABCI (proxy_app) instead of running the embedded engine. */
  abci?: boolean;
  /** `--unsafe-skip-upgrades`: plans due at these heights are skipped instead of halting. */
  skipUpgradeHeights?: bigint[];
  /** Command-line values over the config files. */
  overrides?: NodeOverrides;
  /** Already loaded settings (otherwise loaded from `home` with `overrides`). */
  settings?: NodeSettings;
  /** The chain to run (default: the one this process serves, see runtime/current-chain.ts). */
  chain?: ChainDefinition;
  /** The release to run as (default: the chain's release variable, e.g. CHAIND_RELEASE, else its default). */
  release?: Release;
  /**
   * In-place upgrades (`--in-place-upgrades`, alias `--replay-releases`; default app.toml `in-place-upgrades`): run
   * the rules of the release active on chain and apply in process the upgrades of this release's line — the release
   * and its predecessors (`upgradesFrom`) — instead of halting (src/replay). Replay mode is this mode on a node
   * syncing past heights.
   */
  inPlaceUpgrades?: boolean;
}

/** Where the node can be reached. Absent entries are disabled. */
export interface NodeEndpoints {
  /** Consensus RPC (the embedded engine's, or CometBFT's in ABCI mode), http://host:port. */
  rpc?: string;
  /** The ABCI socket CometBFT connects to (ABCI mode only). */
  abci?: string;
  /** REST gateway base URL. */
  rest?: string;
  /** Swagger UI / document URL. */
  swagger?: string;
  /** The upgrade status page (app.toml api.upgrade-page). */
  upgradePage?: string;
  /** gRPC host:port. */
  grpc?: string;
  /** The embedded engine's consensus metrics (config.toml [instrumentation]), http://host:port/metrics. */
  metrics?: string;
  /** The application's metrics (app.toml [telemetry]) on the REST server. */
  appMetrics?: string;
}

/** Why the node stopped and the status the process should exit with. */
export interface NodeExit {
  exitCode: number;
  reason: "stopped" | "halt-height" | "halt-time" | "app-halt" | "fault";
  /** The last committed height when it stopped (embedded engine; ABCI mode: the App's). */
  height: bigint;
  error?: Error;
}

/** A started node. */
export interface RunningNode {
  /** The chain's App and keepers; in replay mode those of the release running now (`chain.app` switches). */
  chain: ChainApp;
  /** Set in replay mode: the release this binary runs as (the top of its line), whatever release runs now. */
  replay?: { binaryRelease: Release };
  settings: NodeSettings;
  endpoints: NodeEndpoints;
  /** The embedded engine (undefined in ABCI mode). */
  embedded?: EmbeddedNode;
  /** The ABCI server (ABCI mode only). */
  abciServer?: AbciServer;
  servers: RunningServers;
  /** Resolves once the node has stopped and everything is closed. */
  done: Promise<NodeExit>;
  /** Graceful stop (finishes the block in progress); resolves like `done`. */
  stop(): Promise<NodeExit>;
}

/**
 * Starts a node on `home`. Rejects (having closed whatever it opened) when the settings are wrong or a
 * listener cannot bind; afterwards, every outcome arrives through `done`.
 *
 * @example
 * const node = await startNode({ home, logger });
 * process.once("SIGTERM", () => void node.stop());
 * process.exitCode = (await node.done).exitCode;
 */
export async function startNode(options: StartNodeOptions): Promise<RunningNode> {
  const { logger } = options;
  const settings = options.settings ?? (await loadNodeSettings(options.home, options.overrides));
  const { appConfig, nodeConfig, genesis } = settings;
  for (const key of settings.unknownKeys) logger.warn({ key }, "unknown configuration key (ignored)");
  const verifierProblem = nativeSecp256k1Problem();
  if (verifierProblem !== undefined) {
    const level = process.env[SECP256K1_ENV] === "openssl" ? "info" : "warn";
    logger[level](
      { reason: verifierProblem },
      "signatures are verified with OpenSSL, several times slower than with libsecp256k1",
    );
  }
  // A kill in the middle of an atomic write (upgrade-info.json, the signing state) leaves its
  // temporary behind; the target is whole, so the temporary is garbage.
  const paths = homePaths(settings.home);
  for (const dir of [paths.configDir, paths.dataDir]) {
    for (const name of await removeStaleTemporaries(dir)) {
      logger.info({ file: name }, "removed a temporary file left by an interrupted write");
    }
  }
  // The same for a snapshot being written or an archive being unpacked when the process was killed.
  for (const name of await new SnapshotStore(snapshotDir(settings.home)).removeStaleTemporaries()) {
    logger.info({ folder: `snapshots/${name}` }, "removed a snapshot temporary left by an interrupted write");
  }

  const chainOptions: ChainAppOptions = {
    chain: options.chain ?? currentChain(),
    home: settings.home,
    chainId: genesis.chainId,
    logger,
    release: options.release,
    minimumGasPrices: formatDecCoins(appConfig.minimumGasPrices),
    pruning: appConfig.pruning,
    haltHeight: appConfig.haltHeight,
    haltTime: appConfig.haltTime,
    minRetainBlocks: appConfig.minRetainBlocks,
    blockRetention: {
      evidenceMaxAgeNumBlocks: genesis.consensusParams.evidence.maxAgeNumBlocks,
      snapshotInterval: appConfig.stateSync.snapshotInterval,
      snapshotKeepRecent: BigInt(appConfig.stateSync.snapshotKeepRecent),
    },
    queryGasLimit: appConfig.queryGasLimit,
    skipUpgradeHeights: options.skipUpgradeHeights,
  };
  const replayed =
    (options.inPlaceUpgrades ?? appConfig.inPlaceUpgrades) ? await buildReplayChainApp(chainOptions) : undefined;
  const chain = replayed?.chain ?? (await buildChainApp(chainOptions));
  const app = chain.app;
  // app.toml [telemetry]: the application's metrics, served by the REST server (src/node/app-telemetry.ts).
  const telemetry = appConfig.telemetry.enabled
    ? new AppTelemetry({ prefix: appConfig.telemetry.serviceName, chain })
    : undefined;
  const snapshots = attachSnapshots({
    app,
    home: settings.home,
    config: appConfig.stateSync,
    logger,
    observer: telemetry?.snapshots,
  });
  // A snapshot being written is cancelled (its temporary removed) before the store closes.
  const cleanups: (() => Promise<void>)[] = [
    () => app.close(),
    () => closeVerifyPool(),
    async () => snapshots.manager?.stop(),
  ];
  const cleanup = async () => {
    for (const step of cleanups.splice(0).reverse()) {
      try {
        await step();
      } catch (err) {
        logger.error({ err }, "error while shutting down");
      }
    }
  };

  try {
    let hooks: NodeHooks;
    let embedded: EmbeddedNode | undefined;
    let abciServer: AbciServer | undefined;
    const endpoints: NodeEndpoints = {};
    // Metrics observe the App's ABCI calls through a wrapper; with none on, the engine drives the App itself.
    const observers: AbciObserver[] = telemetry === undefined ? [] : [telemetry.abciObserver];
    const instrumentation = nodeConfig.instrumentation;
    let consensusMetrics: ConsensusMetrics | undefined;
    if (instrumentation.prometheus && options.abci === true) {
      // CometBFT serves its own consensus metrics on this address: listening too would take its port.
      logger.info(
        { address: instrumentation.prometheusListenAddr },
        `consensus metrics are CometBFT's in ABCI mode (config.toml [instrumentation]); ${currentBinaryName()} serves none there`,
      );
    } else if (instrumentation.prometheus) {
      consensusMetrics = new ConsensusMetrics({ namespace: instrumentation.namespace, chainId: genesis.chainId });
      observers.push(consensusMetrics.abciObserver);
      let listener: Awaited<ReturnType<typeof listenForMetrics>>;
      try {
        listener = await listenForMetrics(consensusMetrics.registry, {
          ...instrumentation.prometheusListen,
          maxOpenConnections: instrumentation.maxOpenConnections,
        });
      } catch (err) {
        throw listenError(
          err,
          `the consensus metrics on ${instrumentation.prometheusListenAddr} (config.toml instrumentation.prometheus_listen_addr)`,
        );
      }
      cleanups.push(() => listener.close());
      endpoints.metrics = listener.url;
    }
    // The process metrics go with the application's when those are on, else with the consensus metrics.
    if (telemetry !== undefined) telemetry.collectProcessMetrics();
    else consensusMetrics?.collectProcessMetrics();
    const drivenApp = observeAbci(app, observers);
    if (options.abci === true) {
      abciServer = await AbciServer.listen({
        app: drivenApp,
        address: nodeConfig.proxyApp,
        logger,
        snapshots: snapshots.stateSync,
      });
      const server = abciServer;
      cleanups.push(async () => void (await server.close()));
      endpoints.abci = server.address;
      const rpcAddress = cometRpcAddress(nodeConfig.rpc.laddr);
      endpoints.rpc = rpcAddress.replace(/^tcp:/, "http:");
      hooks = cometNodeHooks(app, rpcAddress);
      logger.info({ address: server.address, cometbftRpc: endpoints.rpc }, "ABCI server listening for CometBFT");
    } else {
      try {
        embedded = await startEmbeddedNode({
          home: settings.home,
          app: drivenApp,
          nodeConfig,
          haltHeight: appConfig.haltHeight,
          haltTime: appConfig.haltTime,
          logger,
        });
      } catch (err) {
        throw listenError(
          err,
          `the consensus RPC on ${nodeConfig.rpc.laddr.address} (config.toml rpc.laddr, or --rpc.laddr)`,
        );
      }
      const node = embedded;
      // From here on the RPC server listens and data/blocks.db is open: whatever fails next (the servers, a hook)
      // closes them through the cleanup like everything else, or the listening socket would keep the process alive.
      // On the way out after a run, stop() and run() find the engine stopped and the run finished: nothing to do.
      cleanups.push(async () => {
        await node.stop();
        await node.run().catch(() => undefined);
      });
      endpoints.rpc = node.rpc.url;
      consensusMetrics?.attach(node.engine);
      hooks = engineNodeHooks(
        node.engine,
        {
          moniker: nodeConfig.moniker,
          nodeId: await nodeIdOf(nodeConfig.nodeKeyFile),
          p2pListenAddr: advertisedP2p(nodeConfig.p2p).listenAddr,
          p2pChannels: advertisedP2p(nodeConfig.p2p).channels,
          rpcAddress: nodeConfig.rpc.laddr.address,
          txIndex: nodeConfig.txIndex.indexer !== "null",
          appVersion: app.version,
        },
        app.typeRegistry,
      );
    }

    let servers: RunningServers;
    try {
      servers = await startServers({
        backend: appQueryBackend(app),
        hooks: { ...appNodeHooks(app), ...hooks },
        config: appConfig,
        logger,
        version: chain.release.version,
        telemetry: telemetry?.server,
      });
    } catch (err) {
      // The cleanup closes what is open: the engine's RPC server and block store (through stop+run), the App.
      throw listenError(err, "the REST gateway or the gRPC server (app.toml api.address / grpc.address, or the flags)");
    }
    cleanups.push(() => servers.stop());
    if (servers.rest !== undefined) {
      endpoints.rest = servers.rest.url;
      if (appConfig.api.swagger) endpoints.swagger = `${servers.rest.url}/swagger`;
      if (telemetry !== undefined) endpoints.appMetrics = `${servers.rest.url}/metrics?format=prometheus`;
      if (appConfig.api.upgradePage) endpoints.upgradePage = `${servers.rest.url}/upgrade`;
    }
    if (servers.grpc !== undefined) endpoints.grpc = servers.grpc.address;

    logger.info({ chainId: genesis.chainId, release: chain.release.name, ...endpoints }, "node started");
    let stopRequested = false;
    let wakeHaltWait: (() => void) | undefined;
    // After an upgrade halt under a supervisor: stay up (queries still served) until told to stop, bounded.
    const waitForSupervisor = async (wait: SupervisedHaltWait | undefined): Promise<void> => {
      if (wait === undefined) return;
      logger.info(
        { supervisor: wait.supervisor, maxWaitMs: wait.maxMs },
        "upgrade-info.json written; waiting for the supervisor to stop the node before exiting",
      );
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolveWait) => {
        wakeHaltWait = resolveWait;
        timer = setTimeout(resolveWait, wait.maxMs);
      });
      clearTimeout(timer);
      wakeHaltWait = undefined;
    };
    const done = (async (): Promise<NodeExit> => {
      let exit: NodeExit;
      if (embedded !== undefined) {
        try {
          const result = await embedded.run();
          exit =
            result.reason === "app-halt"
              ? { exitCode: result.exitCode, reason: "app-halt", height: result.height, error: result.error }
              : { exitCode: 0, reason: result.reason, height: result.height };
        } catch (err) {
          logger.error({ err }, "the consensus engine failed");
          exit = { exitCode: 1, reason: "fault", height: embedded.engine.store.height, error: err as Error };
        }
      } else {
        const result = await (abciServer as AbciServer).done;
        const height = app.lastBlockHeight();
        exit =
          result.reason === "closed"
            ? { exitCode: 0, reason: "stopped", height }
            : result.reason === "app-halt"
              ? { exitCode: result.exitCode, reason: "app-halt", height, error: result.error }
              : { exitCode: 1, reason: "fault", height, error: result.error };
      }
      if (stopRequested && exit.reason === "stopped") logger.info({ height: exit.height.toString() }, "node stopped");
      if (exit.reason === "app-halt" && exit.exitCode === UPGRADE_EXIT_CODES.needed && !stopRequested) {
        await waitForSupervisor(supervisedHaltWait(process.env));
      }
      await cleanup();
      return exit;
    })();

    return {
      chain,
      replay: replayed === undefined ? undefined : { binaryRelease: replayed.binaryRelease },
      settings,
      endpoints,
      embedded,
      abciServer,
      servers,
      done,
      async stop() {
        stopRequested = true;
        wakeHaltWait?.();
        if (embedded !== undefined) await embedded.stop();
        else await abciServer?.close();
        return done;
      },
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

/** The node ID from node_key.json ("" when the file is missing: the engine then reports its own fallback). */
async function nodeIdOf(nodeKeyFile: string): Promise<string> {
  try {
    return (await loadNodeKey(nodeKeyFile)).id;
  } catch {
    return "";
  }
}
