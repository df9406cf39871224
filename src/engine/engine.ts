// The embedded single-validator consensus engine. One height goes:
//   reap mempool → PrepareProposal → build block → ProcessProposal → FinalizeBlock → sign precommit
//   → save block + commit + results + tx index + state (ONE batch) → Commit → mempool update/recheck.
//
// Crash safety rests on that order: the store never lags the app. On start, Info tells the app's height:
//   app = 0             → InitChain (and, if the store has blocks, replay them all);
//   app < store         → replay the stored blocks app+1…store through FinalizeBlock + Commit (same blocks,
//                         so the app must reach the same app hash, which is checked);
//   app = store         → check the app hash and carry on;
//   app > store         → refuse to start (blocks.db was removed or belongs to another chain).
// A halt requested by the app during FinalizeBlock(H) saves nothing of H and commits nothing: a restart with the
// same binary halts at the same place, and the right binary produces H afresh.
import { create } from "@bufbuild/protobuf";
import { voteExtensionSignBytes } from "../app/extended-commit.ts";
import { SIGN_STEP } from "../config/priv-validator-state.ts";
import { UserError } from "../errors/user-error.ts";
import {
  type ExtendedCommitInfo,
  RequestCommitSchema,
  RequestExtendVoteSchema,
  RequestInfoSchema,
  RequestInitChainSchema,
  RequestPrepareProposalSchema,
  RequestProcessProposalSchema,
  type ResponseFinalizeBlock,
  type ResponseInfo,
  ResponseProcessProposal_ProposalStatus,
  ValidatorUpdateSchema,
} from "../gen/tendermint/abci/types_pb.js";
import { BlockIDFlag } from "../gen/tendermint/types/validator_pb.js";
import { type AbciApp, isHaltRequest } from "./abci-app.ts";
import {
  ConsensusRuleError,
  commitInfoOf,
  emptyCommit,
  extendedCommitInfoOf,
  finalizeRequestOf,
  genesisState,
  lastCommitMillis,
  makeBlock,
  maxDataBytes,
  nextBlockTime,
  nextState,
  toProtoTimestamp,
  voteTime,
} from "./block-execution.ts";
import type { BlockStore } from "./block-store.ts";
import type { EngineGenesis } from "./genesis.ts";
import { SignedMsgType, voteSignBytes } from "./hashing/encode.ts";
import { validatorSetHash } from "./hashing/hashes.ts";
import { DEFAULT_MEMPOOL_LIMITS, Mempool, type MempoolLimits, txProtoSize } from "./mempool.ts";
import { Mutex } from "./mutex.ts";
import { consensusParamsToProto } from "./params.ts";
import type { PrivValidator } from "./priv-validator.ts";
import type { EngineState } from "./state.ts";
import { timestampToMillis, ZERO_TIME } from "./time.ts";
import { type Block, type BlockId, BlockIdFlag, type Commit } from "./types.ts";
import { publicKeyToProto } from "./validator-set.ts";

/** CometBFT version strings the engine reports (it speaks CometBFT v0.38's RPC and ABCI). */
export const ENGINE_VERSION = { core: "0.38.25-chaind", abci: "2.0.0", block: 11n, p2p: 8n } as const;

/** A pino-compatible logger (pino's Logger satisfies it). */
export interface EngineLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

const silentLogger: EngineLogger = { info() {}, warn() {}, error() {} };

/** config.toml [consensus] settings the engine uses. */
export interface EngineConsensusConfig {
  /** Pause after a commit before the next block (`timeout_commit`). */
  timeoutCommitMs: number;
  /** Make blocks without txs (`create_empty_blocks`). */
  createEmptyBlocks: boolean;
  /** With no txs, make an empty block at least this often (`create_empty_blocks_interval`; 0 = off). */
  createEmptyBlocksIntervalMs: number;
}

/** What {@link Engine.start} needs. */
export interface EngineOptions {
  app: AbciApp;
  store: BlockStore;
  genesis: EngineGenesis;
  privValidator: PrivValidator;
  consensus?: Partial<EngineConsensusConfig>;
  mempool?: Partial<MempoolLimits>;
  /** app.toml halt-height: stop after committing this height (0 = off). */
  haltHeight?: bigint;
  /** app.toml halt-time: stop after committing the first block whose time (Unix seconds) reaches it (0 = off). */
  haltTime?: bigint;
  logger?: EngineLogger;
}

/** Why the engine stopped producing blocks, and the process exit code that goes with it. */
export type EngineExit =
  | { reason: "stopped"; height: bigint; exitCode: 0 }
  | { reason: "halt-height" | "halt-time"; height: bigint; exitCode: 0 }
  | { reason: "app-halt"; height: bigint; exitCode: number; error: Error };

/** Emitted after each committed block. */
export interface NewBlockEvent {
  block: Block;
  blockId: BlockId;
  results: ResponseFinalizeBlock;
  /** The encoded block's size in bytes (the `consensus_block_size_bytes` metric). */
  blockSize?: number;
}

/** Raised when the app and the block store disagree in a way the engine cannot repair. */
export class EngineStartError extends UserError {
  override name = "EngineStartError";
}

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex").toUpperCase();

/** The engine; create it with {@link Engine.start}, then call {@link Engine.run}. */
export class Engine {
  readonly app: AbciApp;
  readonly store: BlockStore;
  readonly genesis: EngineGenesis;
  readonly privValidator: PrivValidator;
  readonly mempool: Mempool;
  readonly consensus: EngineConsensusConfig;
  /** The Info answer of the handshake (the RPC's node_info.protocol_version.app). */
  readonly handshakeInfo: ResponseInfo;
  private readonly lock = new Mutex();
  private readonly logger: EngineLogger;
  private readonly haltHeight: bigint;
  private readonly haltTime: bigint;
  private current: EngineState;
  private lastSeenCommit: Commit;
  /** This validator's vote extension of its latest precommit (vote extensions on), for the next proposal. */
  private ownExtension: OwnExtension | undefined;
  private lastHeaderAppHash: Uint8Array | undefined;
  /**
   * The last block was made with nothing from the mempool (a proof block, or one create_empty_blocks_interval
   * forced), other than the chain's first: its own app-hash change asks for no proof block (needProofBlock).
   */
  private lastBlockIdle = false;
  private stopRequested = false;
  private wake: (() => void) | undefined;
  private running: Promise<EngineExit> | undefined;
  private readonly blockListeners = new Set<(event: NewBlockEvent) => void>();
  private committed = 0n;

  private constructor(options: EngineOptions, info: ResponseInfo, state: EngineState, lastSeenCommit: Commit) {
    this.app = options.app;
    this.store = options.store;
    // Built after the handshake: the app has committed every saved height by now.
    this.committed = options.store.height;
    this.genesis = options.genesis;
    this.privValidator = options.privValidator;
    this.logger = options.logger ?? silentLogger;
    this.haltHeight = options.haltHeight ?? 0n;
    this.haltTime = options.haltTime ?? 0n;
    this.consensus = {
      timeoutCommitMs: options.consensus?.timeoutCommitMs ?? 1000,
      createEmptyBlocks: options.consensus?.createEmptyBlocks ?? true,
      createEmptyBlocksIntervalMs: options.consensus?.createEmptyBlocksIntervalMs ?? 0,
    };
    this.handshakeInfo = info;
    this.current = state;
    this.lastSeenCommit = lastSeenCommit;
    this.mempool = new Mempool({
      app: options.app,
      limits: { ...DEFAULT_MEMPOOL_LIMITS, ...options.mempool },
      maxGas: () => this.current.consensusParams.block.maxGas,
      run: (fn) => this.lock.run(fn),
    });
  }

  /** Handshakes with the app (Info, then InitChain or replay as needed) and returns an engine ready to run. */
  static async start(options: EngineOptions): Promise<Engine> {
    const { app, store, genesis } = options;
    const logger = options.logger ?? silentLogger;
    if (store.state !== undefined && store.state.chainId !== genesis.chainId) {
      throw new EngineStartError(
        `the block store belongs to chain ${store.state.chainId} but genesis.json says ${genesis.chainId}`,
      );
    }
    // A damaged block store stops the node here, naming the file, instead of serving wrong blocks.
    await store.verifyRecent();
    const info = await app.info(
      create(RequestInfoSchema, {
        version: ENGINE_VERSION.core,
        blockVersion: ENGINE_VERSION.block,
        p2pVersion: ENGINE_VERSION.p2p,
        abciVersion: ENGINE_VERSION.abci,
      }),
    );
    const appHeight = info.lastBlockHeight;
    const storeHeight = store.height;
    if (appHeight < 0n) throw new EngineStartError(`the app reported a negative last block height ${appHeight}`);
    logger.info({ appHeight: appHeight.toString(), storeHeight: storeHeight.toString() }, "ABCI handshake");
    let state: EngineState;
    if (appHeight === 0n) {
      const init = await app.initChain(
        create(RequestInitChainSchema, {
          time: toProtoTimestamp(genesis.genesisTime),
          chainId: genesis.chainId,
          consensusParams: consensusParamsToProto(genesis.consensusParams),
          validators: genesis.validators.map((v) =>
            create(ValidatorUpdateSchema, { pubKey: publicKeyToProto(v.pubKey), power: v.power }),
          ),
          appStateBytes: genesis.appStateBytes,
          initialHeight: genesis.initialHeight,
        }),
      );
      const fresh = genesisState(genesis, init, info.appVersion);
      state = store.state ?? fresh;
      if (storeHeight === 0n) {
        Engine.checkOwnKey(fresh, options.privValidator);
      } else {
        await Engine.replay(app, store, store.base, storeHeight, logger);
      }
    } else if (appHeight > storeHeight) {
      // An empty block store beside committed state is also what `snapshots restore` of a snapshot without
      // engine-state.json leaves: only the engine state lets the block store start at the snapshot's height.
      const causes =
        storeHeight === 0n
          ? "the block store was removed or belongs to another home, or the state was restored from a snapshot " +
            "without engine-state.json (only one dumped with it lets this engine continue at its height)"
          : "the block store was removed or belongs to another home";
      throw new EngineStartError(
        `the app has committed height ${appHeight} but the block store (data/blocks.db) only holds ${storeHeight}: ` +
          `${causes}; restore it or reset the app's data too`,
      );
    } else {
      state = store.state as EngineState;
      if (appHeight < store.base - 1n) {
        throw new EngineStartError(`the app is at height ${appHeight}, below the block store's base ${store.base}`);
      }
      if (appHeight < storeHeight) {
        await Engine.replay(app, store, appHeight + 1n, storeHeight, logger);
      } else if (Buffer.compare(info.lastBlockAppHash, state.appHash) !== 0) {
        throw new EngineStartError(
          `app hash mismatch at height ${appHeight}: the app reports ${hex(info.lastBlockAppHash)}, the block store expects ${hex(state.appHash)}`,
        );
      }
    }
    const lastSeen = storeHeight === 0n ? emptyCommit() : await store.seenCommit(storeHeight);
    if (lastSeen === undefined) throw new EngineStartError(`the seen commit of height ${storeHeight} is missing`);
    const engine = new Engine(options, info, state, lastSeen);
    if (storeHeight > 0n) engine.lastHeaderAppHash = (await store.blockMeta(storeHeight))?.header.appHash;
    return engine;
  }

  private static checkOwnKey(state: EngineState, pv: PrivValidator): void {
    if (!state.validators.some((v) => Buffer.compare(v.address, pv.address) === 0)) {
      throw new EngineStartError(
        `this node's validator key (${hex(pv.address)}) is not in the validator set (${state.validators.map((v) => hex(v.address)).join(", ")}); the embedded engine signs every block with its own key`,
      );
    }
  }

  /** Re-executes stored blocks from..to with the real app, checking each app hash against the stored results. */
  private static async replay(app: AbciApp, store: BlockStore, from: bigint, to: bigint, logger: EngineLogger) {
    for (let h = from; h <= to; h++) {
      const stored = await store.block(h);
      const saved = await store.results(h);
      if (stored === undefined || saved === undefined)
        throw new EngineStartError(`cannot replay height ${h}: it is not in the block store`);
      const lastValidators = h === store.base ? [] : ((await store.validatorsAt(h - 1n)) ?? []);
      logger.info({ height: h.toString() }, "replaying stored block");
      const res = await app.finalizeBlock(finalizeRequestOf(stored.block, stored.blockId, lastValidators));
      if (Buffer.compare(res.appHash, saved.appHash) !== 0) {
        throw new EngineStartError(
          `replaying height ${h} gave app hash ${hex(res.appHash)} but the block store recorded ${hex(saved.appHash)}: the app is not deterministic or its data does not belong to this chain`,
        );
      }
      await app.commit(create(RequestCommitSchema, {}));
    }
  }

  /** The consensus state after the last saved block. */
  get state(): EngineState {
    return this.current;
  }

  /** Runs `fn` holding the app lock (every app call but Query is serialised, as in CometBFT's local client). */
  /**
   * The latest height that is both saved and committed by the app: what readers call "latest".
   * The block store runs one height ahead of it for the moment between saving a block and the
   * app's Commit, so queries at "latest" never reach state the app has not committed yet.
   */
  get committedHeight(): bigint {
    return this.committed;
  }

  withAppLock<T>(fn: () => Promise<T>): Promise<T> {
    return this.lock.run(fn);
  }

  /** Subscribes to committed blocks; returns the unsubscribe function. */
  onNewBlock(listener: (event: NewBlockEvent) => void): () => void {
    this.blockListeners.add(listener);
    return () => this.blockListeners.delete(listener);
  }

  /** Produces blocks until stopped or halted. Rejects on a fault that CometBFT would panic on. */
  run(): Promise<EngineExit> {
    this.running ??= this.loop();
    return this.running;
  }

  /** Asks the loop to stop after the block in progress (if any); resolves with the exit. */
  async stop(): Promise<EngineExit> {
    this.stopRequested = true;
    this.wake?.();
    return this.running ?? { reason: "stopped", height: this.store.height, exitCode: 0 };
  }

  private haltAfter(height: bigint, blockTimeSeconds: bigint): EngineExit | undefined {
    if (this.haltHeight > 0n && height >= this.haltHeight) {
      this.logger.info({ height: height.toString() }, `halting per configuration at height ${this.haltHeight}`);
      return { reason: "halt-height", height, exitCode: 0 };
    }
    if (this.haltTime > 0n && blockTimeSeconds >= this.haltTime) {
      this.logger.info({ height: height.toString() }, `halting per configuration at time ${this.haltTime}`);
      return { reason: "halt-time", height, exitCode: 0 };
    }
    return undefined;
  }

  private async loop(): Promise<EngineExit> {
    const s = this.current;
    if (s.lastBlockHeight >= s.initialHeight) {
      const early = this.haltAfter(s.lastBlockHeight, s.lastBlockTime.seconds);
      if (early !== undefined) return early;
    }
    let lastCommitAt = lastCommitMillis(this.lastSeenCommit, Date.now());
    while (!this.stopRequested) {
      if (!(await this.waitForNextHeight(lastCommitAt))) break;
      const exit = await this.produceBlock();
      lastCommitAt = Date.now();
      if (exit !== undefined) return exit;
    }
    return { reason: "stopped", height: this.store.height, exitCode: 0 };
  }

  /** Sleeps until `ms` passes, a tx arrives (when `onTx`), or stop is requested. */
  private async pause(ms: number, onTx: boolean): Promise<void> {
    if (ms <= 0 && !onTx) return;
    await new Promise<void>((resolve) => {
      const timer = ms > 0 && Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
      const unsubscribe = onTx ? this.mempool.onTxAvailable(done) : undefined;
      this.wake = done;
      function done() {
        if (timer !== undefined) clearTimeout(timer);
        unsubscribe?.();
        resolve();
      }
    });
    this.wake = undefined;
  }

  // CometBFT's rule, with one departure: a block made with no txs does not ask for another. CometBFT proposes a proof
  // block whenever the last block changed the app hash, so an app that writes state in every block (vote extensions
  // on: each block records the validators' readiness signals) would never stop making blocks, and
  // create_empty_blocks = false would do nothing on every chain `chaind init` makes.
  private needProofBlock(): boolean {
    const s = this.current;
    if (s.lastBlockHeight + 1n === s.initialHeight) return true;
    if (this.lastBlockIdle) return false;
    return this.lastHeaderAppHash === undefined || Buffer.compare(this.lastHeaderAppHash, s.appHash) !== 0;
  }

  /**
   * Asks the app for this validator's extension of its precommit at `height` and starts signing it: the signature
   * is computed off this thread while the block is finalized and saved, and awaited by the next proposal.
   */
  private async extendOwnVote(
    height: bigint,
    round: bigint,
    chainId: string,
    pv: PrivValidator,
  ): Promise<OwnExtension> {
    const app = this.app;
    const extension =
      app.extendVote === undefined
        ? new Uint8Array(0)
        : (await this.lock.run(() => app.extendVote!(create(RequestExtendVoteSchema, { height })))).voteExtension;
    const signature = pv.signVoteExtension(voteExtensionSignBytes(extension, height, round, chainId));
    // A failure surfaces where the signature is awaited, not as an unhandled rejection if the engine stops first.
    signature.catch(() => undefined);
    return { height, extension, signature };
  }

  private async waitForNextHeight(lastCommitAt: number): Promise<boolean> {
    const s = this.current;
    if (s.lastBlockHeight + 1n === s.initialHeight) {
      // CometBFT does not start before genesis time.
      const start = timestampToMillis(this.genesis.genesisTime);
      while (!this.stopRequested && start > Date.now()) await this.pause(Math.min(start - Date.now(), 1000), false);
      return !this.stopRequested;
    }
    while (!this.stopRequested && Date.now() - lastCommitAt < this.consensus.timeoutCommitMs) {
      await this.pause(this.consensus.timeoutCommitMs - (Date.now() - lastCommitAt), false);
    }
    const { createEmptyBlocks, createEmptyBlocksIntervalMs: interval } = this.consensus;
    for (;;) {
      if (this.stopRequested) return false;
      if (this.mempool.size > 0 || this.needProofBlock()) return true;
      if (createEmptyBlocks && interval === 0) return true;
      if (interval > 0 && Date.now() - lastCommitAt >= interval) return true;
      await this.pause(interval > 0 ? interval - (Date.now() - lastCommitAt) : Number.POSITIVE_INFINITY, true);
    }
  }

  private async produceBlock(): Promise<EngineExit | undefined> {
    const state = this.current;
    const height = state.lastBlockHeight + 1n;
    const pv = this.privValidator;
    Engine.checkOwnKey(state, pv);
    const lastCommit = height === state.initialHeight ? emptyCommit() : this.lastSeenCommit;
    const time = nextBlockTime(state, lastCommit, this.genesis.genesisTime);
    const params = state.consensusParams;
    const maxBytes = maxDataBytes(params.block.maxBytes, state.validators.length);
    const nextValidatorsHash = validatorSetHash(state.nextValidators);
    const protoTime = toProtoTimestamp(time);
    // With vote extensions on at H−1, the proposal carries this validator's extension of its H−1 precommit, as
    // CometBFT hands a proposer its peers' extensions.
    let localLastCommit = extendedCommitInfoOf(lastCommit, state.lastValidators);
    if (height !== state.initialHeight && extensionsOn(params, height - 1n)) {
      const own =
        this.ownExtension?.height === height - 1n
          ? this.ownExtension
          : await this.extendOwnVote(height - 1n, BigInt(lastCommit.round), state.chainId, pv);
      localLastCommit = withExtension(localLastCommit, pv.address, own.extension, await own.signature);
    }

    const reaped = this.mempool.reap(maxBytes, params.block.maxGas);
    const prepared = await this.lock.run(() =>
      this.app.prepareProposal(
        create(RequestPrepareProposalSchema, {
          maxTxBytes: maxBytes,
          txs: reaped,
          localLastCommit,
          misbehavior: [],
          height,
          time: protoTime,
          nextValidatorsHash,
          proposerAddress: pv.address,
        }),
      ),
    );
    const size = prepared.txs.reduce((n, tx) => n + BigInt(txProtoSize(tx)), 0n);
    if (size > maxBytes) {
      throw new ConsensusRuleError(`PrepareProposal returned ${size} bytes of txs, more than max_tx_bytes ${maxBytes}`);
    }
    const { block, blockId, blockBytes } = makeBlock(state, prepared.txs, lastCommit, time, pv.address);

    const processed = await this.lock.run(() =>
      this.app.processProposal(
        create(RequestProcessProposalSchema, {
          txs: block.txs,
          proposedLastCommit: commitInfoOf(lastCommit, state.lastValidators),
          misbehavior: [],
          hash: blockId.hash,
          height,
          time: protoTime,
          nextValidatorsHash,
          proposerAddress: pv.address,
        }),
      ),
    );
    if (processed.status !== ResponseProcessProposal_ProposalStatus.ACCEPT) {
      throw new ConsensusRuleError(
        `the app answered ProcessProposal(${height}) of the engine's own proposal with status ${processed.status} instead of ACCEPT`,
      );
    }

    // As CometBFT: ExtendVote(H) before FinalizeBlock(H), so it reads the state of H−1.
    if (extensionsOn(params, height)) this.ownExtension = await this.extendOwnVote(height, 0n, state.chainId, pv);

    let results: ResponseFinalizeBlock;
    try {
      results = await this.lock.run(() =>
        this.app.finalizeBlock(finalizeRequestOf(block, blockId, state.lastValidators)),
      );
    } catch (error) {
      if (isHaltRequest(error)) {
        this.logger.error(
          { height: height.toString(), err: error },
          "the app halted the chain; nothing of this height is saved",
        );
        return { reason: "app-halt", height, exitCode: error.exitCode, error };
      }
      throw error;
    }
    const after = nextState(state, block, blockId, results);

    const timestamp = voteTime(time, Date.now());
    const signBytes = voteSignBytes({
      type: SignedMsgType.precommit,
      height,
      round: 0n,
      blockId,
      timestamp,
      chainId: state.chainId,
    });
    const signature = pv.sign(height, 0, SIGN_STEP.precommit, signBytes);
    const seenCommit: Commit = {
      height,
      round: 0,
      blockId,
      signatures: state.validators.map((v) =>
        Buffer.compare(v.address, pv.address) === 0
          ? { blockIdFlag: BlockIdFlag.commit, validatorAddress: v.address, timestamp, signature }
          : {
              blockIdFlag: BlockIdFlag.absent,
              validatorAddress: new Uint8Array(0),
              timestamp: ZERO_TIME,
              signature: new Uint8Array(0),
            },
      ),
    };

    // Saving the block and committing the app happen under one lock: a reader that takes the lock
    // (tx, tx_search) never sees a tx indexed whose state change the app has not committed yet.
    await this.lock.run(async () => {
      await this.store.saveHeight({
        block,
        blockBytes,
        blockId,
        seenCommit,
        results,
        validators: state.validators,
        state: after,
      });
      await pv.saveState();
      this.current = after;
      this.lastSeenCommit = seenCommit;
      this.lastHeaderAppHash = block.header.appHash;
      this.lastBlockIdle = reaped.length === 0 && height !== state.initialHeight;
      const { retainHeight } = await this.app.commit(create(RequestCommitSchema, {}));
      this.committed = height;
      // As CometBFT: blocks below the app's retain_height go once the app has committed (min-retain-blocks);
      // a failed prune is logged and the chain goes on, the next commit tries again.
      if (retainHeight > 0n) {
        await this.store.prune(retainHeight).catch((error: unknown) => {
          this.logger.error({ err: error, retainHeight: retainHeight.toString() }, "failed to prune blocks");
        });
      }
      await this.mempool.update(block.txs, results.txResults, (req) => this.app.checkTx(req, { events: false }));
    });
    this.logger.info(
      { height: height.toString(), txs: block.txs.length, hash: hex(blockId.hash), appHash: hex(results.appHash) },
      "committed block",
    );
    const event = { block, blockId, results, blockSize: blockBytes.length };
    for (const l of this.blockListeners) {
      try {
        l(event);
      } catch (error) {
        this.logger.warn({ err: error }, "a new-block listener failed");
      }
    }
    return this.haltAfter(height, time.seconds);
  }
}

/** Whether vote extensions are on at `height` (CometBFT: from `abci.vote_extensions_enable_height` on, 0 = never). */
function extensionsOn(params: EngineState["consensusParams"], height: bigint): boolean {
  const enableHeight = params.abci.voteExtensionsEnableHeight;
  return enableHeight > 0n && height >= enableHeight;
}

/** This validator's extension of its precommit at `height`, with its signature (being computed). */
interface OwnExtension {
  height: bigint;
  extension: Uint8Array;
  signature: Promise<Uint8Array>;
}

/** `commit` with `extension` on the precommit of the validator at `address` (the only one this engine signs). */
function withExtension(
  commit: ExtendedCommitInfo,
  address: Uint8Array,
  extension: Uint8Array,
  signature: Uint8Array,
): ExtendedCommitInfo {
  for (const vote of commit.votes) {
    if (vote.blockIdFlag !== BlockIDFlag.BLOCK_ID_FLAG_COMMIT) continue;
    if (vote.validator === undefined || Buffer.compare(vote.validator.address, address) !== 0) continue;
    vote.voteExtension = extension;
    vote.extensionSignature = signature;
  }
  return commit;
}
