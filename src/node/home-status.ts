// `chaind status` of a node that does not answer: the same `/status` result, read from its home. Only reads: no
// file in the home changes. LevelDB writes whenever it opens a store (it replays its log into a new table, among
// other things), so each store is opened in a throwaway view of it (src/store/level-view.ts), never in place.
//
// Three things shape it:
// - The height, as a CometBFT node reports it. At an upgrade halt at H the embedded engine has committed H-1 and
//   saved nothing of H, but a CometBFT node saves block H before executing it and reports H, and cosmovisor v1.6+
//   switches binaries only once the reported height reaches the plan's. So when data/upgrade-info.json names the
//   height right after the last stored block, that height is `latest_block_height`; `latest_committed_height` (an
//   added field) says which heights the application has committed, and the other `latest_*` fields stay those of the
//   last stored block.
// - Locks. A running node holds its stores' LevelDB locks; status never takes them (it opens views), so it neither
//   waits for another `status` nor keeps a starting node out. It asks whether a process holds a lock
//   (src/store/level-lock-probe.ts): the block store's is waited for briefly (a node stopping lets it go), then
//   reported as a running node that does not answer; when only the application state's is held (a node halted under
//   a supervisor keeps it open to serve queries), its height is not read.
// - Damage. Any failure to open a store other than its lock is damage (or a store that is not there), and said so.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { homePaths } from "../config/home.ts";
import { loadNodeConfig } from "../config/node-config.ts";
import { loadNodeKey, loadPrivValidatorKey, nodeIdFromPublicKey } from "../config/node-keys.ts";
import type { BlockMeta } from "../engine/block-records.ts";
import { BlockStore, BlockStoreError } from "../engine/block-store.ts";
import { ENGINE_VERSION } from "../engine/engine.ts";
import type { Json } from "../engine/rpc/json-shapes.ts";
import { advertisedP2p, statusResult } from "../engine/rpc/status-result.ts";
import { UserError } from "../errors/user-error.ts";
import { isFileSystemRefusal, NotALevelStoreError, readLastCommittedVersion } from "../store/index.ts";
import { levelLockHeld } from "../store/level-lock-probe.ts";
import { withLevelView } from "../store/level-view.ts";
import { readUpgradeInfoFromDisk } from "../x/upgrade/upgrade-info-file.ts";
import { cometBlockStorePath, readCometStores } from "./comet-stores.ts";

/** Why a home's status cannot be read; one line, with the underlying error as `cause`. */
export class HomeStatusError extends UserError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "HomeStatusError";
  }
}

/** How long a locked block store is waited for: a node that is stopping lets it go, a running node holds it for good. */
export const LOCK_WAIT_MS = 5_000;

/**
 * The `/status` result of the node whose home is `home`, read from its block store, application state, upgrade-info
 * file and config and key files, with `sync_info.latest_committed_height` added. Throws {@link HomeStatusError} when
 * the home holds no node data, a store is damaged or missing, or the block store stays locked for `lockWaitMs`.
 * @example (await readHomeStatus("/var/lib/chaind")).sync_info
 */
export async function readHomeStatus(
  home: string,
  options: { lockWaitMs?: number } = {},
): Promise<Record<string, Json>> {
  const config = await loadNodeConfig(home).catch((cause: unknown) => {
    throw new HomeStatusError(`${home} holds no node configuration: ${(cause as Error).message}`, { cause });
  });
  const path = join(config.dbDir, "blocks.db");
  // Behind CometBFT (`start --abci`) the blocks are CometBFT's, in its own store.
  const cometPath = cometBlockStorePath(config.dbDir);
  const behindComet = !existsSync(path) && existsSync(cometPath);
  if (!existsSync(path) && !behindComet) {
    throw new HomeStatusError(`${home} holds no block store (neither ${path} nor CometBFT's ${cometPath} exists)`);
  }
  // Everything that needs no store is read first, so the stores are held as briefly as possible.
  const key = await loadPrivValidatorKey(config.privValidatorKeyFile).catch((cause: unknown) => {
    throw new HomeStatusError(`cannot read the validator key: ${(cause as Error).message}`, { cause });
  });
  const nodeId = await loadNodeKey(config.nodeKeyFile).then(
    (nodeKey) => nodeKey.id,
    // The running node falls back to the validator key's ID when node_key.json is missing; so does this.
    () => nodeIdFromPublicKey(key.publicKey),
  );
  const upgradeInfo = await readUpgradeInfoFromDisk(home).catch((cause: unknown) => {
    throw new HomeStatusError(`cannot tell whether the node halted for an upgrade: ${(cause as Error).message}`, {
      cause,
    });
  });

  if (behindComet) {
    await waitForBlockStore(cometPath, options.lockWaitMs ?? LOCK_WAIT_MS);
    const facts = await readCometStores(config.dbDir).catch((cause: unknown) => {
      throw new HomeStatusError(`CometBFT's stores in ${config.dbDir} cannot be read (${reasonOf(cause)})`, { cause });
    });
    if (facts.latest === undefined) {
      throw new HomeStatusError(`CometBFT's block store ${cometPath} holds no block: the node has never made one`);
    }
    return statusOf(cometPath, {
      stored: facts.height,
      base: facts.base,
      latest: facts.latest,
      earliest: facts.earliest,
      chainId: facts.latest.header.chainId,
      appVersion: facts.latest.header.version.app,
      validators: facts.validators,
    });
  }

  await waitForBlockStore(path, options.lockWaitMs ?? LOCK_WAIT_MS);
  return withLevelView(path, async (view) => {
    const store = await openBlockStore(view, path);
    try {
      return await statusFromStore(store);
    } catch (error) {
      if (!(error instanceof BlockStoreError)) throw error;
      throw new HomeStatusError(`the block store ${path} is damaged: ${reasonOf(error).replaceAll(view, path)}`, {
        cause: error,
      });
    } finally {
      await store.close();
    }
  }).catch((error: unknown) => {
    if (error instanceof HomeStatusError) throw error;
    throw viewFailure("the block store", path, error);
  });

  async function statusFromStore(store: BlockStore): Promise<Record<string, Json>> {
    const state = store.state;
    if (state === undefined) throw new HomeStatusError(`the block store ${path} is empty: the node has never started`);
    const stored = store.height;
    return statusOf(path, {
      stored,
      base: store.base,
      latest: stored > 0n ? await store.blockMeta(stored) : undefined,
      earliest: stored > 0n ? await store.blockMeta(store.base) : undefined,
      chainId: state.chainId,
      appVersion: state.appVersion,
      validators: state.validators,
    });
  }

  async function statusOf(blockStorePath: string, chain: StoredChain): Promise<Record<string, Json>> {
    const { stored } = chain;
    const appHeight = await applicationHeight(homePaths(home).applicationDb);
    if (appHeight !== undefined && appHeight > stored) {
      throw new HomeStatusError(
        `the application state is at height ${appHeight}, above the block store's ${stored} (${blockStorePath}): the block store is not this state's`,
      );
    }
    const committed = appHeight ?? stored;
    // Halted for an upgrade at the next height: reported as that height, as a CometBFT node (see the top). CometBFT
    // itself has stored block H by then, so behind it the stored height is H already.
    const latestHeight = upgradeInfo !== undefined && upgradeInfo.height === stored + 1n ? upgradeInfo.height : stored;
    const mine = chain.validators.find((v) => Buffer.compare(v.address, key.address) === 0);
    const result = statusResult({
      engine: ENGINE_VERSION,
      appVersion: chain.appVersion,
      chainId: chain.chainId,
      node: {
        id: nodeId,
        moniker: config.moniker,
        p2pListenAddr: advertisedP2p(config.p2p).listenAddr,
        p2pChannels: advertisedP2p(config.p2p).channels,
        rpcListenAddr: config.rpc.laddr.address,
        txIndexEnabled: config.txIndex.indexer !== "null",
      },
      latestHeight,
      latest: chain.latest,
      earliestHeight: chain.base,
      earliest: chain.earliest,
      validator: { address: key.address, pubKey: key.publicKey, votingPower: mine?.votingPower ?? 0n },
      catchingUp: false,
    });
    (result.sync_info as Record<string, Json>).latest_committed_height = committed.toString();
    return result;
  }
}

/** What a block store says of the chain, whichever engine kept it. */
interface StoredChain {
  stored: bigint;
  base: bigint;
  latest: BlockMeta | undefined;
  earliest: BlockMeta | undefined;
  chainId: string;
  appVersion: bigint;
  validators: readonly { address: Uint8Array; votingPower: bigint }[];
}

/** Returns once no process holds the block store's lock; waits up to `waitMs` (a node stopping lets it go). */
async function waitForBlockStore(path: string, waitMs: number): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (let delay = 10; levelLockHeld(path) === true; delay = Math.min(delay * 2, 200)) {
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new HomeStatusError(
        `the block store ${path} is in use by a running node that does not answer (it stayed locked for ${waitMs / 1000} s); ask it with --node <its rpc.laddr>`,
      );
    }
    await sleep(Math.min(delay, left));
  }
}

/** Opens the view `view` of the block store at `path`; a failure is damage, reported with the real path. */
async function openBlockStore(view: string, path: string): Promise<BlockStore> {
  try {
    return await BlockStore.open(view, { createIfMissing: false });
  } catch (cause) {
    const reason = whyUnreadable(cause).replaceAll(view, path);
    throw new HomeStatusError(`the block store ${path} cannot be read: ${reason}`, { cause });
  }
}

/**
 * The application's last committed height, or undefined when a process holds the state open (a node: no `status`
 * takes a store's lock). Missing, empty or damaged state is a {@link HomeStatusError}.
 */
async function applicationHeight(path: string): Promise<bigint | undefined> {
  if (!existsSync(path)) throw new HomeStatusError(`the home holds no application state (${path} does not exist)`);
  if (levelLockHeld(path) === true) return undefined;
  let height: bigint;
  try {
    height = await withLevelView(path, async (view) => {
      try {
        return await readLastCommittedVersion(view);
      } catch (cause) {
        throw new HomeStatusError(
          `the application state ${path} cannot be read: ${whyUnreadable(cause).replaceAll(view, path)}`,
          { cause },
        );
      }
    });
  } catch (cause) {
    if (cause instanceof HomeStatusError) throw cause;
    throw viewFailure("the application state", path, cause);
  }
  if (height === 0n) {
    throw new HomeStatusError(`the application state ${path} holds no committed height (removed or damaged)`);
  }
  return height;
}

/**
 * A store withLevelView could not read: one without CURRENT (judged before the view is made) is damage, as LevelDB's
 * own refusals are; anything else is the view itself failing (the temporary directory missing or full, a file
 * vanished), which says nothing about the store.
 */
function viewFailure(what: string, path: string, cause: unknown): HomeStatusError {
  if (cause instanceof NotALevelStoreError) {
    return new HomeStatusError(`${what} ${path} cannot be read: ${whyUnreadable(cause)}`, { cause });
  }
  return new HomeStatusError(`${what} ${path} cannot be read (${reasonOf(cause)})`, { cause });
}

/**
 * Why a store could not be opened: damage, unless the file system refused the operation (a full disk, no
 * permission, a read-only mount), which says nothing about the store and must not send anyone to restore it.
 */
function whyUnreadable(cause: unknown): string {
  const reason = reasonOf(cause);
  return isFileSystemRefusal(reason) ? `the file system refused it (${reason})` : `it is damaged (${reason})`;
}

/** The innermost message of an error's cause chain: LevelDB's own words (e.g. `Corruption: …`). */
function reasonOf(error: unknown): string {
  let message = String(error);
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) {
    if (e.message !== "") message = e.message;
  }
  return message;
}
