// Consensus params: conversions between the engine's plain form and the generated tendermint.types message,
// and CometBFT's update rule (each section present in an update replaces that section).
import { create } from "@bufbuild/protobuf";
import { DurationSchema } from "@bufbuild/protobuf/wkt";
import { UserError } from "../errors/user-error.ts";
import {
  ConsensusParamsSchema,
  type ConsensusParams as ProtoConsensusParams,
} from "../gen/tendermint/types/params_pb.js";
import type { ConsensusParams } from "./types.ts";

/** Raised for params CometBFT's ValidateBasic would refuse. */
export class ConsensusParamsError extends UserError {
  override name = "ConsensusParamsError";
}

/** The generated message holding every section. */
export function consensusParamsToProto(p: ConsensusParams): ProtoConsensusParams {
  return create(ConsensusParamsSchema, {
    block: { maxBytes: p.block.maxBytes, maxGas: p.block.maxGas },
    evidence: {
      maxAgeNumBlocks: p.evidence.maxAgeNumBlocks,
      maxAgeDuration: create(DurationSchema, {
        seconds: p.evidence.maxAgeDuration.seconds,
        nanos: p.evidence.maxAgeDuration.nanos,
      }),
      maxBytes: p.evidence.maxBytes,
    },
    validator: { pubKeyTypes: [...p.validator.pubKeyTypes] },
    version: { app: p.version.app },
    abci: { voteExtensionsEnableHeight: p.abci.voteExtensionsEnableHeight },
  });
}

/** `base` with every section present in `update` replaced (CometBFT `ConsensusParams.Update`), then validated. */
export function updateConsensusParams(
  base: ConsensusParams,
  update: ProtoConsensusParams | undefined,
): ConsensusParams {
  if (update === undefined) return base;
  const next: ConsensusParams = structuredClone(base);
  if (update.block !== undefined) next.block = { maxBytes: update.block.maxBytes, maxGas: update.block.maxGas };
  if (update.evidence !== undefined) {
    next.evidence = {
      maxAgeNumBlocks: update.evidence.maxAgeNumBlocks,
      maxAgeDuration: {
        seconds: update.evidence.maxAgeDuration?.seconds ?? 0n,
        nanos: update.evidence.maxAgeDuration?.nanos ?? 0,
      },
      maxBytes: update.evidence.maxBytes,
    };
  }
  if (update.validator !== undefined) next.validator = { pubKeyTypes: [...update.validator.pubKeyTypes] };
  if (update.version !== undefined) next.version = { app: update.version.app };
  if (update.abci !== undefined) next.abci = { voteExtensionsEnableHeight: update.abci.voteExtensionsEnableHeight };
  validateConsensusParams(next);
  return next;
}

/**
 * The rules CometBFT's `ConsensusParams.ValidateUpdate` sets on FinalizeBlock's update of block `height`: the vote
 * extensions' enable height may be set only to a height after `height` (the precommits of `height` are already being
 * made without them), never back to 0, and not changed once the height it named has been reached.
 */
export function validateConsensusParamsUpdate(
  current: ConsensusParams,
  update: ProtoConsensusParams | undefined,
  height: bigint,
): void {
  if (update?.abci === undefined) return;
  const was = current.abci.voteExtensionsEnableHeight;
  const next = update.abci.voteExtensionsEnableHeight;
  if (next === was) return;
  if (was !== 0n && next === 0n) throw new ConsensusParamsError("vote extensions cannot be disabled once enabled");
  if (next <= height) {
    throw new ConsensusParamsError(
      `VoteExtensionsEnableHeight cannot be updated to a past height, initial height: ${was}, current height ${height}, requested ${next}`,
    );
  }
  if (was !== 0n && was <= height) {
    throw new ConsensusParamsError(
      `VoteExtensionsEnableHeight cannot be modified once the initial height has occurred, initial height: ${was}, current height ${height}`,
    );
  }
}

/** Checks the rules of CometBFT's `ConsensusParams.ValidateBasic` that matter to the engine. */
export function validateConsensusParams(p: ConsensusParams): void {
  const MAX_BLOCK = 104857600n;
  if (p.block.maxBytes === 0n) throw new ConsensusParamsError("block.MaxBytes cannot be 0");
  if (p.block.maxBytes < -1n)
    throw new ConsensusParamsError(`block.MaxBytes must be -1 or greater than 0. Got ${p.block.maxBytes}`);
  if (p.block.maxBytes > MAX_BLOCK) {
    throw new ConsensusParamsError(`block.MaxBytes is too big. ${p.block.maxBytes} > ${MAX_BLOCK}`);
  }
  if (p.block.maxGas < -1n)
    throw new ConsensusParamsError(`block.MaxGas must be greater or equal to -1. Got ${p.block.maxGas}`);
  if (p.evidence.maxAgeNumBlocks <= 0n) {
    throw new ConsensusParamsError(
      `evidence.MaxAgeNumBlocks must be greater than 0. Got ${p.evidence.maxAgeNumBlocks}`,
    );
  }
  if (p.validator.pubKeyTypes.length === 0)
    throw new ConsensusParamsError("len(Validator.PubKeyTypes) must be greater than 0");
  for (const t of p.validator.pubKeyTypes) {
    if (t !== "ed25519" && t !== "secp256k1")
      throw new ConsensusParamsError(`params.Validator.PubKeyTypes contains unknown pubkey type ${t}`);
  }
}
