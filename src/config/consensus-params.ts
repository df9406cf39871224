// CometBFT v0.38 consensus parameters as genesis.json holds them: defaults and the bounds CometBFT
// checks (types/params.go ValidateBasic), with our own wording.
import type { JsonObject } from "./json-reader.ts";

/** Consensus parameters (all 64-bit values as bigint; durations in nanoseconds). */
export interface ConsensusParams {
  block: { maxBytes: bigint; maxGas: bigint };
  evidence: { maxAgeNumBlocks: bigint; maxAgeDuration: bigint; maxBytes: bigint };
  validator: { pubKeyTypes: string[] };
  version: { app: bigint };
  abci: { voteExtensionsEnableHeight: bigint };
}

/** The largest block CometBFT allows (100 MiB). */
export const MAX_BLOCK_SIZE_BYTES = 104857600n;

/** Public key types CometBFT v0.38 knows for validators. */
export const VALIDATOR_PUB_KEY_TYPES = ["ed25519", "secp256k1"] as const;

/**
 * CometBFT v0.38's defaults: 21 MiB blocks (22020096 bytes), no gas limit (-1), evidence valid for
 * 100000 blocks and 48 hours and at most 1 MiB, ed25519 validators, app version 0, vote extensions off.
 */
export function defaultConsensusParams(): ConsensusParams {
  return {
    block: { maxBytes: 22020096n, maxGas: -1n },
    evidence: { maxAgeNumBlocks: 100000n, maxAgeDuration: 172800000000000n, maxBytes: 1048576n },
    validator: { pubKeyTypes: ["ed25519"] },
    version: { app: 0n },
    abci: { voteExtensionsEnableHeight: 0n },
  };
}

/** A parameter outside CometBFT's bounds: the field (under consensus_params) and what it must be. */
export interface ConsensusParamsProblem {
  key: string;
  expected: string;
  /** Other fields the bound is computed from (a reader skips the problem when one of them was malformed). */
  dependsOn?: string[];
}

/** Checks the bounds CometBFT checks; an empty list means the parameters are valid. */
export function consensusParamsProblems(params: ConsensusParams): ConsensusParamsProblem[] {
  const problems: ConsensusParamsProblem[] = [];
  const { block, evidence, validator, abci, version } = params;
  if (block.maxBytes === 0n || block.maxBytes < -1n || block.maxBytes > MAX_BLOCK_SIZE_BYTES) {
    problems.push({
      key: "block.max_bytes",
      expected: `-1 (no limit) or an integer from 1 to ${MAX_BLOCK_SIZE_BYTES}`,
    });
  }
  if (block.maxGas < -1n) problems.push({ key: "block.max_gas", expected: "-1 (no limit) or a non-negative integer" });
  if (evidence.maxAgeNumBlocks <= 0n) {
    problems.push({ key: "evidence.max_age_num_blocks", expected: "a positive integer" });
  }
  if (evidence.maxAgeDuration <= 0n) {
    problems.push({
      key: "evidence.max_age_duration",
      expected: 'a positive duration in nanoseconds, e.g. "172800000000000" (48 hours)',
    });
  }
  const blockLimit = block.maxBytes === -1n ? MAX_BLOCK_SIZE_BYTES : block.maxBytes;
  if (evidence.maxBytes < 0n || evidence.maxBytes > blockLimit) {
    problems.push({
      key: "evidence.max_bytes",
      expected: `an integer from 0 to the block size limit (${blockLimit})`,
      dependsOn: ["block.max_bytes"],
    });
  }
  if (validator.pubKeyTypes.length === 0 || validator.pubKeyTypes.some((t) => !isKnownPubKeyType(t))) {
    problems.push({ key: "validator.pub_key_types", expected: 'a non-empty list of "ed25519" and/or "secp256k1"' });
  }
  if (version.app < 0n) problems.push({ key: "version.app", expected: "a non-negative integer" });
  if (abci.voteExtensionsEnableHeight < 0n) {
    problems.push({ key: "abci.vote_extensions_enable_height", expected: "a non-negative height (0 = off)" });
  }
  return problems;
}

function isKnownPubKeyType(type: string): boolean {
  return (VALIDATOR_PUB_KEY_TYPES as readonly string[]).includes(type);
}

/** The JSON form CometBFT writes (every 64-bit value as a string). */
export function consensusParamsToJson(params: ConsensusParams): JsonObject {
  return {
    block: { max_bytes: params.block.maxBytes.toString(), max_gas: params.block.maxGas.toString() },
    evidence: {
      max_age_num_blocks: params.evidence.maxAgeNumBlocks.toString(),
      max_age_duration: params.evidence.maxAgeDuration.toString(),
      max_bytes: params.evidence.maxBytes.toString(),
    },
    validator: { pub_key_types: [...params.validator.pubKeyTypes] },
    version: { app: params.version.app.toString() },
    abci: { vote_extensions_enable_height: params.abci.voteExtensionsEnableHeight.toString() },
  };
}
