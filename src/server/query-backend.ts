// What the gRPC server and the REST gateway need from the node, and nothing more. The node (BaseApp
// plus the consensus engine) implements these two interfaces; the servers know no sockets but
// their own, no store and no engine.
import type { MessageInitShape, Registry } from "@bufbuild/protobuf";
import type { Context } from "../app/context.ts";
import type { QueryRoute } from "../app/router.ts";
import type { TxResponse, TxResponseSchema } from "../gen/chain/base/abci/v1beta1/abci_pb.js";
import type {
  ABCIQueryResponseSchema,
  GetNodeInfoResponseSchema,
} from "../gen/chain/base/tendermint/v1beta1/query_pb.js";
import type { GetTxResponseSchema, SimulateResponseSchema } from "../gen/chain/tx/v1beta1/service_pb.js";
import type { Tx } from "../gen/chain/tx/v1beta1/tx_pb.js";
import type { BlockSchema } from "../gen/tendermint/types/block_pb.js";
import type { BlockIDSchema } from "../gen/tendermint/types/types_pb.js";

/**
 * The application side: the registered query routes and query contexts at a height.
 *
 * Heights: the servers parse the `x-chain-block-height` header, reject malformed, negative,
 * future (> latestHeight) and pruned (< earliestHeight) heights themselves, turn 0/absent into
 * latestHeight(), and only then call `queryContext`. `queryContext` may still throw the store's
 * PrunedVersionError / FutureVersionError (pruning raced the query); they are answered like the
 * servers' own checks.
 */
export interface QueryBackend {
  /** Every route of every registered module Query service (the app's `QueryRouter.routes()`). */
  routes(): readonly QueryRoute[];
  /** The last committed height (0n before the first block). */
  latestHeight(): bigint;
  /** The earliest height whose state is still readable (after pruning). */
  earliestHeight(): bigint;
  /**
   * A read-only ("query" mode) context over the committed state at `height`, with
   * `ctx.blockHeight === height`. Writes made through it are discarded.
   */
  queryContext(height: bigint): Promise<Context>;
  /**
   * The same context without a promise when it is at hand (the latest version's shared view is
   * built), else undefined; optional (queryContext is then used).
   */
  latestQueryContext?(height: bigint): Context | undefined;
  /** Resolves `Any` values in JSON (`@type`): every type that may appear inside an Any. */
  readonly registry: Registry;
}

/** A validator as the node knows it (converted to bech32 `chainvalcons…` and an Any by the servers). */
export interface ValidatorInfo {
  /** 20-byte consensus address. */
  address: Uint8Array;
  pubKey: { type: "ed25519" | "secp256k1"; key: Uint8Array };
  votingPower: bigint;
  proposerPriority: bigint;
}

/** A committed block in CometBFT's proto shapes. */
export interface BlockWithId {
  blockId: MessageInitShape<typeof BlockIDSchema>;
  block: MessageInitShape<typeof BlockSchema>;
}

/** Request of {@link NodeHooks.searchTxs}, validated and defaulted by the servers. */
export interface TxSearchRequest {
  /** A CometBFT query such as `message.sender='chain1…'`; never empty. */
  query: string;
  /** 1-based page, ≥ 1. */
  page: bigint;
  /** Page size, ≥ 1 (default 100). */
  limit: bigint;
  order: "asc" | "desc";
}

/** Result of {@link NodeHooks.searchTxs}. */
export interface TxSearchResult {
  txs: Tx[];
  txResponses: TxResponse[];
  /** Number of matching txs across all pages. */
  total: bigint;
}

/** A block's header facts at a height, for `chain.base.node.v1beta1.Service/Status`. */
export interface BlockStatus {
  /** Block time of `height`. */
  time: Date;
  /** App hash after `height` was committed. */
  appHash: Uint8Array;
  /** Validators hash of the block at `height`. */
  validatorsHash: Uint8Array;
}

/**
 * The node side: the consensus engine, mempool and tx index behind `chain.tx.v1beta1.Service`,
 * `chain.base.tendermint.v1beta1.Service` and `chain.base.node.v1beta1.Service`. The servers do the
 * request validation, paging, defaults and error statuses; a hook only fetches or submits. Every
 * hook is optional: a method whose hook is missing answers Unimplemented.
 *
 * Errors: throw a `GrpcStatusError`/registered error for an expected failure (its gRPC code picks
 * the status); anything else is an internal error (500, code 13) whose message is shown as is.
 */
export interface NodeHooks {
  /** Simulates a tx (raw TxRaw bytes, never empty) against state at `ctx.blockHeight`. */
  simulate?(txBytes: Uint8Array, ctx: Context): Promise<MessageInitShape<typeof SimulateResponseSchema>>;
  /** Submits raw tx bytes (never empty) to the mempool: `sync` waits for CheckTx, `async` does not. */
  broadcastTx?(txBytes: Uint8Array, mode: "sync" | "async"): Promise<MessageInitShape<typeof TxResponseSchema>>;
  /** A committed tx by its hash (64 uppercase hex characters), or undefined when unknown. */
  getTx?(hash: string): Promise<MessageInitShape<typeof GetTxResponseSchema> | undefined>;
  /** Committed txs matching a CometBFT query; a malformed query throws InvalidArgument. */
  searchTxs?(request: TxSearchRequest): Promise<TxSearchResult>;
  /** The height of the latest block the engine has (may differ from the state's latest height). */
  latestBlockHeight?(): bigint;
  /** The block at `height` (1 ≤ height ≤ latestBlockHeight), or undefined when no longer kept. */
  block?(height: bigint): Promise<BlockWithId | undefined>;
  /** The validator set that signs block `height`, in voting-power order, or undefined when unknown. */
  validatorSet?(height: bigint): Promise<ValidatorInfo[] | undefined>;
  /** `GetNodeInfo` as is. */
  nodeInfo?(): Promise<MessageInitShape<typeof GetNodeInfoResponseSchema>>;
  /** Whether the node is catching up. */
  syncing?(): Promise<boolean>;
  /** An ABCI query (the path is never empty); answered as is. */
  abciQuery?(request: {
    data: Uint8Array;
    path: string;
    height: bigint;
    prove: boolean;
  }): Promise<MessageInitShape<typeof ABCIQueryResponseSchema>>;
  /** Header facts of the block at `height` (for node Status). */
  blockStatus?(height: bigint): Promise<BlockStatus | undefined>;
}
