// Pure steps of a height, after CometBFT's state/state.go (MakeBlock), state/execution.go (updateState) and
// consensus/state.go (vote time): build the genesis state, build a block, describe its last commit to the app,
// and derive the next state from FinalizeBlock's answer.
import { create } from "@bufbuild/protobuf";
import { type Timestamp as ProtoTimestamp, TimestampSchema } from "@bufbuild/protobuf/wkt";
import { currentBinaryName } from "../config/home.ts";
import { merkleRoot } from "../crypto/merkle.ts";
import { UserError } from "../errors/user-error.ts";
import {
  type CommitInfo,
  CommitInfoSchema,
  type ExtendedCommitInfo,
  ExtendedCommitInfoSchema,
  type RequestFinalizeBlock,
  RequestFinalizeBlockSchema,
  type RequestInitChain,
  RequestInitChainSchema,
  type ResponseFinalizeBlock,
  type ResponseInitChain,
  ValidatorUpdateSchema,
} from "../gen/tendermint/abci/types_pb.js";
import { BlockIDFlag } from "../gen/tendermint/types/validator_pb.js";
import type { EngineGenesis } from "./genesis.ts";
import { encodeBlock } from "./hashing/encode.ts";
import {
  commitHash,
  consensusParamsHash,
  dataHash,
  evidenceHash,
  headerHash,
  lastResultsHash,
  partSetHeaderOf,
  validatorSetHash,
} from "./hashing/hashes.ts";
import { consensusParamsToProto, updateConsensusParams, validateConsensusParamsUpdate } from "./params.ts";
import type { EngineState } from "./state.ts";
import { addMillis, compareTimestamps, timestampToMillis } from "./time.ts";
import {
  type Block,
  type BlockId,
  BlockIdFlag,
  type Commit,
  emptyBlockId,
  type Timestamp,
  type Validator,
} from "./types.ts";
import { applyValidatorUpdates, publicKeyToProto, sortValidators } from "./validator-set.ts";

/** CometBFT's block protocol version (version.BlockProtocol). */
export const BLOCK_PROTOCOL = 11n;

/** Raised when the app's answers break a rule CometBFT enforces (CometBFT would panic and stop). */
export class ConsensusRuleError extends Error {
  override name = "ConsensusRuleError";
}

/**
 * The chain cannot start: neither the genesis file nor InitChain (its gentxs) gives a validator. The
 * operator's genesis is incomplete, so this is a user error (one line), not a broken rule.
 */
export class GenesisValidatorsError extends UserError {
  override name = "GenesisValidatorsError";
}

/** A protobuf-es Timestamp from the engine's. */
export function toProtoTimestamp(t: Timestamp): ProtoTimestamp {
  return create(TimestampSchema, { seconds: t.seconds, nanos: t.nanos });
}

/** The state before the first block: genesis, overridden by what InitChain returned (CometBFT handshake rules). */
export function genesisState(
  genesis: EngineGenesis,
  initChain: ResponseInitChain,
  infoAppVersion: bigint,
): EngineState {
  let validators: Validator[];
  if (initChain.validators.length > 0) {
    validators = applyValidatorUpdates([], initChain.validators, genesis.consensusParams.validator.pubKeyTypes);
  } else {
    validators = sortValidators(
      genesis.validators.map((v) => ({
        address: v.address,
        pubKey: v.pubKey,
        votingPower: v.power,
        proposerPriority: 0n,
      })),
    );
  }
  if (validators.length === 0) {
    throw new GenesisValidatorsError(
      `validator set is nil in genesis and still empty after InitChain: the genesis has no validators and no gentxs; add one with "${currentBinaryName()} genesis gentx" and "${currentBinaryName()} genesis collect-gentxs"`,
    );
  }
  let consensusParams = genesis.consensusParams;
  let appVersion = infoAppVersion;
  if (initChain.consensusParams !== undefined) {
    consensusParams = updateConsensusParams(consensusParams, initChain.consensusParams);
    appVersion = consensusParams.version.app;
  }
  return {
    chainId: genesis.chainId,
    initialHeight: genesis.initialHeight,
    lastBlockHeight: genesis.initialHeight - 1n,
    lastBlockId: emptyBlockId(),
    lastBlockTime: genesis.genesisTime,
    validators,
    nextValidators: validators,
    lastValidators: [],
    consensusParams,
    appVersion,
    appHash: initChain.appHash.length > 0 ? initChain.appHash : genesis.appHash,
    lastResultsHash: merkleRoot([]),
  };
}

/** The empty commit that block `initial_height` carries. */
export function emptyCommit(): Commit {
  return { height: 0n, round: 0, blockId: emptyBlockId(), signatures: [] };
}

/**
 * The header time of the next block: genesis time at the initial height, otherwise the voting-power-weighted
 * median of the commit-flag signature times in the last commit (`MedianTime`).
 */
export function nextBlockTime(state: EngineState, lastCommit: Commit, genesisTime: Timestamp): Timestamp {
  if (state.lastBlockHeight + 1n === state.initialHeight) return genesisTime;
  const power = new Map(state.lastValidators.map((v) => [Buffer.from(v.address).toString("hex"), v.votingPower]));
  const weighted: { time: Timestamp; power: bigint }[] = [];
  let total = 0n;
  for (const sig of lastCommit.signatures) {
    if (sig.blockIdFlag !== BlockIdFlag.commit) continue;
    const p = power.get(Buffer.from(sig.validatorAddress).toString("hex")) ?? 0n;
    weighted.push({ time: sig.timestamp, power: p });
    total += p;
  }
  if (weighted.length === 0)
    throw new ConsensusRuleError(`the last commit of height ${state.lastBlockHeight} has no signature`);
  weighted.sort((a, b) => compareTimestamps(a.time, b.time));
  let median = total / 2n;
  for (const w of weighted) {
    if (median <= w.power) return w.time;
    median -= w.power;
  }
  return weighted[weighted.length - 1].time;
}

/**
 * When the last block was committed, as the engine times `timeout_commit` from it: the latest commit-flag
 * signature time of its commit, never later than now. A node restarted long after its last block proposes at once
 * (CometBFT waits a whole `timeout_commit` after a restart "to gather transactions"; a restarted node's mempool
 * is empty, so that wait only delays the first block); one restarted inside the timeout waits out the rest, so the
 * block interval holds. `now` when the commit has no signature (before the first block).
 */
export function lastCommitMillis(lastCommit: Commit, nowMs: number): number {
  let latest = Number.NEGATIVE_INFINITY;
  for (const sig of lastCommit.signatures) {
    if (sig.blockIdFlag === BlockIdFlag.commit) latest = Math.max(latest, timestampToMillis(sig.timestamp));
  }
  return Number.isFinite(latest) ? Math.min(latest, nowMs) : nowMs;
}

/** A precommit's timestamp: now, but at least 1 ms after the block's own time (CometBFT `voteTime`). */
export function voteTime(blockTime: Timestamp, nowMs: number): Timestamp {
  const min = addMillis(blockTime, 1);
  const now = { seconds: BigInt(Math.floor(nowMs / 1000)), nanos: (nowMs % 1000) * 1_000_000 };
  return compareTimestamps(now, min) > 0 ? now : min;
}

/** Builds the next block from the state (CometBFT `MakeBlock` + `Block.fillHeader`) and its BlockID. */
export function makeBlock(
  state: EngineState,
  txs: Uint8Array[],
  lastCommit: Commit,
  time: Timestamp,
  proposerAddress: Uint8Array,
): { block: Block; blockId: BlockId; blockBytes: Uint8Array } {
  const block: Block = {
    header: {
      version: { block: BLOCK_PROTOCOL, app: state.appVersion },
      chainId: state.chainId,
      height: state.lastBlockHeight + 1n,
      time,
      lastBlockId: state.lastBlockId,
      lastCommitHash: commitHash(lastCommit),
      dataHash: dataHash(txs),
      validatorsHash: validatorSetHash(state.validators),
      nextValidatorsHash: validatorSetHash(state.nextValidators),
      consensusHash: consensusParamsHash(state.consensusParams),
      appHash: state.appHash,
      lastResultsHash: state.lastResultsHash,
      evidenceHash: evidenceHash([]),
      proposerAddress,
    },
    txs,
    evidence: [],
    lastCommit,
  };
  const blockBytes = encodeBlock(block);
  return { block, blockBytes, blockId: { hash: headerHash(block.header), partSetHeader: partSetHeaderOf(blockBytes) } };
}

/** The largest total tx size a block may carry (`types.MaxDataBytes`, no evidence). */
export function maxDataBytes(blockMaxBytes: bigint, validatorCount: number): bigint {
  const MAX_BLOCK_SIZE = 104857600n;
  const maxBytes = blockMaxBytes === -1n ? MAX_BLOCK_SIZE : blockMaxBytes;
  const overhead = 11n + 626n + 94n + BigInt(validatorCount) * (109n + 2n);
  const available = maxBytes - overhead;
  if (available < 0n) {
    throw new ConsensusRuleError(
      `block.max_bytes ${blockMaxBytes} is too small for the header and last commit of ${validatorCount} validators`,
    );
  }
  return available;
}

function votesOf(lastCommit: Commit, lastValidators: readonly Validator[]) {
  const sigs = new Map(lastCommit.signatures.map((s) => [Buffer.from(s.validatorAddress).toString("hex"), s]));
  return lastValidators.map((v) => {
    const sig = sigs.get(Buffer.from(v.address).toString("hex"));
    const flag = sig === undefined ? BlockIDFlag.BLOCK_ID_FLAG_ABSENT : (sig.blockIdFlag as BlockIDFlag);
    return { validator: { address: v.address, power: v.votingPower }, blockIdFlag: flag };
  });
}

/** `decided_last_commit` / `proposed_last_commit`: one vote per validator of the previous set, in set order. */
export function commitInfoOf(lastCommit: Commit, lastValidators: readonly Validator[]): CommitInfo {
  return create(CommitInfoSchema, { round: lastCommit.round, votes: votesOf(lastCommit, lastValidators) });
}

/** PrepareProposal's `local_last_commit` (no vote extensions: they are disabled). */
export function extendedCommitInfoOf(lastCommit: Commit, lastValidators: readonly Validator[]): ExtendedCommitInfo {
  return create(ExtendedCommitInfoSchema, { round: lastCommit.round, votes: votesOf(lastCommit, lastValidators) });
}

/** The InitChain request for a genesis document (what the engine's handshake sends to a fresh app). */
export function initChainRequestOf(genesis: EngineGenesis): RequestInitChain {
  return create(RequestInitChainSchema, {
    time: toProtoTimestamp(genesis.genesisTime),
    chainId: genesis.chainId,
    consensusParams: consensusParamsToProto(genesis.consensusParams),
    validators: genesis.validators.map((v) =>
      create(ValidatorUpdateSchema, { pubKey: publicKeyToProto(v.pubKey), power: v.power }),
    ),
    appStateBytes: genesis.appStateBytes,
    initialHeight: genesis.initialHeight,
  });
}

/** The FinalizeBlock request for a block (also used to replay a stored block). */
export function finalizeRequestOf(
  block: Block,
  blockId: BlockId,
  lastValidators: readonly Validator[],
): RequestFinalizeBlock {
  return create(RequestFinalizeBlockSchema, {
    txs: block.txs,
    decidedLastCommit: commitInfoOf(block.lastCommit, lastValidators),
    misbehavior: [],
    hash: blockId.hash,
    height: block.header.height,
    time: toProtoTimestamp(block.header.time),
    nextValidatorsHash: block.header.nextValidatorsHash,
    proposerAddress: block.header.proposerAddress,
  });
}

/** The state after `block`, given FinalizeBlock's answer (CometBFT `updateState`). */
export function nextState(
  state: EngineState,
  block: Block,
  blockId: BlockId,
  results: ResponseFinalizeBlock,
): EngineState {
  if (results.txResults.length !== block.txs.length) {
    throw new ConsensusRuleError(
      `expected tx results length to match size of transactions in block. Expected ${block.txs.length}, got ${results.txResults.length}`,
    );
  }
  const nextValidators =
    results.validatorUpdates.length > 0
      ? applyValidatorUpdates(
          state.nextValidators,
          results.validatorUpdates,
          state.consensusParams.validator.pubKeyTypes,
        )
      : state.nextValidators;
  validateConsensusParamsUpdate(state.consensusParams, results.consensusParamUpdates, block.header.height);
  const consensusParams = updateConsensusParams(state.consensusParams, results.consensusParamUpdates);
  return {
    ...state,
    lastBlockHeight: block.header.height,
    lastBlockId: blockId,
    lastBlockTime: block.header.time,
    lastValidators: state.validators,
    validators: state.nextValidators,
    nextValidators,
    consensusParams,
    appVersion: results.consensusParamUpdates !== undefined ? consensusParams.version.app : state.appVersion,
    appHash: results.appHash,
    lastResultsHash: lastResultsHash(results.txResults),
  };
}
