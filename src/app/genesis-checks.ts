// The genesis checks InitChain makes before any module state is written: app_state must be a JSON object keyed by
// module name, and the validators CometBFT sends must be the ones the modules' genesis yields (as upstream's
// InitChainer checks).
import type { JsonValue } from "@bufbuild/protobuf";
import type { RequestInitChain } from "../gen/tendermint/abci/types_pb.js";
import { AppStateError } from "./app-state-error.ts";
import type { ValidatorUpdate } from "./module.ts";
import { GenesisError } from "./module-manager.ts";

/** Parses genesis app_state bytes (empty → every module's default). */
export function parseAppState(bytes: Uint8Array): Record<string, JsonValue> {
  if (bytes.length === 0) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(bytes));
  } catch (err) {
    throw new GenesisError("app_state", `not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new GenesisError("app_state", "expected a JSON object keyed by module name");
  }
  return parsed as Record<string, JsonValue>;
}

/** Fails unless `requested` (InitChain's validators) and `fromModules` hold the same keys and powers. */
export function checkGenesisValidators(
  requested: RequestInitChain["validators"],
  fromModules: readonly ValidatorUpdate[],
): void {
  const key = (type: string, pubKey: Uint8Array, power: bigint) =>
    `${type}:${Buffer.from(pubKey).toString("hex")}:${power}`;
  const a = requested
    .map((v) => key(v.pubKey?.sum.case ?? "", v.pubKey?.sum.value ?? new Uint8Array(), v.power))
    .sort();
  const b = fromModules.map((v) => key(v.pubKey.type, v.pubKey.key, v.power)).sort();
  if (a.length !== b.length) {
    throw new AppStateError(`len(RequestInitChain.Validators) != len(GenesisValidators) (${a.length} != ${b.length})`);
  }
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) throw new AppStateError(`genesisValidators[${i}] != req.Validators[${i}]`);
  }
}
