// The upgrade module's params: the readiness gate (docs/CONTRACT.md §13 "Params"). Stored under 0x06 as the binary
// Params, absent while they are the defaults (so a chain that never sets them keeps its upgrade store, and app hash, as
// before).
import { create, fromBinary, type JsonValue, toBinary } from "@bufbuild/protobuf";
import type { Context } from "../../app/context.ts";
import { DEC_ONE, formatDecimal, parseDecimal, parseDecimalInput } from "../../app/dec.ts";
import { ErrInvalidRequest } from "../../app/errors.ts";
import { UserError } from "../../errors/user-error.ts";
import { type Params, ParamsSchema } from "../../gen/chain/upgrade/v1beta1/upgrade_pb.js";
import { decodeUint64, encodeUint64, PARAMS_KEY, POSTPONEMENTS_KEY } from "./keys.ts";

/** readiness_postpone_blocks is a uint64 in Params. */
const MAX_UINT64 = (1n << 64n) - 1n;

/** The params as the gate uses them. */
export interface UpgradeParams {
  /** The ready fraction a plan needs, 10^18-scaled; 0 = gate off. */
  readinessThreshold: bigint;
  /** Blocks a plan moves when its network is not ready (≥ 1). */
  readinessPostponeBlocks: bigint;
  /** Postponements before the plan is cleared; 0 = no limit. */
  readinessMaxPostponements: number;
}

/** Gate off, 100 blocks, no limit. */
export function defaultUpgradeParams(): UpgradeParams {
  return { readinessThreshold: 0n, readinessPostponeBlocks: 100n, readinessMaxPostponements: 0 };
}

/** Refuses params outside their bounds (sdk 18 invalid request, naming the field and what it must be). */
export function validateUpgradeParams(params: UpgradeParams): void {
  if (params.readinessThreshold < 0n || params.readinessThreshold > DEC_ONE) {
    throw ErrInvalidRequest.wrap(
      `readiness_threshold must be between 0 and 1, got ${formatDecimal(params.readinessThreshold)}`,
    );
  }
  if (params.readinessPostponeBlocks < 1n) {
    throw ErrInvalidRequest.wrap("readiness_postpone_blocks must be at least 1");
  }
}

/** The protobuf form (threshold as 18-decimal LegacyDec text). */
export function paramsToProto(params: UpgradeParams): Params {
  return create(ParamsSchema, {
    readinessThreshold: formatDecimal(params.readinessThreshold),
    readinessPostponeBlocks: params.readinessPostponeBlocks,
    readinessMaxPostponements: params.readinessMaxPostponements,
  });
}

/**
 * Reads the protobuf form; a threshold that is not LegacyDec text is sdk 18 naming it. Stored params are read with
 * the lenient parse; a MsgUpdateParams (the sender's text) passes `parseDecimalInput`, upstream's strict one.
 */
export function paramsFromProto(
  params: Params,
  parse: (text: string, what: string) => bigint = parseDecimal,
): UpgradeParams {
  let threshold: bigint;
  try {
    threshold = parse(params.readinessThreshold, "readiness_threshold");
  } catch (error) {
    throw ErrInvalidRequest.wrap(error instanceof Error ? error.message : String(error));
  }
  return {
    readinessThreshold: threshold,
    readinessPostponeBlocks: params.readinessPostponeBlocks,
    readinessMaxPostponements: params.readinessMaxPostponements,
  };
}

/** The params in force (the defaults when none were set). */
export async function getUpgradeParams(ctx: Context, storeKey: string): Promise<UpgradeParams> {
  const bytes = await ctx.kvStore(storeKey).get(PARAMS_KEY);
  return bytes === undefined ? defaultUpgradeParams() : paramsFromProto(fromBinary(ParamsSchema, bytes));
}

/** Validates and stores `params`; the defaults delete the key. */
export async function setUpgradeParams(ctx: Context, storeKey: string, params: UpgradeParams): Promise<void> {
  validateUpgradeParams(params);
  const store = ctx.kvStore(storeKey);
  const d = defaultUpgradeParams();
  const isDefault =
    params.readinessThreshold === d.readinessThreshold &&
    params.readinessPostponeBlocks === d.readinessPostponeBlocks &&
    params.readinessMaxPostponements === d.readinessMaxPostponements;
  if (!isDefault) store.set(PARAMS_KEY, toBinary(ParamsSchema, paramsToProto(params)));
  else if (await store.has(PARAMS_KEY)) store.delete(PARAMS_KEY);
}

/** How many times the scheduled plan was postponed (0 when never). */
export async function getPostponements(ctx: Context, storeKey: string): Promise<bigint> {
  const bytes = await ctx.kvStore(storeKey).get(POSTPONEMENTS_KEY);
  return bytes === undefined ? 0n : decodeUint64(bytes, "the plan's postponement count");
}

/** Sets the count; 0 deletes it. */
export async function setPostponements(ctx: Context, storeKey: string, count: bigint): Promise<void> {
  const store = ctx.kvStore(storeKey);
  if (count > 0n) store.set(POSTPONEMENTS_KEY, encodeUint64(count));
  else if (await store.has(POSTPONEMENTS_KEY)) store.delete(POSTPONEMENTS_KEY);
}

/**
 * The params of `app_state.upgrade` (`{}` or `{"params":{...}}`, every field optional, defaults for the rest).
 * Throws a message naming the field for anything else.
 */
export function upgradeParamsFromGenesis(genesis: JsonValue): UpgradeParams {
  if (typeof genesis !== "object" || genesis === null || Array.isArray(genesis)) {
    throw new UpgradeGenesisError(
      `the upgrade genesis must be an object ({} or {"params":{…}}), got ${JSON.stringify(genesis)}`,
    );
  }
  const extra = Object.keys(genesis).filter((k) => k !== "params");
  if (extra.length > 0)
    throw new UpgradeGenesisError(`unknown field ${extra[0]} in the upgrade genesis: expected only params`);
  const raw = genesis.params;
  const out = defaultUpgradeParams();
  if (raw === undefined || raw === null) return out;
  if (typeof raw !== "object" || Array.isArray(raw)) throw new UpgradeGenesisError("upgrade.params must be an object");
  for (const [key, value] of Object.entries(raw)) {
    if (key === "readiness_threshold") {
      if (typeof value !== "string")
        throw new UpgradeGenesisError("upgrade.params.readiness_threshold: expected LegacyDec text");
      out.readinessThreshold = parseDecimalInput(value, "upgrade.params.readiness_threshold");
    } else if (key === "readiness_postpone_blocks") {
      if (!(typeof value === "string" || typeof value === "number") || !/^\d+$/.test(String(value))) {
        throw new UpgradeGenesisError(
          'upgrade.params.readiness_postpone_blocks: expected an unsigned integer such as "100"',
        );
      }
      const blocks = BigInt(value);
      if (blocks > MAX_UINT64) {
        throw new UpgradeGenesisError(
          `upgrade.params.readiness_postpone_blocks: expected a 64-bit unsigned integer (at most ${MAX_UINT64}), got "${value}"`,
        );
      }
      out.readinessPostponeBlocks = blocks;
    } else if (key === "readiness_max_postponements") {
      if (!(typeof value === "string" || typeof value === "number") || !/^\d+$/.test(String(value))) {
        throw new UpgradeGenesisError(
          "upgrade.params.readiness_max_postponements: expected an unsigned integer such as 0",
        );
      }
      const n = Number(value);
      if (n > 0xffffffff)
        throw new UpgradeGenesisError("upgrade.params.readiness_max_postponements: expected a 32-bit unsigned integer");
      out.readinessMaxPostponements = n;
    } else {
      throw new UpgradeGenesisError(`unknown field upgrade.params.${key}`);
    }
  }
  validateUpgradeParams(out);
  return out;
}

/** The genesis JSON of `params` (`{}` for the defaults). */
export function upgradeParamsToGenesis(params: UpgradeParams): JsonValue {
  const d = defaultUpgradeParams();
  if (
    params.readinessThreshold === d.readinessThreshold &&
    params.readinessPostponeBlocks === d.readinessPostponeBlocks &&
    params.readinessMaxPostponements === d.readinessMaxPostponements
  ) {
    return {};
  }
  return {
    params: {
      readiness_threshold: formatDecimal(params.readinessThreshold),
      readiness_postpone_blocks: params.readinessPostponeBlocks.toString(),
      readiness_max_postponements: params.readinessMaxPostponements,
    },
  };
}

/** Thrown for an upgrade genesis state or params that cannot be read; the message says what is wrong (a user error: one line, no stack). */
export class UpgradeGenesisError extends UserError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "UpgradeGenesisError";
  }
}
