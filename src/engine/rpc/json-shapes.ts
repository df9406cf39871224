// CometBFT v0.38's JSON shapes for the consensus RPC (CometBFT v0.38's rpc/core/types): cmtjson for the
// core types (int64 as strings, HexBytes as uppercase hex, []byte as base64, RFC 3339 times) and gogo jsonpb
// with defaults emitted for ExecTxResult, ResponseCheckTx, ResponseQuery and EventAttribute.
import type {
  Event,
  ExecTxResult,
  ResponseCheckTx,
  ResponseFinalizeBlock,
  ResponseInfo,
  ResponseQuery,
  ValidatorUpdate,
} from "../../gen/tendermint/abci/types_pb.js";
import type { ConsensusParams as ProtoConsensusParams } from "../../gen/tendermint/types/params_pb.js";
import type { BlockMeta } from "../block-store.ts";
import { formatRfc3339 } from "../time.ts";
import type { Block, BlockId, Commit, ConsensusParams, Header, PublicKey, Validator } from "../types.ts";

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Uppercase hex (cmtjson HexBytes); "" for empty. */
export function hexUpper(b: Uint8Array): string {
  // Read through a view: `Buffer.from(b)` would copy the bytes first (twice per broadcast answer: data and hash).
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex").toUpperCase();
}

/** Standard base64, or null for empty bytes (Go's nil []byte). */
export function b64OrNull(b: Uint8Array | undefined): string | null {
  return b === undefined || b.length === 0 ? null : Buffer.from(b).toString("base64");
}

/** Standard base64 ("" for empty). */
export function b64(b: Uint8Array): string {
  return Buffer.from(b).toString("base64");
}

/** cmtjson form of a public key. */
export function pubKeyJson(pk: PublicKey): Json {
  return {
    type: pk.type === "ed25519" ? "tendermint/PubKeyEd25519" : "tendermint/PubKeySecp256k1",
    value: b64(pk.key),
  };
}

/** BlockID as `{hash, parts: {total, hash}}`. */
export function blockIdJson(id: BlockId): Json {
  return { hash: hexUpper(id.hash), parts: { total: id.partSetHeader.total, hash: hexUpper(id.partSetHeader.hash) } };
}

/** A header; version.app is left out when zero (proto omitempty). */
export function headerJson(h: Header): Json {
  const version: { [k: string]: Json } = { block: h.version.block.toString() };
  if (h.version.app !== 0n) version.app = h.version.app.toString();
  return {
    version,
    chain_id: h.chainId,
    height: h.height.toString(),
    time: formatRfc3339(h.time),
    last_block_id: blockIdJson(h.lastBlockId),
    last_commit_hash: hexUpper(h.lastCommitHash),
    data_hash: hexUpper(h.dataHash),
    validators_hash: hexUpper(h.validatorsHash),
    next_validators_hash: hexUpper(h.nextValidatorsHash),
    consensus_hash: hexUpper(h.consensusHash),
    app_hash: hexUpper(h.appHash),
    last_results_hash: hexUpper(h.lastResultsHash),
    evidence_hash: hexUpper(h.evidenceHash),
    proposer_address: hexUpper(h.proposerAddress),
  };
}

/** A commit with its signatures (absent ones carry an empty address, zero time and a null signature). */
export function commitJson(c: Commit): Json {
  return {
    height: c.height.toString(),
    round: c.round,
    block_id: blockIdJson(c.blockId),
    signatures: c.signatures.map((s) => ({
      block_id_flag: s.blockIdFlag,
      validator_address: hexUpper(s.validatorAddress),
      timestamp: formatRfc3339(s.timestamp),
      signature: b64OrNull(s.signature),
    })),
  };
}

/** A block. */
export function blockJson(b: Block): Json {
  return {
    header: headerJson(b.header),
    data: { txs: b.txs.map(b64) },
    evidence: { evidence: [] },
    last_commit: commitJson(b.lastCommit),
  };
}

/** A block meta (`/blockchain`, and `query upgrade applied`). */
export function blockMetaJson(m: BlockMeta): Json {
  return {
    block_id: blockIdJson(m.blockId),
    block_size: m.blockSize.toString(),
    header: headerJson(m.header),
    num_txs: m.numTxs.toString(),
  };
}

/** An event inside a jsonpb message: every field present. */
export function eventJsonpb(e: Event): Json {
  return { type: e.type, attributes: e.attributes.map((a) => ({ key: a.key, value: a.value, index: a.index })) };
}

/** A block-level event (cmtjson: `attributes` left out when empty; attributes themselves jsonpb). */
export function eventCmtjson(e: Event): Json {
  const out: { [k: string]: Json } = {};
  if (e.type !== "") out.type = e.type;
  if (e.attributes.length > 0)
    out.attributes = e.attributes.map((a) => ({ key: a.key, value: a.value, index: a.index }));
  return out;
}

/** ExecTxResult in jsonpb with defaults. */
export function execTxResultJson(r: ExecTxResult | undefined): Json {
  return {
    code: r?.code ?? 0,
    data: b64OrNull(r?.data),
    log: r?.log ?? "",
    info: r?.info ?? "",
    gas_wanted: (r?.gasWanted ?? 0n).toString(),
    gas_used: (r?.gasUsed ?? 0n).toString(),
    events: (r?.events ?? []).map(eventJsonpb),
    codespace: r?.codespace ?? "",
  };
}

/**
 * ExecTxResult as cmtjson writes it where no jsonpb marshaler applies (the `result` of a Tx event's TxResult, a
 * value field): every zero field left out (omitempty), events as block-level events.
 */
export function execTxResultCmtjson(r: ExecTxResult | undefined): Json {
  const out: { [k: string]: Json } = {};
  if (r === undefined) return out;
  if (r.code !== 0) out.code = r.code;
  if (r.data.length > 0) out.data = b64(r.data);
  if (r.log !== "") out.log = r.log;
  if (r.info !== "") out.info = r.info;
  if (r.gasWanted !== 0n) out.gas_wanted = r.gasWanted.toString();
  if (r.gasUsed !== 0n) out.gas_used = r.gasUsed.toString();
  if (r.events.length > 0) out.events = r.events.map(eventCmtjson);
  if (r.codespace !== "") out.codespace = r.codespace;
  return out;
}

/** ResponseCheckTx in jsonpb with defaults. */
export function checkTxJson(r: ResponseCheckTx): Json {
  return {
    code: r.code,
    data: b64OrNull(r.data),
    log: r.log,
    info: r.info,
    gas_wanted: r.gasWanted.toString(),
    gas_used: r.gasUsed.toString(),
    events: r.events.map(eventJsonpb),
    codespace: r.codespace,
  };
}

/** ResponseQuery in jsonpb with defaults (field 8 is `proofOps`). */
export function queryJson(r: ResponseQuery): Json {
  return {
    code: r.code,
    log: r.log,
    info: r.info,
    index: r.index.toString(),
    key: b64OrNull(r.key),
    value: b64OrNull(r.value),
    proofOps:
      r.proofOps === undefined
        ? null
        : { ops: r.proofOps.ops.map((o) => ({ type: o.type, key: b64OrNull(o.key), data: b64OrNull(o.data) })) },
    height: r.height.toString(),
    codespace: r.codespace,
  };
}

/** ResponseInfo (omitempty: zero fields are left out). */
export function infoJson(r: ResponseInfo): Json {
  const out: { [k: string]: Json } = {};
  if (r.data !== "") out.data = r.data;
  if (r.version !== "") out.version = r.version;
  if (r.appVersion !== 0n) out.app_version = r.appVersion.toString();
  if (r.lastBlockHeight !== 0n) out.last_block_height = r.lastBlockHeight.toString();
  if (r.lastBlockAppHash.length > 0) out.last_block_app_hash = b64(r.lastBlockAppHash);
  return out;
}

function validatorUpdateJson(u: ValidatorUpdate): Json {
  const sum = u.pubKey?.sum;
  const pub: Json =
    sum?.case === "ed25519"
      ? { Sum: { type: "tendermint.crypto.PublicKey_Ed25519", value: { ed25519: b64(sum.value) } } }
      : sum?.case === "secp256k1"
        ? { Sum: { type: "tendermint.crypto.PublicKey_Secp256K1", value: { secp256k1: b64(sum.value) } } }
        : {};
  return { pub_key: pub, power: u.power.toString() };
}

function protoParamsJson(p: ProtoConsensusParams): Json {
  const out: { [k: string]: Json } = {};
  if (p.block) out.block = { max_bytes: p.block.maxBytes.toString(), max_gas: p.block.maxGas.toString() };
  if (p.evidence) {
    const d = p.evidence.maxAgeDuration;
    const nanos = d === undefined ? 0n : d.seconds * 1_000_000_000n + BigInt(d.nanos);
    out.evidence = {
      max_age_num_blocks: p.evidence.maxAgeNumBlocks.toString(),
      max_age_duration: nanos.toString(),
      max_bytes: p.evidence.maxBytes.toString(),
    };
  }
  if (p.validator) out.validator = { pub_key_types: [...p.validator.pubKeyTypes] };
  if (p.version) out.version = { app: p.version.app.toString() };
  if (p.abci) out.abci = { vote_extensions_enable_height: p.abci.voteExtensionsEnableHeight.toString() };
  return out;
}

/** `/block_results`. */
export function blockResultsJson(height: bigint, r: ResponseFinalizeBlock): Json {
  return {
    height: height.toString(),
    txs_results: r.txResults.length === 0 ? null : r.txResults.map(execTxResultJson),
    finalize_block_events: r.events.length === 0 ? null : r.events.map(eventCmtjson),
    validator_updates: r.validatorUpdates.length === 0 ? null : r.validatorUpdates.map(validatorUpdateJson),
    consensus_param_updates: r.consensusParamUpdates === undefined ? null : protoParamsJson(r.consensusParamUpdates),
    app_hash: b64(r.appHash),
  };
}

/** The genesis/`consensus_params` form: every field present. */
export function consensusParamsJson(p: ConsensusParams): Json {
  const d = p.evidence.maxAgeDuration;
  return {
    block: { max_bytes: p.block.maxBytes.toString(), max_gas: p.block.maxGas.toString() },
    evidence: {
      max_age_num_blocks: p.evidence.maxAgeNumBlocks.toString(),
      max_age_duration: (d.seconds * 1_000_000_000n + BigInt(d.nanos)).toString(),
      max_bytes: p.evidence.maxBytes.toString(),
    },
    validator: { pub_key_types: [...p.validator.pubKeyTypes] },
    version: { app: p.version.app.toString() },
    abci: { vote_extensions_enable_height: p.abci.voteExtensionsEnableHeight.toString() },
  };
}

/** A validator in `/validators`. */
export function validatorJson(v: Validator): Json {
  return {
    address: hexUpper(v.address),
    pub_key: pubKeyJson(v.pubKey),
    voting_power: v.votingPower.toString(),
    proposer_priority: v.proposerPriority.toString(),
  };
}
