// `chaind replay --from <source home> --home <new home>`: rebuild a node's state from genesis by re-executing
// another home's blocks with one binary's release line, and prove it reproduces history. The new home gets the
// source's config/ (genesis, config.toml, app.toml, node and validator keys) and priv_validator_state.json; the
// source's block store is read from a temporary copy, so the source is never opened, locked or written. Each
// height goes through the same steps as the engine's handshake replay — FinalizeBlock with the stored block, the
// app hash checked against what the source recorded for that height (and against the next block's header), save
// the height in the new block store with the results this replay computed, Commit — and the first difference
// stops the replay with a ReplayMismatchError naming the height, the expected and the computed hash. The source's
// records are verified as they are read (block-store.ts: each block against its header, its results against the
// next header), so a damaged source is named as such, at its height, before the release could be blamed for it.
//
// Durability: the heights are written unsynced (the new block store's saves and the state store's commits, the
// latter through `openApp`'s `syncCommits: false`) and both stores' logs are flushed every FLUSH_EVERY heights,
// the block store first, and once more when the replay ends, however it ends. The order of the writes is the
// engine's (a height is saved before the app commits it), and an unsynced write is in the operating system once
// it resolves, so a killed replay leaves a home whose app is at or one height behind its block store, which the
// engine's handshake takes up like any node's. Only a crash of the machine itself can lose the heights since the
// last flush (see the README, "Durability").

import { existsSync } from "node:fs";
import { cp, mkdir, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { loadAppConfig } from "../config/app-config.ts";
import { currentBinaryName, homePaths } from "../config/home.ts";
import { liesWithin } from "../config/path-within.ts";
import { isHaltRequest } from "../engine/abci-app.ts";
import { finalizeRequestOf, genesisState, initChainRequestOf, nextState } from "../engine/block-execution.ts";
import { BlockStore, BlockStoreCorruptError } from "../engine/block-store.ts";
import { ENGINE_VERSION } from "../engine/engine.ts";
import { type EngineGenesis, loadEngineGenesis } from "../engine/genesis.ts";
import { lastResultsHash } from "../engine/hashing/hashes.ts";
import type { EngineState } from "../engine/state.ts";
import { UserError } from "../errors/user-error.ts";
import { RequestCommitSchema, RequestInfoSchema } from "../gen/tendermint/abci/types_pb.js";
import { NotALevelStoreError } from "../store/errors.ts";
import { flushLevelLogs } from "./level-logs.ts";
import type { SwitchableApp } from "./release-line.ts";
import type { ReleaseSwitch, SwitchingApp } from "./switching-app.ts";

/** A problem with the replay's inputs or its run (printed as one line; exit status `exitCode`). */
export class ReplayError extends UserError {
  constructor(message: string, options: ErrorOptions & { exitCode?: number } = {}) {
    super(message, options);
    this.name = "ReplayError";
  }
}

/** The replay computed another app hash than the source recorded. */
export class ReplayMismatchError extends ReplayError {
  readonly height: bigint;
  readonly expected: string;
  readonly got: string;
  readonly release: string;

  constructor(height: bigint, expected: string, got: string, release: string) {
    super(
      `app hash mismatch at height ${height}: expected ${expected} (recorded by the source), got ${got} (replayed with release ${release}); the new home keeps the replayed state up to height ${height - 1n}`,
      { exitCode: 1 },
    );
    this.name = "ReplayError";
    this.height = height;
    this.expected = expected;
    this.got = got;
    this.release = release;
  }
}

/** The heights one release ran during the replay. */
export interface ReplaySegment {
  release: string;
  /** The upgrade that entered this release during the replay (absent for the release the replay started with). */
  enteredBy?: string;
  fromHeight: bigint;
  toHeight: bigint;
  blocks: number;
  ms: number;
}

/** What a finished replay reports. */
export interface ReplayReport {
  fromHeight: bigint;
  toHeight: bigint;
  blocks: number;
  ms: number;
  /** The app hash of the last height (uppercase hex), equal to the source's. */
  appHash: string;
  segments: ReplaySegment[];
}

/** Progress after each height. */
export interface ReplayProgress {
  height: bigint;
  /** The last height to replay. */
  tip: bigint;
  /** The first height replayed. */
  base: bigint;
  release: string;
  elapsedMs: number;
}

/** How the replay asks `openApp` to open the state store. */
export interface ReplayStoreOptions {
  /**
   * False: the state store's commits are written unsynced (build-app.ts's `syncCommits`); the replay flushes the
   * store's log itself every FLUSH_EVERY heights and at the end.
   */
  syncCommits: boolean;
}

/** Heights between two flushes of the new home's stores (both written unsynced in between). */
export const FLUSH_EVERY = 100n;

/**
 * Heights of the source read ahead of the one executing: h + 1 is needed as soon as h is finalized (its header
 * carries h's app hash), so it is read during h − 1 and h, not only during h's FinalizeBlock.
 */
const READ_AHEAD = 2n;

/** Options of {@link replayHome}. */
export interface ReplayHomeOptions<A extends SwitchableApp> {
  /** The home whose blocks are replayed (read only). */
  sourceHome: string;
  /** The new home (absent or empty). */
  home: string;
  /**
   * Opens the switching App on the new home (after its config has been copied in), with `store` passed on to the
   * App's state store (an App that ignores it syncs each commit: slower, as safe).
   */
  openApp(home: string, store: ReplayStoreOptions): Promise<SwitchingApp<A>>;
  onProgress?(progress: ReplayProgress): void;
}

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex").toUpperCase();

/**
 * Replays every block of `sourceHome` from genesis into `home` (see the file comment). Rejects with a ReplayError
 * before creating anything when the target is not empty or the source has no blocks, and with a
 * ReplayMismatchError at the first height whose app hash differs.
 *
 * @example
 * const report = await replayHome({ sourceHome, home, openApp: (h) => openReplayApp(h) });
 * console.log(`${report.blocks} blocks, ${report.appHash}`);
 */
export async function replayHome<A extends SwitchableApp>(options: ReplayHomeOptions<A>): Promise<ReplayReport> {
  const source = homePaths(options.sourceHome);
  const target = homePaths(options.home);
  await checkInputs(source, target);
  const existed = (await stat(target.home).catch(() => undefined)) !== undefined;
  let replayed = false;
  try {
    return await replayInto(source, target, {
      ...options,
      onProgress: (progress) => {
        replayed = true;
        options.onProgress?.(progress);
      },
    });
  } catch (err) {
    // Nothing replayed yet (a bad source, a failure to open): leave the target as it was, absent or empty.
    if (!replayed) await clearTarget(target.home, existed);
    throw err;
  }
}

async function clearTarget(home: string, keepDirectory: boolean): Promise<void> {
  if (!keepDirectory) {
    await rm(home, { recursive: true, force: true });
    return;
  }
  for (const entry of await readdir(home).catch(() => [] as string[])) {
    await rm(join(home, entry), { recursive: true, force: true });
  }
}

async function replayInto<A extends SwitchableApp>(
  source: ReturnType<typeof homePaths>,
  target: ReturnType<typeof homePaths>,
  options: ReplayHomeOptions<A>,
): Promise<ReplayReport> {
  await mkdir(target.dataDir, { recursive: true, mode: 0o700 });
  await cp(source.configDir, target.configDir, { recursive: true, preserveTimestamps: true });
  await cp(source.privValidatorState, target.privValidatorState).catch(() => undefined);
  // The source's block store is read from a copy: opening LevelDB takes its lock and may write its log files.
  const sourceCopy = join(target.dataDir, "replay-source-blocks.db");
  await cp(source.blocksDb, sourceCopy, { recursive: true });
  const sourceBlocks = await BlockStore.open(sourceCopy).catch((err: unknown) => {
    if (err instanceof NotALevelStoreError) {
      throw new ReplayError(
        `the source home ${options.sourceHome} is damaged: its data/blocks.db holds ${err.entries} files but no CURRENT file; restore it from a backup, or keep a copy of it and rebuild it in place with \`${currentBinaryName()} repair-store ${join(options.sourceHome, "data", "blocks.db")}\``,
        { cause: err },
      );
    }
    throw err;
  });
  let blocks: BlockStore | undefined;
  let switching: SwitchingApp<A> | undefined;
  let failed = true;
  try {
    const tip = sourceBlocks.height;
    const base = sourceBlocks.base;
    const sourceState = sourceBlocks.state as EngineState;
    if (tip === 0n) throw new ReplayError(`the source home ${options.sourceHome} has no blocks to replay`);
    if (base !== sourceState.initialHeight) {
      throw new ReplayError(
        `the source's block store starts at height ${base}, not at the genesis initial height ${sourceState.initialHeight}: a replay needs every block from genesis`,
      );
    }
    const genesis = await loadEngineGenesis(target.genesis);
    if (genesis.chainId !== sourceState.chainId) {
      throw new ReplayError(
        `the source's block store belongs to chain ${sourceState.chainId} but its genesis.json says ${genesis.chainId}`,
      );
    }
    blocks = await BlockStore.open(target.blocksDb);
    switching = await options.openApp(options.home, { syncCommits: false });
    const flush = () => flushStores(target);
    const report = await replayBlocks(switching, sourceBlocks, blocks, genesis, { ...options, flush });
    failed = false;
    return report;
  } finally {
    await switching?.close().catch(() => undefined);
    await blocks?.close().catch(() => undefined);
    await sourceBlocks.close().catch(() => undefined);
    await rm(sourceCopy, { recursive: true, force: true });
    // However the replay ended (done, a mismatch, a halt, an error): what it wrote is made durable. A failed flush
    // fails a finished replay, but does not hide the error that stopped one.
    await flushStores(target).catch((err: unknown) => {
      if (!failed) throw err;
    });
  }
}

/** Flushes the new home's block store, then its state store (the engine's order: a height's block before its state). */
async function flushStores(target: ReturnType<typeof homePaths>): Promise<void> {
  await flushLevelLogs(target.blocksDb);
  await flushLevelLogs(target.applicationDb);
}

async function checkInputs(source: ReturnType<typeof homePaths>, target: ReturnType<typeof homePaths>) {
  const entries = await readdir(target.home).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return [] as string[];
    if (err.code === "ENOTDIR") {
      throw new ReplayError(
        `the target home ${target.home} is a file: replay builds a new home; give a path that does not exist or an empty directory`,
        { cause: err },
      );
    }
    throw new ReplayError(`cannot read the target home ${target.home}: ${err.message}`, { cause: err });
  });
  if (entries.length > 0) {
    throw new ReplayError(
      `the target home ${target.home} is not empty: replay builds a new home; give a path that does not exist or an empty directory`,
    );
  }
  const isDir = async (path: string) => (await stat(path).catch(() => undefined))?.isDirectory() === true;
  if (!(await isDir(source.home))) {
    const what = existsSync(source.home) ? "is not a directory" : "does not exist";
    throw new ReplayError(
      `the source home ${source.home} ${what}: expected the home of the node whose blocks to replay`,
    );
  }
  // The new home is written, the source only read: a target inside the source (its data/, even its blocks.db
  // folder) would put the new stores and the copy of the source's blocks inside the source itself.
  if (await liesWithin(target.home, source.home)) {
    throw new ReplayError(
      `the target home ${target.home} lies inside the source home ${source.home}, which replay only reads; give a path outside it`,
    );
  }
  if (!(await isDir(source.configDir)) || (await stat(source.genesis).catch(() => undefined)) === undefined) {
    throw new ReplayError(
      `the source home ${source.home} has no config/genesis.json: expected a ${currentBinaryName()} home`,
    );
  }
  if (!(await isDir(source.blocksDb)) || (await readdir(source.blocksDb)).length === 0) {
    throw new ReplayError(
      `the source home ${source.home} has no blocks to replay (no data/blocks.db; a CometBFT node keeps its blocks elsewhere: use block sync with --replay-releases instead)`,
    );
  }
  // The new home runs on a copy of the source's config/: a broken app.toml is read here, so the error names the
  // source's file, not the copy in a target that is removed again when the replay fails.
  if ((await stat(source.appToml).catch(() => undefined)) !== undefined) await loadAppConfig(source.home);
}

/** Names the source's damage, found reading height `h`, as such; the new home keeps the heights up to `h − 1`. */
function sourceDamage(err: unknown, sourceHome: string, h: bigint): unknown {
  if (!(err instanceof BlockStoreCorruptError)) return err;
  return new ReplayError(
    `the source home ${sourceHome} is damaged at height ${err.height ?? h}: ${err.detail} (in its data/blocks.db); restore the source's data/blocks.db from a backup, or replay from another home; the new home keeps the replayed state up to height ${h - 1n}`,
    { cause: err, exitCode: 1 },
  );
}

/** The source's block and seen commit of height `h`, each verified by the block store; damage is the source's. */
async function sourceHeight(source: BlockStore, sourceHome: string, h: bigint) {
  try {
    return await source.blockAndSeenCommit(h);
  } catch (err) {
    throw sourceDamage(err, sourceHome, h);
  }
}

/** What the chain recorded after a height: its app hash and the hash of its tx results (last_results_hash). */
interface Recorded {
  appHash: Uint8Array;
  lastResultsHash: Uint8Array;
}

/**
 * What the source recorded after height `h` from its stored results (verified by the block store against the next
 * header): the way taken when the next block could not be read, so the damage or gap is reported at its own height.
 */
async function sourceResults(source: BlockStore, sourceHome: string, h: bigint): Promise<Recorded | undefined> {
  let saved: Awaited<ReturnType<BlockStore["results"]>>;
  try {
    saved = await source.results(h);
  } catch (err) {
    throw sourceDamage(err, sourceHome, h);
  }
  return saved === undefined
    ? undefined
    : { appHash: saved.appHash, lastResultsHash: lastResultsHash(saved.txResults) };
}

async function replayBlocks<A extends SwitchableApp>(
  switching: SwitchingApp<A>,
  source: BlockStore,
  target: BlockStore,
  genesis: EngineGenesis,
  options: Pick<ReplayHomeOptions<A>, "onProgress" | "sourceHome"> & { flush(): Promise<void> },
): Promise<ReplayReport> {
  const { onProgress, sourceHome, flush } = options;
  const tip = source.height;
  const base = source.base;
  const info = await switching.info(
    create(RequestInfoSchema, {
      version: ENGINE_VERSION.core,
      blockVersion: ENGINE_VERSION.block,
      p2pVersion: ENGINE_VERSION.p2p,
      abciVersion: ENGINE_VERSION.abci,
    }),
  );
  if (info.lastBlockHeight !== 0n) {
    throw new ReplayError(`the new home's state is at height ${info.lastBlockHeight}, expected a fresh state`);
  }
  const init = await switching.initChain(initChainRequestOf(genesis));
  let state = genesisState(genesis, init, info.appVersion);

  const started = performance.now();
  const segments: ReplaySegment[] = [];
  let segment: ReplaySegment = {
    release: switching.release.name,
    fromHeight: base,
    toHeight: base - 1n,
    blocks: 0,
    ms: 0,
  };
  let segmentStart = started;
  const unsubscribe = switching.onSwitch((event: ReleaseSwitch) => {
    const now = performance.now();
    segments.push({ ...segment, ms: now - segmentStart });
    segment = {
      release: event.to,
      enteredBy: event.upgrade,
      fromHeight: event.height,
      toHeight: event.height - 1n,
      blocks: 0,
      ms: 0,
    };
    segmentStart = now;
  });
  // The source's records of the next READ_AHEAD heights are read while this one executes (their reads wait on
  // LevelDB's threads, not on this one). A read that fails is reported when its height comes, as if read then.
  const reads = new Map<bigint, ReturnType<typeof sourceHeight>>();
  const readOf = (h: bigint) => {
    let read = reads.get(h);
    if (read === undefined) {
      read = sourceHeight(source, sourceHome, h);
      read.catch(() => undefined);
      reads.set(h, read);
    }
    return read;
  };
  // What the chain recorded after height h: the header of h + 1 (read ahead, verified against its block id) carries
  // h's app hash and last_results_hash; after the tip, the source's engine state saved with it does. The source's
  // stored results of h hold the same two hashes (the block store checks them against that same header), so they
  // are read only when block h + 1 could not be.
  const sourceState = source.state as EngineState;
  const recordedAfter = async (h: bigint): Promise<Recorded | undefined> => {
    if (h === tip) return { appHash: sourceState.appHash, lastResultsHash: sourceState.lastResultsHash };
    const header = (await readOf(h + 1n).catch(() => undefined))?.stored?.block.header;
    if (header !== undefined) return { appHash: header.appHash, lastResultsHash: header.lastResultsHash };
    return sourceResults(source, sourceHome, h);
  };
  try {
    for (let h = base; h <= tip; h++) {
      const { stored, seenCommit, seenCommitBytes } = await readOf(h);
      reads.delete(h);
      for (let ahead = h + 1n; ahead <= h + READ_AHEAD && ahead <= tip; ahead++) readOf(ahead);
      if (stored === undefined || seenCommit === undefined) {
        throw new ReplayError(`the source's block store lacks height ${h} (block, results or commit)`);
      }
      // The header of h carries the app hash of h − 1: check what this replay computed against it.
      if (Buffer.compare(stored.block.header.appHash, state.appHash) !== 0) {
        throw new ReplayMismatchError(
          h - 1n,
          hex(stored.block.header.appHash),
          hex(state.appHash),
          switching.release.name,
        );
      }
      let results: Awaited<ReturnType<typeof switching.finalizeBlock>>;
      try {
        results = await switching.finalizeBlock(finalizeRequestOf(stored.block, stored.blockId, state.lastValidators));
      } catch (err) {
        if (!isHaltRequest(err)) throw err;
        throw new ReplayError(
          `the replay halted at height ${h} running release ${switching.release.name}: ${err.message} (this binary's releases cannot replay past it; the new home keeps the state up to height ${h - 1n})`,
          { cause: err, exitCode: err.exitCode },
        );
      }
      const recorded = await recordedAfter(h);
      if (recorded === undefined) {
        throw new ReplayError(`the source's block store lacks height ${h} (block, results or commit)`);
      }
      if (Buffer.compare(results.appHash, recorded.appHash) !== 0) {
        throw new ReplayMismatchError(h, hex(recorded.appHash), hex(results.appHash), switching.release.name);
      }
      // The next state holds the hash of these tx results (last_results_hash), computed once for both; should the
      // results break a consensus rule, the mismatch below is still reported first.
      let after: EngineState | undefined;
      let broken: unknown;
      try {
        after = nextState(state, stored.block, stored.blockId, results);
      } catch (err) {
        broken = err;
      }
      // The next header commits to the tx results too (last_results_hash): results that differ there would make a
      // new home whose block store disagrees with its own blocks.
      const gotResults = after?.lastResultsHash ?? lastResultsHash(results.txResults);
      if (Buffer.compare(recorded.lastResultsHash, gotResults) !== 0) {
        throw new ReplayError(
          `tx results mismatch at height ${h}: expected last_results_hash ${hex(recorded.lastResultsHash)} (recorded by the source), got ${hex(gotResults)} (replayed with release ${switching.release.name}); the new home keeps the replayed state up to height ${h - 1n}`,
          { exitCode: 1 },
        );
      }
      if (after === undefined) throw broken;
      await target.saveHeight(
        {
          block: stored.block,
          // The source's bytes, which decode to this block (they hash to its header's data, commit and
          // evidence hashes, and the header to its id): the same a new encoding would give.
          blockBytes: stored.bytes,
          // The source's meta and seen commit as it stored them, which decode to what is saved with them: the
          // same bytes an encoding would give, without encoding them again.
          metaBytes: stored.metaBytes,
          blockId: stored.blockId,
          seenCommit,
          seenCommitBytes,
          results,
          validators: state.validators,
          state: after,
        },
        { sync: false },
      );
      await switching.commit(create(RequestCommitSchema, {}));
      state = after;
      if ((h - base + 1n) % FLUSH_EVERY === 0n) await flush();
      segment.toHeight = h;
      segment.blocks += 1;
      onProgress?.({ height: h, tip, base, release: switching.release.name, elapsedMs: performance.now() - started });
    }
  } finally {
    unsubscribe();
  }
  const ended = performance.now();
  segments.push({ ...segment, ms: ended - segmentStart });
  return {
    fromHeight: base,
    toHeight: tip,
    blocks: Number(tip - base + 1n),
    ms: ended - started,
    appHash: hex(state.appHash),
    segments,
  };
}
