// The application: an ABCI 2.0-shaped object driven by the embedded engine or the ABCI socket
// server. It knows nothing of sockets; every method takes and returns the generated
// tendermint.abci Request*/Response* messages.
//
// Lifecycle: `createApp(...)` → `await app.load()` (opens the store through the store loader) →
//   fresh chain: initChain → [finalizeBlock → commit]* ;  restart: info → [finalizeBlock → commit]* ;
//   any time: checkTx, query, prepareProposal, processProposal.
// FinalizeBlock works on one branch of state: PreBlock hooks, BeginBlock hooks, each tx on its own
// nested branch, EndBlock hooks; then the branch is staged (app hash computed, nothing persisted).
// Commit persists the staged version. A HaltError from a hook fails FinalizeBlock with nothing staged.
import { createHash } from "node:crypto";
import { create, type DescFile, type JsonValue, type Registry, toJson } from "@bufbuild/protobuf";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import type { Logger } from "pino";
import { uvarintLength } from "../bytes/varint.ts";
import { SimulationResponseSchema } from "../gen/chain/base/abci/v1beta1/abci_pb.js";
import {
  CheckTxType,
  CommitInfoSchema,
  type ExecTxResult,
  ExecTxResultSchema,
  type ExtendedCommitInfo,
  ExtendedCommitInfoSchema,
  type RequestCheckTx,
  type RequestExtendVote,
  type RequestFinalizeBlock,
  type RequestInfo,
  type RequestInitChain,
  type RequestPrepareProposal,
  type RequestProcessProposal,
  type RequestQuery,
  type RequestVerifyVoteExtension,
  type ResponseCheckTx,
  ResponseCheckTxSchema,
  type ResponseCommit,
  ResponseCommitSchema,
  type ResponseExtendVote,
  ResponseExtendVoteSchema,
  type ResponseFinalizeBlock,
  ResponseFinalizeBlockSchema,
  type ResponseInfo,
  ResponseInfoSchema,
  type ResponseInitChain,
  ResponseInitChainSchema,
  type ResponsePrepareProposal,
  ResponsePrepareProposalSchema,
  type ResponseProcessProposal,
  ResponseProcessProposal_ProposalStatus,
  ResponseProcessProposalSchema,
  type ResponseQuery,
  type ResponseVerifyVoteExtension,
  ResponseVerifyVoteExtension_VerifyStatus,
  ResponseVerifyVoteExtensionSchema,
} from "../gen/tendermint/abci/types_pb.js";
import { type ConsensusParams, ConsensusParamsSchema } from "../gen/tendermint/types/params_pb.js";
import { FutureVersionError, InvalidVersionError } from "../store/errors.ts";
import type {
  AheadBranchMultiStore,
  BranchMultiStore,
  CommitMultiStore,
  StoreUpgrades,
  VersionView,
} from "../store/types.ts";
import { MAX_VERSION } from "../store/version-limit.ts";
import { toAbciEvents, toAbciValidatorUpdates, toExecTxResult } from "./abci-convert.ts";
import { handleAbciQuery } from "./abci-query.ts";
import { aheadHeader } from "./ahead-context.ts";
import type { AnteHandler } from "./ante.ts";
import { AppStateError } from "./app-state-error.ts";
import { blockRetentionHeight } from "./block-retention.ts";
import { CommittedEnableHeight } from "./committed-enable-height.ts";
import { Context, type ExecMode, zeroTimestamp } from "./context.ts";
import type { DecCoin } from "./dec-coins.ts";
import { ChainError, ErrInvalidHeight, lookupError } from "./errors.ts";
import { type AbciEvent, appendAttributes, DISCARDED_EVENTS, EventManager } from "./events.ts";
import {
  decodeExtendedCommitTx,
  encodeExtendedCommitTx,
  extendedCommitProblem,
  isExtendedCommitTx,
} from "./extended-commit.ts";
import { KV_GAS_CONFIG, newInfiniteGasMeter } from "./gas.ts";
import { checkGenesisValidators, parseAppState } from "./genesis-checks.ts";
import { CONFIG_HALT_EXIT_CODE, HaltError } from "./halt.ts";
import { IdleCollector } from "./idle-collection.ts";
import type { VersionMap } from "./module.ts";
import type { ModuleManager } from "./module-manager.ts";
import { newQueryGasMeter } from "./query-gas.ts";
import { MsgRouter, QueryRouter, routerRegistrar } from "./router.ts";
import {
  type CommittedHeightReader,
  defaultStoreLoader,
  loadStore,
  type StoreLoader,
  type StoreOpener,
} from "./store-loader.ts";
import { type TxResult, TxRunner } from "./tx-runner.ts";
import { buildTypeRegistry } from "./type-registry.ts";
import { branchOverView, sharedView } from "./view-branch.ts";
import { carriesExtendedCommit, type VoteExtensionHandler } from "./vote-extensions.ts";

// Contexts outside a tx have no tx bytes; one shared empty array (a zero-length array cannot change)
// saves a typed-array allocation per query.
const NO_TX_BYTES = new Uint8Array(0);

// The result of a block's extended-commit tx: CometBFT wants one result per tx; this one ran nothing.
const COMMIT_TX_RESULT: ExecTxResult = create(ExecTxResultSchema, { log: "the previous height's extended commit" });

/** Reads the protocol version (ABCI Info.app_version) from state; the upgrade module provides it. */
export type AppVersionProvider = (ctx: Context) => Promise<bigint>;

/** Called in InitChain after every module's InitGenesis with the full version map (the upgrade module stores it). */
export type InitChainVersionMapHandler = (ctx: Context, versionMap: VersionMap) => Promise<void>;

/** Options of createApp. */
export interface AppOptions {
  /** The chain id every block and signature is checked against. */
  chainId: string;
  /** The modules, their orders and migrations. */
  moduleManager: ModuleManager;
  /** The checks before a tx's messages (usually `createAnteHandler` of the auth module). */
  anteHandler: AnteHandler;
  /** Opens the multistore (memory for tests, LevelDB for a node). */
  openStore: StoreOpener;
  /**
   * Reads the last committed height without opening the stores; needed for store loaders that add,
   * rename or delete stores (e.g. `() => readCommittedHeight(dataDir)` from store-height.ts).
   */
  readCommittedHeight?: CommittedHeightReader;
  logger: Logger;
  /** App name (Info.data, query errors); default "chaind". */
  name?: string;
  /** Software version (Info.version, `/app/version`); default "0.0.0". */
  version?: string;
  /** app.toml minimum-gas-prices, enforced in CheckTx. */
  minGasPrices?: readonly DecCoin[];
  /** app.toml min-retain-blocks (0 = keep every block). */
  minRetainBlocks?: bigint;
  /**
   * What else bounds the retain height Commit returns, as upstream's GetBlockRetentionHeight: the genesis
   * consensus params' evidence max_age_num_blocks, and the state-sync snapshot interval × keep-recent.
   */
  blockRetention?: { evidenceMaxAgeNumBlocks?: bigint; snapshotInterval?: bigint; snapshotKeepRecent?: bigint };
  /** app.toml halt-height: FinalizeBlock of any later height fails with a HaltError (0 = off). */
  haltHeight?: bigint;
  /** app.toml halt-time in Unix seconds: blocks after it fail with a HaltError (0 = off). */
  haltTime?: bigint;
  /**
   * app.toml query-gas-limit: the most gas one query (gRPC, REST, ABCI Query) may use; a query that
   * needs more fails with QueryGasLimitError. 0 or absent = unbounded (upstream's default).
   */
  queryGasLimit?: bigint;
  /** Vote extensions (ExtendVote, VerifyVoteExtension); without: empty extensions only. */
  voteExtensions?: VoteExtensionHandler;
  /**
   * Garbage collection in the wait after a commit, once the work behind it is over (idle-collection.ts): on by
   * default; false turns it off, and a collector replaces the default one (tests).
   */
  idleCollection?: false | IdleCollector;
}

/** gas_info.gas_wanted of every simulation: MaxUint64, the limit of upstream's infinite gas meter. */
export const SIMULATION_GAS_WANTED = 2n ** 64n - 1n;

/** Gas estimate and result of a simulated tx (chain.base.abci.v1beta1.SimulationResponse). */
export interface SimulateResult {
  gasInfo: { gasWanted: bigint; gasUsed: bigint };
  result: TxResult;
}

export { AppStateError } from "./app-state-error.ts";
export { blockRetentionHeight } from "./block-retention.ts";

interface BlockInProgress {
  height: bigint;
  header: Context["header"];
}

/**
 * Builds the app: routers from every module's services, the type registry, the tx runner.
 * Call `load()` before anything else.
 */
export function createApp(options: AppOptions): App {
  return new App(options);
}

/** The application (see the file comment for the lifecycle). */
export class App {
  readonly name: string;
  readonly version: string;
  readonly chainId: string;
  readonly moduleManager: ModuleManager;
  readonly msgRouter = new MsgRouter();
  readonly queryRouter = new QueryRouter();
  /** Every message type that may appear in an Any (for decoding and proto JSON). */
  readonly typeRegistry: Registry;
  readonly txRunner: TxRunner;
  readonly logger: Logger;
  private readonly options: AppOptions;
  private storeLoader: StoreLoader = defaultStoreLoader;
  private appVersionProvider: AppVersionProvider | undefined;
  private versionMapHandler: InitChainVersionMapHandler | undefined;
  private multiStore: CommitMultiStore | undefined;
  private loadedUpgrades: StoreUpgrades | undefined;
  private checkState: BranchMultiStore | undefined;
  private genesis: { branch: BranchMultiStore; initialHeight: bigint; time: Timestamp } | undefined;
  private staged: BlockInProgress | undefined;
  /** FinalizeBlock calls so far: the work behind a commit is idle only while no next block has started. */
  private finalizeCalls = 0;
  private workBehindCommit: Promise<void> = Promise.resolve();
  private readonly idleCollector: IdleCollector | undefined;
  private lastHeader: Context["header"] | undefined;
  /**
   * The last extended-commit tx decoded and what it decoded to: ProcessProposal, the readiness gate's question and
   * FinalizeBlock read the same tx of a block, which is decoded once (the bytes are compared, not trusted by identity).
   */
  private decodedCommit: { tx: Uint8Array; commit: ExtendedCommitInfo } | undefined;
  /** The vote extensions' enable height of the latest commit, read once per commit (committed-enable-height.ts). */
  private readonly committedEnableHeight = new CommittedEnableHeight();
  /** The view and header of query contexts at the latest version (see createQueryContext). */
  private latestQueryBase:
    | {
        store: CommitMultiStore;
        version: bigint;
        lastHeader: Context["header"] | undefined;
        view: VersionView;
        header: Context["header"];
      }
    | undefined;
  private checkQueue: Promise<void> = Promise.resolve();
  private readonly commitListeners: ((height: bigint) => unknown)[] = [];

  constructor(options: AppOptions) {
    this.options = options;
    this.idleCollector = options.idleCollection === false ? undefined : (options.idleCollection ?? new IdleCollector());
    this.name = options.name ?? "chaind";
    this.version = options.version ?? "0.0.0";
    this.chainId = options.chainId;
    this.moduleManager = options.moduleManager;
    this.logger = options.logger;
    this.moduleManager.registerServices(routerRegistrar(this.msgRouter, this.queryRouter));
    const files = new Set<DescFile>();
    for (const route of this.msgRouter.routes()) files.add(route.service.file);
    for (const route of this.queryRouter.routes()) files.add(route.service.file);
    const extra = this.moduleManager.modules().flatMap((m) => [...(m.types ?? [])]);
    this.typeRegistry = buildTypeRegistry([...files, ...extra]);
    this.txRunner = new TxRunner({
      typeRegistry: this.typeRegistry,
      msgRouter: this.msgRouter,
      anteHandler: options.anteHandler,
    });
  }

  // ---- wiring hooks (call before load) ------------------------------------------------------

  /** Sets the store loader consulted by `load()` (docs/CONTRACT.md §2.6). */
  setStoreLoader(loader: StoreLoader): void {
    if (this.multiStore !== undefined) throw new AppStateError("setStoreLoader must be called before load()");
    this.storeLoader = loader;
  }

  /** Sets where Info.app_version comes from (the upgrade module's protocol version). */
  setAppVersionProvider(provider: AppVersionProvider): void {
    this.appVersionProvider = provider;
  }

  /**
   * A context for work done ahead of the next block, on a branch of the committed state that records what it reads
   * (the store's AheadBranch: its writes join the block's branch only if the block has not written what it read).
   * The header is the next block's as far as it is known (aheadHeader: its time, proposer and hash throw).
   * Undefined before the first block, while a block awaits Commit, or on a store that cannot branch ahead.
   */
  aheadContext(events: EventManager): { ctx: Context; branch: AheadBranchMultiStore } | undefined {
    const last = this.store.lastCommit();
    if (last.version === 0n || this.staged !== undefined || this.store.aheadBranch === undefined) return undefined;
    const branch = this.store.aheadBranch();
    const header = aheadHeader(last.version + 1n, this.chainId, last.appHash);
    return { ctx: this.newContext(branch, "finalize", header, events), branch };
  }

  /**
   * Calls `listener` with the height after every Commit (e.g. periodic snapshots); it must not throw or block. A
   * promise it returns is work it started for the wait before the next block, part of the work behind the commit
   * ({@link settledAfterCommit}); anything else it returns is ignored.
   */
  onCommit(listener: (height: bigint) => unknown): void {
    this.commitListeners.push(listener);
  }

  /**
   * Resolves once the work the node does behind the last commit, in the wait before the next block, is over: the
   * store's (its tree pages' write), what commit listeners started (the next block's migration steps done ahead),
   * then a garbage collection when one is due and no next block has started (idle-collection.ts). Never rejects:
   * a failure there is the store's or the listener's to report.
   */
  settledAfterCommit(): Promise<void> {
    return this.workBehindCommit;
  }

  /** Sets the handler that receives the full version map at InitChain (the upgrade module stores it). */
  onInitChainVersionMap(handler: InitChainVersionMapHandler): void {
    this.versionMapHandler = handler;
  }

  /** Opens the store (applying the store loader's upgrades, if any). */
  async load(): Promise<void> {
    if (this.multiStore !== undefined) throw new AppStateError("the app is already loaded");
    const { store, upgrades } = await loadStore(
      this.options.openStore,
      this.moduleManager.storeKeys(),
      this.storeLoader,
      this.options.readCommittedHeight,
    );
    this.multiStore = store;
    this.loadedUpgrades = upgrades;
    if (upgrades !== undefined) this.logger.info({ upgrades }, "store upgrades will be applied with the next commit");
    this.checkState = store.branch();
  }

  /** The opened multistore. */
  get store(): CommitMultiStore {
    if (this.multiStore === undefined) throw new AppStateError("the app is not loaded; call load() first");
    return this.multiStore;
  }

  /** Store upgrades `load()` applied (undefined when none). */
  get storeUpgrades(): StoreUpgrades | undefined {
    return this.loadedUpgrades;
  }

  /** The last committed height (0 before the first commit). */
  lastBlockHeight(): bigint {
    return this.store.lastCommit().version;
  }

  /**
   * Closes the store and opens it again, forgetting anything in flight: for a state-sync restore,
   * which replaces the store on disk with a snapshot's state (src/snapshots).
   */
  async reload(): Promise<void> {
    await this.close();
    this.staged = undefined;
    this.genesis = undefined;
    this.lastHeader = undefined;
    this.checkState = undefined;
    await this.load();
  }

  /** Closes the store. */
  async close(): Promise<void> {
    if (this.multiStore === undefined) return;
    const store = this.multiStore;
    this.multiStore = undefined;
    await store.close();
  }

  // ---- ABCI ---------------------------------------------------------------------------------

  /** Info: last committed height and app hash, software version, protocol version. */
  async info(_request?: RequestInfo): Promise<ResponseInfo> {
    const last = this.store.lastCommit();
    return create(ResponseInfoSchema, {
      data: this.name,
      version: this.version,
      appVersion: await this.committedAppVersion(),
      lastBlockHeight: last.version,
      lastBlockAppHash: lastAppHash(this.store),
    });
  }

  /**
   * InitChain: parses `app_state_bytes`, validates every module's genesis (GenesisError naming the
   * module), runs InitGenesis in order and the version-map handler. Nothing is committed: the first
   * block builds on this state.
   */
  async initChain(request: RequestInitChain): Promise<ResponseInitChain> {
    const store = this.store;
    if (request.chainId !== this.chainId) {
      throw new AppStateError(`invalid chain-id on InitChain; expected: ${this.chainId}, got: ${request.chainId}`);
    }
    if (store.lastCommit().version > 0n) {
      throw new AppStateError(`InitChain called on a state that has committed height ${store.lastCommit().version}`);
    }
    if (this.staged !== undefined) {
      store.discardStaged();
      this.staged = undefined;
    }
    const initialHeight = request.initialHeight > 0n ? request.initialHeight : 1n;
    // Genesis validation refuses such a genesis; an engine that sends one anyway gets this, not a store bug.
    if (initialHeight > MAX_VERSION) {
      throw new AppStateError(
        `initial_height ${initialHeight} is above ${MAX_VERSION} (2^53 − 1), the highest height the state store can number`,
      );
    }
    const appState = parseAppState(request.appStateBytes);
    this.moduleManager.validateGenesis(appState);
    const time = request.time ?? zeroTimestamp();
    const branch = store.branch();
    const ctx = this.newContext(branch, "genesis", {
      height: 0n,
      time,
      chainId: this.chainId,
      proposerAddress: new Uint8Array(),
      lastAppHash: new Uint8Array(),
      hash: new Uint8Array(),
    });
    const validators = await this.moduleManager.initGenesis(ctx, appState);
    await this.versionMapHandler?.(ctx, this.moduleManager.getVersionMap());
    const enableHeight = request.consensusParams?.abci?.voteExtensionsEnableHeight ?? 0n;
    if (this.options.voteExtensions !== undefined) await this.options.voteExtensions.setEnableHeight(ctx, enableHeight);
    if (request.validators.length > 0 && validators.length > 0) checkGenesisValidators(request.validators, validators);
    // As upstream's InitChain: block `initial_height` is the store's first version, so heights,
    // versions and historical queries agree from the first block on.
    if (initialHeight > 1n && store.lastCommit().version === 0n) store.setInitialVersion(initialHeight);
    this.genesis = { branch, initialHeight, time };
    this.checkState = store.branch();
    return create(ResponseInitChainSchema, {
      validators: toAbciValidatorUpdates(validators),
      appHash: lastAppHash(store),
    });
  }

  /**
   * CheckTx: the ante handler only, against the check state (sequences advance there). Calls are
   * serialised, so two txs of one account cannot both pass with the same sequence. With
   * `events: false` (a caller that reads no events: the engine's broadcast_tx_sync and rechecks) the
   * answer's `events` stay empty.
   */
  async checkTx(request: RequestCheckTx, options?: { events?: boolean }): Promise<ResponseCheckTx> {
    const previous = this.checkQueue;
    let release = (): void => {};
    this.checkQueue = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    try {
      return await this.checkTxNow(request, options?.events !== false);
    } finally {
      release();
    }
  }

  /**
   * The part of CheckTx that reads no state (decode, message checks), for the engine to run before a
   * tx waits for the app's lock: garbage is refused at once and never queues behind blocks. Returns
   * the CheckTx answer for a refused tx, undefined when the tx must go on to CheckTx.
   */
  precheckTx(tx: Uint8Array): ResponseCheckTx | undefined {
    const result = this.txRunner.precheck(tx);
    if (result === undefined) return undefined;
    return create(ResponseCheckTxSchema, {
      code: result.code,
      log: result.log,
      gasWanted: result.gasWanted,
      gasUsed: result.gasUsed,
      codespace: result.codespace,
    });
  }

  /**
   * Starts CheckTx's state-reading preparation of a prechecked tx outside the lock (signature checks
   * on a worker thread against the check state), so it overlaps with other txs and with blocks.
   * Only warms caches; CheckTx still runs every check. Undefined when there is nothing to prepare (the ante
   * handler's signature checks stay on this thread, libsecp256k1): no context, gas meter or promise per tx.
   */
  prepareCheckTx(tx: Uint8Array): Promise<void> | undefined {
    if (!this.txRunner.preparesCheck()) return undefined;
    let ctx: Context;
    try {
      ctx = this.newContext(this.checkState ?? this.store.branch(), "check", this.checkHeader());
    } catch {
      return undefined; // e.g. a store being closed: CheckTx will say what is wrong
    }
    return this.txRunner.prepareCheck(ctx, tx);
  }

  private async checkTxNow(request: RequestCheckTx, withEvents: boolean): Promise<ResponseCheckTx> {
    const mode: ExecMode = request.type === CheckTxType.RECHECK ? "recheck" : "check";
    const checkState = this.checkState ?? this.store.branch();
    // A caller that reads no events gets none built (the ante handler's fee and signer events).
    const ctx = this.newContext(checkState, mode, this.checkHeader(), withEvents ? undefined : DISCARDED_EVENTS);
    const result = await this.txRunner.run(ctx, request.tx);
    // A literal message (every field, as `create` would set them): one per tx on the node's main thread.
    return {
      $typeName: "tendermint.abci.ResponseCheckTx",
      code: result.code,
      data: result.data,
      log: result.log,
      info: "",
      gasWanted: result.gasWanted,
      gasUsed: result.gasUsed,
      events: withEvents ? toAbciEvents(result.events) : [],
      codespace: result.codespace,
    };
  }

  /**
   * PrepareProposal: the txs in order, dropping from the end what does not fit max_tx_bytes; with vote extensions
   * on at the previous height, the previous height's extended commit goes first (extended-commit.ts).
   */
  async prepareProposal(request: RequestPrepareProposal): Promise<ResponsePrepareProposal> {
    const txs: Uint8Array[] = [];
    let size = 0n;
    const commitTx = (await this.carriesExtendedCommitAt(request.height))
      ? encodeExtendedCommitTx(request.localLastCommit ?? create(ExtendedCommitInfoSchema))
      : undefined;
    const candidates = commitTx === undefined ? request.txs : [commitTx, ...request.txs];
    for (const tx of candidates) {
      // Size of the tx inside the block's Data{txs} message: tag + length varint + bytes.
      const entry = 1n + BigInt(uvarintLength(tx.length)) + BigInt(tx.length);
      if (request.maxTxBytes > 0n && size + entry > request.maxTxBytes) break;
      size += entry;
      txs.push(tx);
    }
    return create(ResponsePrepareProposalSchema, { txs });
  }

  /**
   * ProcessProposal: txs are checked at execution (the app keeps no mempool of its own); with vote extensions on at
   * the previous height, the block must open with that height's extended commit, valid (extended-commit.ts), and
   * otherwise must not carry one.
   */
  async processProposal(request: RequestProcessProposal): Promise<ResponseProcessProposal> {
    const problem = await this.proposalProblem(request);
    if (problem === undefined) {
      return create(ResponseProcessProposalSchema, { status: ResponseProcessProposal_ProposalStatus.ACCEPT });
    }
    this.logger.warn({ height: request.height.toString(), problem }, `rejecting the proposed block: ${problem}`);
    return create(ResponseProcessProposalSchema, { status: ResponseProcessProposal_ProposalStatus.REJECT });
  }

  private async proposalProblem(request: RequestProcessProposal): Promise<string | undefined> {
    const handler = this.options.voteExtensions;
    const first = request.txs[0];
    if (handler === undefined || !(await this.carriesExtendedCommitAt(request.height))) {
      return isExtendedCommitTx(first)
        ? "the block carries an extended commit, but vote extensions are off"
        : undefined;
    }
    if (!isExtendedCommitTx(first))
      return `the block does not open with the extended commit of height ${request.height - 1n}`;
    let commit: ExtendedCommitInfo;
    try {
      commit = this.decodeCommitTx(first);
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
    const ctx = await this.committedStateContext();
    return extendedCommitProblem(commit, request.proposedLastCommit ?? create(CommitInfoSchema), {
      height: request.height - 1n,
      chainId: this.chainId,
      pubKeyOf: (address) => handler.consensusKeyOf(ctx, address),
      acceptExtension: (extension) => handler.verifyVoteExtension(extension),
    });
  }

  /**
   * A read context at the latest committed height for the App's own reads in consensus methods: not held to
   * query-gas-limit, which bounds clients' queries, not the node's work.
   */
  private async committedStateContext(): Promise<Context> {
    const ctx = this.latestQueryContext() ?? (await this.createQueryContext());
    return ctx.with({ gasMeter: newInfiniteGasMeter() });
  }

  /**
   * Whether the block `request` would keep its due upgrade plan from being applied (the readiness gate postpones or
   * abandons it): evaluated on a throwaway branch of the committed state, the block's extended commit recorded
   * first as PreBlock would. The replay mode asks before switching releases at a plan's height.
   */
  async holdsDuePlan(request: RequestFinalizeBlock): Promise<boolean> {
    const handler = this.options.voteExtensions;
    if (handler?.holdsDuePlan === undefined || this.store.lastCommit().version === 0n) return false;
    const ctx = this.newContext(this.store.branch(), "finalize", {
      height: request.height,
      time: request.time ?? zeroTimestamp(),
      chainId: this.chainId,
      proposerAddress: request.proposerAddress,
      lastAppHash: this.store.lastCommit().appHash,
      hash: request.hash,
    });
    const first = request.txs[0];
    if (isExtendedCommitTx(first) && carriesExtendedCommit(await handler.enableHeight(ctx), request.height)) {
      await handler.recordExtendedCommit(ctx, this.decodeCommitTx(first));
    }
    return handler.holdsDuePlan(ctx);
  }

  /** The commit an extended-commit tx carries (decodeExtendedCommitTx), decoded once for the block's calls. */
  private decodeCommitTx(tx: Uint8Array): ExtendedCommitInfo {
    const last = this.decodedCommit;
    if (last !== undefined && Buffer.compare(last.tx, tx) === 0) return last.commit;
    const commit = decodeExtendedCommitTx(tx);
    this.decodedCommit = { tx: tx.slice(), commit };
    return commit;
  }

  /** Whether the block at `height` opens with the extended commit of `height − 1`, by the latest committed state. */
  private async carriesExtendedCommitAt(height: bigint): Promise<boolean> {
    const handler = this.options.voteExtensions;
    const last = this.store.lastCommit();
    if (handler === undefined || last.version === 0n) return false;
    const enableHeight = await this.committedEnableHeight.at(last, async () =>
      handler.enableHeight(await this.committedStateContext()),
    );
    return carriesExtendedCommit(enableHeight, height);
  }

  /** ExtendVote: the vote-extension handler's extension, read against the latest committed state; else empty. */
  async extendVote(request: RequestExtendVote): Promise<ResponseExtendVote> {
    const handler = this.options.voteExtensions;
    if (handler === undefined) return create(ResponseExtendVoteSchema);
    let ctx: Context | undefined;
    try {
      ctx = await this.committedStateContext();
    } catch {
      ctx = undefined; // before the first block: nothing committed to read
    }
    return create(ResponseExtendVoteSchema, { voteExtension: await handler.extendVote(ctx, request.height) });
  }

  /** VerifyVoteExtension: the handler's verdict; without one, only an empty extension is accepted. */
  async verifyVoteExtension(request: RequestVerifyVoteExtension): Promise<ResponseVerifyVoteExtension> {
    const handler = this.options.voteExtensions;
    const ok =
      handler === undefined ? request.voteExtension.length === 0 : handler.verifyVoteExtension(request.voteExtension);
    const status = ok
      ? ResponseVerifyVoteExtension_VerifyStatus.ACCEPT
      : ResponseVerifyVoteExtension_VerifyStatus.REJECT;
    return create(ResponseVerifyVoteExtensionSchema, { status });
  }

  /**
   * FinalizeBlock: PreBlock → BeginBlock → txs → EndBlock on one branch, then stage it. Returns one
   * result per tx, the block's events, validator updates and the new app hash. A thrown error
   * (HaltError from the upgrade guard, or a failing hook) leaves nothing staged.
   */
  async finalizeBlock(request: RequestFinalizeBlock): Promise<ResponseFinalizeBlock> {
    this.finalizeCalls++;
    const store = this.store;
    const height = request.height;
    if (this.staged !== undefined) {
      if (this.staged.height !== height) {
        throw new AppStateError(`FinalizeBlock(${height}) while block ${this.staged.height} awaits Commit`);
      }
      // The engine reconnected and is replaying this height: forget the uncommitted result.
      store.discardStaged();
      this.staged = undefined;
    }
    const last = store.lastCommit();
    const expected = last.version === 0n ? (this.genesis?.initialHeight ?? 1n) : last.version + 1n;
    if (height !== expected) {
      throw new AppStateError(`invalid height in FinalizeBlock: expected ${expected}, got ${height}`);
    }
    const time = request.time ?? zeroTimestamp();
    this.checkHaltConfig(height, time);

    let branch: BranchMultiStore;
    if (last.version === 0n) {
      if (this.genesis === undefined) throw new AppStateError("FinalizeBlock before InitChain on a fresh state");
      branch = this.genesis.branch;
    } else {
      branch = store.branch();
    }
    const header: Context["header"] = {
      height,
      time,
      chainId: this.chainId,
      proposerAddress: request.proposerAddress,
      lastAppHash: last.appHash,
      hash: request.hash,
      lastCommitAddresses: (request.decidedLastCommit?.votes ?? []).flatMap((vote) =>
        vote.validator === undefined ? [] : [vote.validator.address],
      ),
    };
    const blockCtx = this.newContext(branch, "finalize", header);
    const versionBefore = await this.appVersionOf(blockCtx);

    const blockEvents: AbciEvent[] = [];
    const runHook = async <T>(mode: string, hook: (ctx: Context) => Promise<T>): Promise<T> => {
      const events = new EventManager();
      const result = await hook(blockCtx.with({ events }));
      for (const event of events.events()) blockEvents.push(appendAttributes(event, { mode }));
      return result;
    };
    // With vote extensions on at H−1 the first tx is H−1's extended commit (checked in ProcessProposal): it is not
    // run as a tx; the handler records it at the start of PreBlock, before any module's hook reads it.
    const handler = this.options.voteExtensions;
    // Nothing is written yet: the branch reads as the latest commit (at genesis, InitChain's branch, read directly).
    const enableBefore =
      handler === undefined
        ? 0n
        : last.version === 0n
          ? await handler.enableHeight(blockCtx)
          : await this.committedEnableHeight.at(last, () => handler.enableHeight(blockCtx));
    let commit: ExtendedCommitInfo | undefined;
    if (handler !== undefined && isExtendedCommitTx(request.txs[0]) && carriesExtendedCommit(enableBefore, height)) {
      commit = this.decodeCommitTx(request.txs[0]);
    }
    await runHook("PreBlock", async (ctx) => {
      if (commit !== undefined) await handler?.recordExtendedCommit(ctx, commit);
      await this.moduleManager.preBlock(ctx);
    });
    await runHook("BeginBlock", (ctx) => this.moduleManager.beginBlock(ctx));
    // Each tx's result becomes its ABCI message as it is made (see runBlock).
    const txResults = await this.txRunner.runBlock(
      blockCtx,
      commit === undefined ? request.txs : request.txs.slice(1),
      toExecTxResult,
    );
    const validatorUpdates = await runHook("EndBlock", (ctx) => this.moduleManager.endBlock(ctx));
    const versionAfter = await this.appVersionOf(blockCtx);
    const enableAfter = handler === undefined ? 0n : await handler.enableHeight(blockCtx);

    const commitInfo = await store.stage(branch);
    if (commitInfo.version !== height) {
      store.discardStaged();
      throw new AppStateError(
        `the store would commit block ${height} as version ${commitInfo.version}; open it with initialVersion = the genesis initial_height`,
      );
    }
    this.staged = { height, header };
    this.genesis = undefined;
    return create(ResponseFinalizeBlockSchema, {
      events: toAbciEvents(blockEvents),
      txResults: commit === undefined ? txResults : [COMMIT_TX_RESULT, ...txResults],
      validatorUpdates: toAbciValidatorUpdates(validatorUpdates),
      consensusParamUpdates: consensusParamUpdatesOf(versionBefore, versionAfter, enableBefore, enableAfter),
      appHash: commitInfo.appHash,
    });
  }

  /** Commit: persists the staged block; resets the check state; returns the retain height. */
  async commit(): Promise<ResponseCommit> {
    const staged = this.staged;
    if (staged === undefined) throw new AppStateError("Commit without a finalized block");
    const info = await this.store.commit();
    this.staged = undefined;
    this.lastHeader = staged.header;
    this.checkState = this.store.branch();
    const retainHeight = blockRetentionHeight(
      info.version,
      this.options.minRetainBlocks ?? 0n,
      this.options.blockRetention,
    );
    const behind: Promise<unknown>[] = [];
    const storeWork = this.store.workBehindCommit?.();
    if (storeWork !== undefined) behind.push(storeWork);
    for (const listener of this.commitListeners) {
      const work = listener(info.version);
      if (work instanceof Promise) behind.push(work);
    }
    const finalizeCalls = this.finalizeCalls;
    this.workBehindCommit = Promise.allSettled(behind).then(() => {
      if (this.finalizeCalls === finalizeCalls) this.idleCollector?.collectIfDue();
    });
    return create(ResponseCommitSchema, { retainHeight });
  }

  /** Query: gRPC method paths, `/store/<name>/key|subspace`, `/app/simulate`, `/app/version`. */
  async query(request: RequestQuery): Promise<ResponseQuery> {
    return handleAbciQuery(this, request);
  }

  // ---- library API --------------------------------------------------------------------------

  /**
   * A read context at a committed height (0 or undefined = latest) for gRPC, REST and the CLI.
   * Throws the store's InvalidVersionError (negative), FutureVersionError (above latest) and
   * PrunedVersionError (pruned) with docs/CONTRACT.md §7's texts, and ChainError sdk 26 before the first block.
   */
  /**
   * createQueryContext's common case without a promise: a query context at the latest version
   * (`height` absent, 0 or the latest) once that version's shared view is built; undefined
   * otherwise (then createQueryContext builds it, or throws the height error).
   */
  latestQueryContext(height?: bigint): Context | undefined {
    const latest = this.store.lastCommit().version;
    if (latest === 0n || (height !== undefined && height !== 0n && height !== latest)) return undefined;
    const base = this.latestQueryBase;
    if (
      base === undefined ||
      base.store !== this.store ||
      base.version !== latest ||
      base.lastHeader !== this.lastHeader
    ) {
      return undefined;
    }
    return this.newQueryContext(base.view, base.header);
  }

  async createQueryContext(height?: bigint): Promise<Context> {
    const latest = this.store.lastCommit().version;
    const requested = height ?? 0n;
    if (requested < 0n) throw new InvalidVersionError(requested);
    if (latest === 0n) throw ErrInvalidHeight.wrap(`${this.name} is not ready; please wait for first block`);
    if (requested > latest) throw new FutureVersionError(requested, latest);
    const version = requested === 0n ? latest : requested;
    const store = this.store;
    let base = this.latestQueryBase;
    // Most queries read the latest version: its view and header are built once per commit and
    // shared (both are read-only); each query still gets its own branch, gas meter and events.
    if (
      version !== latest ||
      base === undefined ||
      base.store !== store ||
      base.version !== latest ||
      base.lastHeader !== this.lastHeader
    ) {
      const view = await store.view(version);
      const header: Context["header"] = {
        height: version,
        time: version === latest ? (this.lastHeader?.time ?? zeroTimestamp()) : zeroTimestamp(),
        chainId: this.chainId,
        proposerAddress: new Uint8Array(),
        lastAppHash: new Uint8Array(),
        hash: new Uint8Array(),
      };
      base = { store, version, lastHeader: this.lastHeader, view, header };
      if (version === latest) {
        base.view = sharedView(view);
        this.latestQueryBase = base;
      }
    }
    return this.newQueryContext(base.view, base.header);
  }

  // A query's own branch over the shared view, with a meter bounded by query-gas-limit when one is set.
  private newQueryContext(view: VersionView, header: Context["header"]): Context {
    const ctx = this.newContext(branchOverView(view), "query", header);
    const limit = this.options.queryGasLimit ?? 0n;
    return limit > 0n ? ctx.with({ gasMeter: newQueryGasMeter(limit) }) : ctx;
  }

  /**
   * Simulates a tx against the latest state plus the mempool's changes: no signature checks, no gas
   * limit, nothing kept. Throws the tx's error (ChainError with its code) when it fails.
   */
  async simulate(txBytes: Uint8Array): Promise<SimulateResult> {
    const base = (this.checkState ?? this.store.branch()).branch();
    const ctx = this.newContext(base, "simulate", this.checkHeader());
    const result = await this.txRunner.run(ctx, txBytes);
    if (result.code !== 0) throw toThrowable(result);
    // Upstream reports the limit of the gas meter simulation ran under: an infinite one, whose limit is MaxUint64
    // (a simulated tx's own gas limit is typically 0, as CosmJS sends it).
    return { gasInfo: { gasWanted: SIMULATION_GAS_WANTED, gasUsed: result.gasUsed }, result };
  }

  /** The SimulationResponse JSON upstream's `/app/simulate` answers with. */
  simulationResponseJson(simulation: SimulateResult): JsonValue {
    return toJson(
      SimulationResponseSchema,
      create(SimulationResponseSchema, {
        gasInfo: simulation.gasInfo,
        result: {
          data: simulation.result.data,
          log: simulation.result.log,
          events: toAbciEvents(simulation.result.events),
          msgResponses: simulation.result.msgResponses,
        },
      }),
      { useProtoFieldName: true, alwaysEmitImplicit: true, registry: this.typeRegistry },
    );
  }

  /** Runs a genesis tx (a gentx) in InitChain's context: height 0, no gas limit, account number 0 in sign bytes. */
  async deliverGenesisTx(ctx: Context, txBytes: Uint8Array): Promise<TxResult> {
    return this.txRunner.run(ctx.with({ mode: "genesis" }), txBytes);
  }

  /** The app state at the latest height as genesis `app_state` JSON (module → genesis). */
  async exportAppState(): Promise<Record<string, JsonValue>> {
    // The whole state, whatever query-gas-limit says about a single query.
    const ctx = (await this.createQueryContext()).with({ gasMeter: newInfiniteGasMeter() });
    return this.moduleManager.exportGenesis(ctx);
  }

  /** The protocol version at the latest committed state (0 without a provider or before the first commit). */
  async committedAppVersion(): Promise<bigint> {
    if (this.appVersionProvider === undefined || this.store.lastCommit().version === 0n) return 0n;
    return this.appVersionOf(await this.createQueryContext());
  }

  /** A context over `multiStore` (tests and drivers; modules get theirs from the app). */
  newContext(
    multiStore: BranchMultiStore,
    mode: ExecMode,
    header: Context["header"],
    events: EventManager = new EventManager(),
  ): Context {
    return new Context({
      header,
      mode,
      multiStore,
      gasMeter: newInfiniteGasMeter(),
      events,
      logger: this.logger,
      txBytes: NO_TX_BYTES,
      minGasPrices: this.options.minGasPrices ?? [],
      kvGasConfig: KV_GAS_CONFIG,
    });
  }

  // ---- internals ----------------------------------------------------------------------------

  private async appVersionOf(ctx: Context): Promise<bigint> {
    if (this.appVersionProvider === undefined) return 0n;
    return this.appVersionProvider(ctx.with({ gasMeter: newInfiniteGasMeter(), events: new EventManager() }));
  }

  private checkHeader(): Context["header"] {
    const last = this.store.lastCommit();
    return {
      height: last.version,
      time: this.lastHeader?.time ?? this.genesis?.time ?? zeroTimestamp(),
      chainId: this.chainId,
      proposerAddress: new Uint8Array(),
      lastAppHash: last.appHash,
      hash: new Uint8Array(),
    };
  }

  // app.toml halt-height / halt-time, as upstream's checkHalt: blocks after them fail.
  private checkHaltConfig(height: bigint, time: Timestamp): void {
    const haltHeight = this.options.haltHeight ?? 0n;
    const haltTime = this.options.haltTime ?? 0n;
    if (haltHeight > 0n && height > haltHeight) {
      throw new HaltError(`halt per configuration height ${haltHeight} time ${haltTime}`, {
        exitCode: CONFIG_HALT_EXIT_CODE,
        reason: "halt-height",
      });
    }
    if (haltTime > 0n && time.seconds > haltTime) {
      throw new HaltError(`halt per configuration height ${haltHeight} time ${haltTime}`, {
        exitCode: CONFIG_HALT_EXIT_CODE,
        reason: "halt-time",
      });
    }
  }
}

// Before the first commit upstream reports sha256 of nothing as the app hash (clients reject an empty one).
const EMPTY_APP_HASH = new Uint8Array(createHash("sha256").digest());

function lastAppHash(store: CommitMultiStore): Uint8Array {
  const last = store.lastCommit();
  return last.version === 0n || last.appHash.length === 0 ? EMPTY_APP_HASH : last.appHash;
}

function toThrowable(result: TxResult): Error {
  if (result.error instanceof Error) return result.error;
  const root = lookupError(result.codespace, result.code);
  return root === undefined ? new Error(result.log) : new ChainError(root, result.log);
}

/**
 * FinalizeBlock's consensus-parameter update: only the sections this block changed, as the engine replaces whole
 * sections. The protocol version (an applied upgrade: the engine puts it in later headers) and the vote extensions'
 * enable height (an upgrade handler that turned them on, enableVoteExtensions in x/upgrade).
 */
function consensusParamUpdatesOf(
  versionBefore: bigint,
  versionAfter: bigint,
  enableBefore: bigint,
  enableAfter: bigint,
): ConsensusParams | undefined {
  if (versionAfter === versionBefore && enableAfter === enableBefore) return undefined;
  return create(ConsensusParamsSchema, {
    ...(versionAfter === versionBefore ? {} : { version: { app: versionAfter } }),
    ...(enableAfter === enableBefore ? {} : { abci: { voteExtensionsEnableHeight: enableAfter } }),
  });
}
