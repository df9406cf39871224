// The servers' node hooks in `start --abci` mode: CometBFT owns the mempool, the blocks and the tx
// index, so broadcasts, blocks, validator sets, tx lookups and node info go through CometBFT's RPC at
// config.toml's rpc.laddr (CometBFT v0.38's JSON shapes, converted back into proto shapes here). ABCI
// queries are answered by the App in process, exactly as CometBFT would forward them.
import { createHash } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import type { App } from "../app/base-app.ts";
import { GrpcCode, GrpcStatusError } from "../app/errors.ts";
import { checkTxResponse, hexUpper, mempoolRefusal } from "../app/tx-response.ts";
import { createRpcClient, RpcError } from "../client/rpc/rpc-client.ts";
import { dialAddress } from "../config/home-rpc-address.ts";
import type { ListenAddress } from "../config/index.ts";
import { parseRfc3339 } from "../engine/time.ts";
import type { Block, BlockId, Commit, Header, Timestamp, Validator } from "../engine/types.ts";
import { TxResponseSchema } from "../gen/chain/base/abci/v1beta1/abci_pb.js";
import { type ExecTxResult, ExecTxResultSchema } from "../gen/tendermint/abci/types_pb.js";
import { abciQueryHook } from "../server/abci-query-hook.ts";
import type { NodeHooks } from "../server/query-backend.ts";
import { txFromRaw } from "../server/tx-service.ts";
import { committedTxResponse } from "./committed-tx-response.ts";
import { blockWithId, validatorInfo } from "./engine-hooks.ts";

type Json = Record<string, unknown>;

/** The `--node`-style address of CometBFT's RPC from rpc.laddr (wildcard hosts dialled on loopback). */
export function cometRpcAddress(laddr: ListenAddress): string {
  return dialAddress(laddr);
}

/**
 * NodeHooks over CometBFT's RPC (broadcast, blocks, txs, validators, status) and the App (queries).
 *
 * @example hooks: { ...appNodeHooks(app), ...cometNodeHooks(app, cometRpcAddress(nodeConfig.rpc.laddr)) }
 */
export function cometNodeHooks(app: App, rpcAddress: string): NodeHooks {
  const rpc = createRpcClient(rpcAddress);
  const registry = app.typeRegistry;
  const timeOf = async (height: bigint) => {
    const result = await rpc.call<{ header: Json | null }>("header", { height: height.toString() });
    return typeof result.header?.time === "string" ? result.header.time : "";
  };
  return {
    async broadcastTx(txBytes, mode) {
      try {
        const result = mode === "async" ? await rpc.broadcastTxAsync(txBytes) : await rpc.broadcastTxSync(txBytes);
        if (mode === "async") return { txhash: result.hash };
        return checkTxResponse(result.hash, {
          code: result.code,
          codespace: result.codespace,
          log: result.log,
          data: new Uint8Array(Buffer.from(result.data ?? "", "hex")),
        });
      } catch (err) {
        if (err instanceof RpcError) {
          // The client's message already is CometBFT's `data` when there is one ("tx already exists in cache").
          const refusal = mempoolRefusal(hexOfTx(txBytes), err.message);
          if (refusal !== undefined) return refusal;
        }
        throw err;
      }
    },
    async getTx(hash) {
      let result: Json;
      try {
        result = await rpc.call<Json>("tx", { hash: Buffer.from(hash, "hex").toString("base64") });
      } catch (err) {
        if (err instanceof RpcError && /not found/.test(`${err.message} ${err.data ?? ""}`)) return undefined;
        throw err;
      }
      const txBytes = b64(result.tx);
      const height = BigInt(String(result.height));
      return {
        tx: txFromRaw(txBytes),
        txResponse: committedTxResponse({
          height,
          txBytes,
          txhash: hash,
          result: execTxResult(result.tx_result as Json | undefined),
          timestamp: await timeOf(height),
          registry,
        }),
      };
    },
    async searchTxs(request) {
      let result: { txs: Json[]; total_count: string };
      try {
        result = await rpc.call("tx_search", {
          query: request.query,
          page: request.page.toString(),
          per_page: request.limit.toString(),
          order_by: request.order,
        });
      } catch (err) {
        // As upstream's GetTxsEvent words it (and the embedded engine's hook): the SDK's prefix, CometBFT's reason.
        if (err instanceof RpcError) {
          throw new GrpcStatusError(GrpcCode.InvalidArgument, `failed to search for txs: ${err.message}`, {
            cause: err,
          });
        }
        throw err;
      }
      const txResponses = [];
      const txs = [];
      for (const t of result.txs) {
        const txBytes = b64(t.tx);
        const height = BigInt(String(t.height));
        txs.push(txFromRaw(txBytes));
        txResponses.push(
          create(
            TxResponseSchema,
            committedTxResponse({
              height,
              txBytes,
              txhash: String(t.hash),
              result: execTxResult(t.tx_result as Json | undefined),
              timestamp: await timeOf(height),
              registry,
            }),
          ),
        );
      }
      return { txs, txResponses, total: BigInt(result.total_count) };
    },
    // Synchronous by contract: the App's committed height is CometBFT's latest block once it has committed.
    latestBlockHeight: () => app.lastBlockHeight(),
    async block(height) {
      const result = await rpc.call<{ block_id: Json; block: Json | null }>("block", { height: height.toString() });
      if (result.block === null) return undefined;
      return blockWithId(blockOf(result.block), blockIdOf(result.block_id));
    },
    async validatorSet(height) {
      const validators: Validator[] = [];
      for (let page = 1; ; page++) {
        let result: { validators: Json[]; total: string };
        try {
          result = await rpc.call("validators", { height: height.toString(), page: String(page), per_page: "100" });
        } catch (err) {
          if (err instanceof RpcError) return undefined;
          throw err;
        }
        validators.push(...result.validators.map(validatorOf));
        if (validators.length >= Number(result.total) || result.validators.length === 0) break;
      }
      return validators.map(validatorInfo);
    },
    async nodeInfo() {
      const status = await rpc.call<{ node_info: Json }>("status");
      const info = status.node_info;
      const protocol = (info.protocol_version ?? {}) as Json;
      const other = (info.other ?? {}) as Json;
      return {
        defaultNodeInfo: {
          protocolVersion: { p2p: big(protocol.p2p), block: big(protocol.block), app: big(protocol.app) },
          defaultNodeId: String(info.id ?? ""),
          listenAddr: String(info.listen_addr ?? ""),
          network: String(info.network ?? ""),
          version: String(info.version ?? ""),
          channels: new Uint8Array(Buffer.from(String(info.channels ?? ""), "hex")),
          moniker: String(info.moniker ?? ""),
          other: { txIndex: String(other.tx_index ?? ""), rpcAddress: String(other.rpc_address ?? "") },
        },
        applicationVersion: {
          name: app.name,
          appName: app.name,
          version: app.version,
          goVersion: `node ${process.version}`,
        },
      };
    },
    async syncing() {
      const status = await rpc.call<{ sync_info: Json }>("status");
      return status.sync_info.catching_up === true;
    },
    abciQuery: abciQueryHook({ query: (request) => app.query(request) }),
    async blockStatus(height) {
      try {
        const header = await rpc.call<{ header: Json | null }>("header", { height: height.toString() });
        const results = await rpc.call<{ app_hash?: string }>("block_results", { height: height.toString() });
        if (header.header === null) return undefined;
        const h = headerOf(header.header);
        const millis = Number(h.time.seconds) * 1000 + Math.floor(h.time.nanos / 1e6);
        return { time: new Date(millis), appHash: b64(results.app_hash), validatorsHash: h.validatorsHash };
      } catch (err) {
        if (err instanceof RpcError) return undefined;
        throw err;
      }
    },
  };
}

function hexOfTx(tx: Uint8Array): string {
  return hexUpper(new Uint8Array(createHash("sha256").update(tx).digest()));
}

function b64(value: unknown): Uint8Array {
  return typeof value === "string" && value !== "" ? new Uint8Array(Buffer.from(value, "base64")) : new Uint8Array();
}

function hex(value: unknown): Uint8Array {
  return typeof value === "string" && value !== "" ? new Uint8Array(Buffer.from(value, "hex")) : new Uint8Array();
}

function big(value: unknown): bigint {
  return value === undefined || value === null || value === "" ? 0n : BigInt(String(value));
}

function time(value: unknown): Timestamp {
  return typeof value === "string" ? parseRfc3339(value) : { seconds: 0n, nanos: 0 };
}

function blockIdOf(json: unknown): BlockId {
  const id = (json ?? {}) as Json;
  const parts = (id.parts ?? {}) as Json;
  return { hash: hex(id.hash), partSetHeader: { total: Number(parts.total ?? 0), hash: hex(parts.hash) } };
}

function headerOf(json: Json): Header {
  const version = (json.version ?? {}) as Json;
  return {
    version: { block: big(version.block), app: big(version.app) },
    chainId: String(json.chain_id ?? ""),
    height: big(json.height),
    time: time(json.time),
    lastBlockId: blockIdOf(json.last_block_id),
    lastCommitHash: hex(json.last_commit_hash),
    dataHash: hex(json.data_hash),
    validatorsHash: hex(json.validators_hash),
    nextValidatorsHash: hex(json.next_validators_hash),
    consensusHash: hex(json.consensus_hash),
    appHash: hex(json.app_hash),
    lastResultsHash: hex(json.last_results_hash),
    evidenceHash: hex(json.evidence_hash),
    proposerAddress: hex(json.proposer_address),
  };
}

function commitOf(json: unknown): Commit {
  const commit = (json ?? {}) as Json;
  const signatures = Array.isArray(commit.signatures) ? (commit.signatures as Json[]) : [];
  return {
    height: big(commit.height),
    round: Number(commit.round ?? 0),
    blockId: blockIdOf(commit.block_id),
    signatures: signatures.map((s) => ({
      blockIdFlag: Number(s.block_id_flag ?? 0),
      validatorAddress: hex(s.validator_address),
      timestamp: time(s.timestamp),
      signature: b64(s.signature),
    })),
  };
}

function blockOf(json: Json): Block {
  const data = (json.data ?? {}) as Json;
  const txs = Array.isArray(data.txs) ? (data.txs as unknown[]).map(b64) : [];
  // Evidence is not carried over: the upgrade flow never produces any, and its JSON form is lossy.
  return { header: headerOf((json.header ?? {}) as Json), txs, evidence: [], lastCommit: commitOf(json.last_commit) };
}

function validatorOf(json: Json): Validator {
  const pubKey = (json.pub_key ?? {}) as Json;
  const type = String(pubKey.type ?? "").includes("Secp256k1") ? "secp256k1" : "ed25519";
  return {
    address: hex(json.address),
    pubKey: { type, key: b64(pubKey.value) },
    votingPower: big(json.voting_power),
    proposerPriority: big(json.proposer_priority),
  };
}

function execTxResult(json: Json | undefined): ExecTxResult {
  const r = json ?? {};
  const events = Array.isArray(r.events) ? (r.events as Json[]) : [];
  return create(ExecTxResultSchema, {
    code: Number(r.code ?? 0),
    data: b64(r.data),
    log: String(r.log ?? ""),
    info: String(r.info ?? ""),
    gasWanted: big(r.gas_wanted),
    gasUsed: big(r.gas_used),
    events: events.map((e) => ({
      type: String(e.type ?? ""),
      attributes: (Array.isArray(e.attributes) ? (e.attributes as Json[]) : []).map((a) => ({
        key: String(a.key ?? ""),
        value: String(a.value ?? ""),
        index: a.index === true,
      })),
    })),
    codespace: String(r.codespace ?? ""),
  });
}
