// The gRPC/REST servers' node hooks (src/server/query-backend.ts NodeHooks) answered by the embedded
// engine: its mempool for broadcasts, its block store for blocks, validator sets and the tx index, and
// the App for ABCI queries. The servers do request checks and paging; these only fetch and convert.
import { create, fromBinary, type MessageInitShape, type Registry } from "@bufbuild/protobuf";
import { GrpcCode, GrpcStatusError } from "../app/errors.ts";
import { checkTxResponse, hexUpper, mempoolRefusal } from "../app/tx-response.ts";
import { currentBinaryName } from "../config/home.ts";
import { ENGINE_VERSION, type Engine } from "../engine/engine.ts";
import { txHash } from "../engine/hashing/hashes.ts";
import { MempoolError } from "../engine/mempool.ts";
import { formatRfc3339 } from "../engine/time.ts";
import { parseTxQuery, TxQueryError } from "../engine/tx-query.ts";
import type { Block, BlockId, Commit, Validator } from "../engine/types.ts";
import { TxResponseSchema } from "../gen/chain/base/abci/v1beta1/abci_pb.js";
import type { GetNodeInfoResponseSchema } from "../gen/chain/base/tendermint/v1beta1/query_pb.js";
import { EvidenceSchema } from "../gen/tendermint/types/evidence_pb.js";
import { abciQueryHook } from "../server/abci-query-hook.ts";
import type { BlockWithId, NodeHooks, ValidatorInfo } from "../server/query-backend.ts";
import { txFromRaw } from "../server/tx-service.ts";
import { committedTxResponse } from "./committed-tx-response.ts";

/** Facts about the node the engine does not own (for GetNodeInfo). */
export interface NodeFacts {
  moniker: string;
  nodeId: string;
  /** node_info.listen_addr and channels (advertisedP2p in src/engine/rpc/status-result.ts). */
  p2pListenAddr: string;
  p2pChannels: string;
  rpcAddress: string;
  txIndex: boolean;
  /** The App's software version and name. */
  appVersion: string;
}

/**
 * NodeHooks over a running embedded engine.
 *
 * @example await startServers({ backend: appQueryBackend(app), hooks: { ...appNodeHooks(app), ...engineNodeHooks(engine, facts, registry) }, config })
 */
export function engineNodeHooks(engine: Engine, facts: NodeFacts, registry?: Registry): NodeHooks {
  const store = engine.store;
  const timeOf = async (height: bigint) => {
    const meta = await store.blockMeta(height);
    return meta === undefined ? "" : formatRfc3339(meta.header.time);
  };
  return {
    async broadcastTx(txBytes, mode) {
      const txhash = hexUpper(txHash(txBytes));
      try {
        // Neither answer carries CheckTx's events (as upstream's sync/async broadcast): the app need not build them.
        if (mode === "async") {
          engine.mempool.beginCheckTx(txBytes, { events: false }).catch(() => {});
          return { txhash };
        }
        const check = await engine.mempool.checkTx(txBytes, { events: false });
        return checkTxResponse(txhash, check);
      } catch (err) {
        if (err instanceof MempoolError) {
          const refusal = mempoolRefusal(txhash, err.message);
          if (refusal !== undefined) return refusal;
        }
        throw err;
      }
    },
    async getTx(hash) {
      const found = await store.tx(new Uint8Array(Buffer.from(hash, "hex")));
      if (found === undefined) return undefined;
      return {
        tx: txFromRaw(found.tx),
        txResponse: committedTxResponse({
          height: found.height,
          txBytes: found.tx,
          txhash: hash,
          result: found.result,
          timestamp: await timeOf(found.height),
          registry,
        }),
      };
    },
    async searchTxs(request) {
      let conditions: ReturnType<typeof parseTxQuery>;
      try {
        conditions = parseTxQuery(request.query);
      } catch (err) {
        // Upstream's GetTxsEvent words every search failure "failed to search for txs: <CometBFT's reason>".
        if (err instanceof TxQueryError)
          throw new GrpcStatusError(GrpcCode.InvalidArgument, `failed to search for txs: ${err.message}`, {
            cause: err,
          });
        throw err;
      }
      const found = await store.searchTxs(conditions, {
        page: Number(request.page),
        perPage: Number(request.limit),
        descending: request.order === "desc",
      });
      const txResponses = [];
      for (const t of found.txs) {
        txResponses.push(
          create(
            TxResponseSchema,
            committedTxResponse({
              height: t.height,
              txBytes: t.tx,
              txhash: hexUpper(txHash(t.tx)),
              result: t.result,
              timestamp: await timeOf(t.height),
              registry,
            }),
          ),
        );
      }
      return { txs: found.txs.map((t) => txFromRaw(t.tx)), txResponses, total: BigInt(found.totalCount) };
    },
    latestBlockHeight: () => engine.committedHeight,
    async block(height) {
      const stored = await store.block(height);
      return stored === undefined ? undefined : blockWithId(stored.block, stored.blockId);
    },
    async validatorSet(height) {
      const set = height === store.height + 1n ? engine.state.validators : await store.validatorsAt(height);
      return set?.map(validatorInfo);
    },
    nodeInfo: async () => nodeInfo(engine, facts),
    syncing: async () => false,
    abciQuery: abciQueryHook({ query: (request) => engine.app.query(request) }),
    async blockStatus(height) {
      const meta = await store.blockMeta(height);
      const results = await store.results(height);
      if (meta === undefined || results === undefined) return undefined;
      const millis = Number(meta.header.time.seconds) * 1000 + Math.floor(meta.header.time.nanos / 1e6);
      return { time: new Date(millis), appHash: results.appHash, validatorsHash: meta.header.validatorsHash };
    },
  };
}

function nodeInfo(engine: Engine, facts: NodeFacts): MessageInitShape<typeof GetNodeInfoResponseSchema> {
  return {
    defaultNodeInfo: {
      protocolVersion: { p2p: ENGINE_VERSION.p2p, block: ENGINE_VERSION.block, app: engine.handshakeInfo.appVersion },
      defaultNodeId: facts.nodeId,
      listenAddr: facts.p2pListenAddr,
      network: engine.genesis.chainId,
      version: ENGINE_VERSION.core,
      channels: new Uint8Array(Buffer.from(facts.p2pChannels, "hex")),
      moniker: facts.moniker,
      other: { txIndex: facts.txIndex ? "on" : "off", rpcAddress: facts.rpcAddress },
    },
    applicationVersion: {
      // The running chain's binary (upstream's version.Name and AppName: "gaia", "gaiad").
      name: currentBinaryName(),
      appName: currentBinaryName(),
      version: facts.appVersion,
      goVersion: `node ${process.version}`,
    },
  };
}

/** A validator as the servers take it. */
export function validatorInfo(v: Validator): ValidatorInfo {
  return {
    address: v.address,
    pubKey: { type: v.pubKey.type, key: v.pubKey.key },
    votingPower: v.votingPower,
    proposerPriority: v.proposerPriority,
  };
}

function blockIdInit(id: BlockId) {
  return { hash: id.hash, partSetHeader: { total: id.partSetHeader.total, hash: id.partSetHeader.hash } };
}

function commitInit(commit: Commit) {
  return {
    height: commit.height,
    round: commit.round,
    blockId: blockIdInit(commit.blockId),
    signatures: commit.signatures.map((s) => ({
      blockIdFlag: s.blockIdFlag,
      validatorAddress: s.validatorAddress,
      timestamp: { seconds: s.timestamp.seconds, nanos: s.timestamp.nanos },
      signature: s.signature,
    })),
  };
}

/** An engine block in the servers' proto shapes. */
export function blockWithId(block: Block, blockId: BlockId): BlockWithId {
  const h = block.header;
  return {
    blockId: blockIdInit(blockId),
    block: {
      header: {
        version: { block: h.version.block, app: h.version.app },
        chainId: h.chainId,
        height: h.height,
        time: { seconds: h.time.seconds, nanos: h.time.nanos },
        lastBlockId: blockIdInit(h.lastBlockId),
        lastCommitHash: h.lastCommitHash,
        dataHash: h.dataHash,
        validatorsHash: h.validatorsHash,
        nextValidatorsHash: h.nextValidatorsHash,
        consensusHash: h.consensusHash,
        appHash: h.appHash,
        lastResultsHash: h.lastResultsHash,
        evidenceHash: h.evidenceHash,
        proposerAddress: h.proposerAddress,
      },
      data: { txs: block.txs },
      evidence: { evidence: block.evidence.map((bytes) => fromBinary(EvidenceSchema, bytes)) },
      lastCommit: commitInit(block.lastCommit),
    },
  };
}
