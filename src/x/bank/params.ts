// Bank params: the default send-enabled flag (true) and per-denom overrides kept in their own keys.
import { create } from "@bufbuild/protobuf";
import { validateDenom } from "../../app/coins.ts";
import { UserError } from "../../errors/user-error.ts";
import { type Params, ParamsSchema } from "../../gen/chain/bank/v1beta1/bank_pb.js";

/** Upstream's default: sends enabled for every denom. */
export function defaultBankParams(): Params {
  return create(ParamsSchema, { sendEnabled: [], defaultSendEnabled: true });
}

/** Throws an Error for an invalid denom or a duplicate in the (deprecated) send_enabled list. */
export function validateBankParams(params: Params): void {
  const seen = new Set<string>();
  for (const entry of params.sendEnabled) {
    if (seen.has(entry.denom)) throw new BankParamsError(`duplicate send enabled parameter found: '${entry.denom}'`);
    validateDenom(entry.denom);
    seen.add(entry.denom);
  }
}

/** Thrown for bank params that break upstream's rules (genesis or MsgUpdateParams); the message says what is wrong (a user error: one line, no stack). */
export class BankParamsError extends UserError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "BankParamsError";
  }
}
