// The types every consensus RPC method shares: what a handler receives (RpcContext) and what a method is
// (RpcMethod). Their own file so that the method table (rpc-methods.ts) and methods kept in files of their own
// (block-search.ts) can both import them without importing each other.
import type { Engine } from "../engine.ts";
import type { Json } from "./json-shapes.ts";
import type { Args, ParamSpec } from "./rpc-params.ts";

/** Facts about the node that the RPC reports but the engine does not own. */
export interface RpcNodeInfo {
  moniker: string;
  /** Lowercase hex of the node key's address. */
  nodeId: string;
  /** node_info.listen_addr: p2p.external_address, else p2p.laddr (reported only; see advertisedP2p). */
  p2pListenAddr: string;
  /** node_info.channels (see advertisedP2p); default: with PEX. */
  p2pChannels?: string;
  /** config.toml rpc.laddr. */
  rpcListenAddr: string;
  /** rpc.timeout_broadcast_tx_commit. */
  timeoutBroadcastTxCommitMs: number;
  /** False when tx_index.indexer = "null": /tx and /tx_search are refused, as CometBFT does. */
  txIndexEnabled?: boolean;
}

/** What every handler receives. */
export interface RpcContext {
  engine: Engine;
  node: RpcNodeInfo;
}

/** One method: its declared params and its handler. */
export interface RpcMethod {
  params: ParamSpec[];
  handle(args: Args, ctx: RpcContext): Promise<Json>;
  /**
   * CometBFT's `rpc.Cacheable` (rpc/core/routes.go): its answers over HTTP carry `Cache-Control: public,
   * max-age=86400`, unless an argument named in `unlessZero` was left out or is zero (the latest height, which moves).
   */
  cacheable?: { unlessZero: readonly string[] };
}
