// The `/status` result (CometBFT v0.38 ResultStatus), built from plain facts so that the live RPC and
// `chaind status` reading a stopped node's home print exactly the same shape.
import type { BlockMeta } from "../block-store.ts";
import { formatRfc3339 } from "../time.ts";
import { hexUpper, type Json, pubKeyJson } from "./json-shapes.ts";

/**
 * CometBFT's p2p channels as a node reports them (blocksync, consensus ×4, mempool, evidence, statesync ×2), with
 * the PEX channel 00 last when p2p.pex is on. The embedded engine has no p2p; the value is CometBFT's.
 */
const CHANNELS = "402021222330386061";
const PEX_CHANNEL = "00";

/**
 * What a CometBFT node's `node_info` says of its p2p side, from config.toml: `listen_addr` is
 * p2p.external_address when set, else p2p.laddr; `channels` lists PEX only when p2p.pex is on.
 * @example advertisedP2p({ externalAddress: "", laddr: { address: "tcp://0.0.0.0:26656" }, pex: true })
 */
export function advertisedP2p(p2p: { externalAddress: string; laddr: { address: string }; pex: boolean }): {
  listenAddr: string;
  channels: string;
} {
  return {
    listenAddr: p2p.externalAddress !== "" ? p2p.externalAddress : p2p.laddr.address,
    channels: p2p.pex ? CHANNELS + PEX_CHANNEL : CHANNELS,
  };
}
const EPOCH = "1970-01-01T00:00:00Z";

/** Everything `/status` reports. */
export interface StatusFacts {
  engine: { core: string; block: bigint; p2p: bigint };
  appVersion: bigint;
  chainId: string;
  node: {
    id: string;
    moniker: string;
    /** node_info.listen_addr (see advertisedP2p). */
    p2pListenAddr: string;
    /** node_info.channels (see advertisedP2p); default: with PEX, as config.toml's default. */
    p2pChannels?: string;
    rpcListenAddr: string;
    txIndexEnabled: boolean;
  };
  /** The latest committed height (0 before the first block) and its meta. */
  latestHeight: bigint;
  latest: BlockMeta | undefined;
  /** The first stored height (0 when none) and its meta. */
  earliestHeight: bigint;
  earliest: BlockMeta | undefined;
  validator: { address: Uint8Array; pubKey: Uint8Array; votingPower: bigint };
  catchingUp: boolean;
}

/**
 * The JSON of CometBFT's ResultStatus: `node_info`, `sync_info`, `validator_info`; heights as decimal strings,
 * hashes upper-case hex.
 * @example statusResult(facts).sync_info.latest_block_height === "42"
 */
export function statusResult(facts: StatusFacts): Record<string, Json> {
  const { latest, earliest } = facts;
  return {
    node_info: {
      protocol_version: {
        p2p: facts.engine.p2p.toString(),
        block: facts.engine.block.toString(),
        app: facts.appVersion.toString(),
      },
      id: facts.node.id,
      listen_addr: facts.node.p2pListenAddr,
      network: facts.chainId,
      version: facts.engine.core,
      channels: facts.node.p2pChannels ?? CHANNELS + PEX_CHANNEL,
      moniker: facts.node.moniker,
      other: { tx_index: facts.node.txIndexEnabled ? "on" : "off", rpc_address: facts.node.rpcListenAddr },
    },
    sync_info: {
      latest_block_hash: latest ? hexUpper(latest.blockId.hash) : "",
      latest_app_hash: latest ? hexUpper(latest.header.appHash) : "",
      latest_block_height: facts.latestHeight.toString(),
      latest_block_time: latest ? formatRfc3339(latest.header.time) : EPOCH,
      earliest_block_hash: earliest ? hexUpper(earliest.blockId.hash) : "",
      earliest_app_hash: earliest ? hexUpper(earliest.header.appHash) : "",
      earliest_block_height: (earliest ? facts.earliestHeight : 0n).toString(),
      earliest_block_time: earliest ? formatRfc3339(earliest.header.time) : EPOCH,
      catching_up: facts.catchingUp,
    },
    validator_info: {
      address: hexUpper(facts.validator.address),
      pub_key: pubKeyJson({ type: "ed25519", key: facts.validator.pubKey }),
      voting_power: facts.validator.votingPower.toString(),
    },
  };
}
