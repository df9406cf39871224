// Bank params: the default send-enabled flag (true) and per-denom overrides kept in their own keys.
import { create } from "@bufbuild/protobuf";
import { validateDenom } from "../../app/coins.ts";
import { type Params, ParamsSchema } from "../../gen/chain/bank/v1beta1/bank_pb.js";

/** Upstream's default: sends enabled for every denom. */
export function defaultBankParams(): Params {
  return create(ParamsSchema, { sendEnabled: [], defaultSendEnabled: true });
}

/** Throws an Error for an invalid denom or a duplicate in the (deprecated) send_enabled list. */
export function validateBankParams(params: Params): void {
  const seen = new Set<string>();
  for (const entry of params.sendEnabled) {
    if (seen.has(entry.denom)) throw new Error(`duplicate send enabled parameter found: '${entry.denom}'`);
    validateDenom(entry.denom);
    seen.add(entry.denom);
  }
}
