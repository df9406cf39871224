// `chaind status` of a node that does not answer: the same `/status` result, read from its home. Only reads: the
// block store is opened without creating anything and closed at once, no key or state file is written. A node that
// is still running holds the store's lock; that is reported, not worked around.

import { access } from "node:fs/promises";
import { join } from "node:path";
import { loadNodeConfig } from "../config/node-config.ts";
import { loadNodeKey, loadPrivValidatorKey, nodeIdFromPublicKey } from "../config/node-keys.ts";
import { BlockStore } from "../engine/block-store.ts";
import { ENGINE_VERSION } from "../engine/engine.ts";
import type { Json } from "../engine/rpc/json-shapes.ts";
import { advertisedP2p, statusResult } from "../engine/rpc/status-result.ts";
import { UserError } from "../errors/user-error.ts";

/** Why a home's status cannot be read; one line, with the underlying error as `cause`. */
export class HomeStatusError extends UserError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "HomeStatusError";
  }
}

/**
 * The `/status` result of the node whose home is `home`, read from its block store (the last committed height) and
 * its config and key files. Throws {@link HomeStatusError} when the home holds no node data or it cannot be read.
 * @example (await readHomeStatus("/var/lib/chaind")).sync_info
 */
export async function readHomeStatus(home: string): Promise<Record<string, Json>> {
  const config = await loadNodeConfig(home).catch((cause: unknown) => {
    throw new HomeStatusError(`${home} holds no node configuration: ${(cause as Error).message}`, { cause });
  });
  const path = join(config.dbDir, "blocks.db");
  try {
    await access(path);
  } catch (cause) {
    throw new HomeStatusError(`${home} holds no block store (${path} does not exist)`, { cause });
  }
  let store: BlockStore;
  try {
    store = await BlockStore.open(path, { createIfMissing: false });
  } catch (cause) {
    const inUse = /lock/i.test(String((cause as Error).message));
    throw new HomeStatusError(
      inUse
        ? `the block store ${path} is in use by a running node that does not answer; ask it with --node <its rpc.laddr>`
        : `cannot read the block store ${path}: ${(cause as Error).message}`,
      { cause },
    );
  }
  try {
    const state = store.state;
    if (state === undefined) throw new HomeStatusError(`the block store ${path} is empty: the node has never started`);
    const key = await loadPrivValidatorKey(config.privValidatorKeyFile).catch((cause: unknown) => {
      throw new HomeStatusError(`cannot read the validator key: ${(cause as Error).message}`, { cause });
    });
    const nodeId = await loadNodeKey(config.nodeKeyFile).then(
      (nodeKey) => nodeKey.id,
      // The running node falls back to the validator key's ID when node_key.json is missing; so does this.
      () => nodeIdFromPublicKey(key.publicKey),
    );
    const latestHeight = store.height;
    const mine = state.validators.find((v) => Buffer.compare(v.address, key.address) === 0);
    return statusResult({
      engine: ENGINE_VERSION,
      appVersion: state.appVersion,
      chainId: state.chainId,
      node: {
        id: nodeId,
        moniker: config.moniker,
        p2pListenAddr: advertisedP2p(config.p2p).listenAddr,
        p2pChannels: advertisedP2p(config.p2p).channels,
        rpcListenAddr: config.rpc.laddr.address,
        txIndexEnabled: config.txIndex.indexer !== "null",
      },
      latestHeight,
      latest: latestHeight > 0n ? await store.blockMeta(latestHeight) : undefined,
      earliestHeight: store.base,
      earliest: latestHeight > 0n ? await store.blockMeta(store.base) : undefined,
      validator: { address: key.address, pubKey: key.publicKey, votingPower: mine?.votingPower ?? 0n },
      catchingUp: false,
    });
  } finally {
    await store.close();
  }
}
