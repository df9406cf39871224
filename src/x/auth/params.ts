// Auth params with upstream's defaults and validation (x/auth/types/params.go).
import { create } from "@bufbuild/protobuf";
import { UserError } from "../../errors/user-error.ts";
import { type Params, ParamsSchema } from "../../gen/chain/auth/v1beta1/auth_pb.js";

/** Upstream's defaults: memo 256, 7 signatures, 10 gas per tx byte, 590 ed25519, 1000 secp256k1. */
export function defaultAuthParams(): Params {
  return create(ParamsSchema, {
    maxMemoCharacters: 256n,
    txSigLimit: 7n,
    txSizeCostPerByte: 10n,
    sigVerifyCostEd25519: 590n,
    sigVerifyCostSecp256k1: 1000n,
  });
}

/** Throws an Error with upstream's text for the first zero parameter. */
export function validateAuthParams(params: Params): void {
  if (params.maxMemoCharacters === 0n)
    throw new AuthParamsError(`invalid max memo characters: ${params.maxMemoCharacters}`);
  if (params.txSigLimit === 0n) throw new AuthParamsError(`invalid tx signature limit: ${params.txSigLimit}`);
  if (params.sigVerifyCostEd25519 === 0n) {
    throw new AuthParamsError(`invalid ED25519 signature verification cost: ${params.sigVerifyCostEd25519}`);
  }
  if (params.sigVerifyCostSecp256k1 === 0n) {
    throw new AuthParamsError(`invalid SECK256k1 signature verification cost: ${params.sigVerifyCostSecp256k1}`);
  }
  if (params.txSizeCostPerByte === 0n)
    throw new AuthParamsError(`invalid tx size cost per byte: ${params.txSizeCostPerByte}`);
}

/** Thrown for auth params that break upstream's rules (genesis or MsgUpdateParams); the message says what is wrong (a user error: one line, no stack). */
export class AuthParamsError extends UserError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "AuthParamsError";
  }
}
