// Plan helpers: the "zero" time rules, validation (docs/CONTRACT.md §2.1), the stored form and the JSON record the
// CLI and REST print.
import { create } from "@bufbuild/protobuf";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { ErrInvalidRequest } from "../../app/errors.ts";
import { type Plan, PlanSchema } from "../../gen/chain/upgrade/v1beta1/upgrade_pb.js";

/** Seconds of 0001-01-01T00:00:00Z, the zero time as upstream stores it. */
export const ZERO_TIME_SECONDS = -62135596800n;
/** The zero time as RFC 3339 text. */
export const ZERO_TIME_TEXT = "0001-01-01T00:00:00Z";

/** 0001-01-01T00:00:00Z as a Timestamp (the form every stored plan carries). */
export function zeroTime(): Timestamp {
  return { $typeName: "google.protobuf.Timestamp", seconds: ZERO_TIME_SECONDS, nanos: 0 };
}

/**
 * True for a "zero" plan time: the field absent, an all-default Timestamp, or 0001-01-01T00:00:00Z.
 * Anything else is a time-based upgrade, which is no longer supported.
 */
export function isZeroTime(time: Timestamp | undefined): boolean {
  if (time === undefined) return true;
  if (time.nanos !== 0) return false;
  return time.seconds === 0n || time.seconds === ZERO_TIME_SECONDS;
}

/**
 * Validates a plan; the first failure wins and each is `<message>: invalid request` (sdk 18):
 * a non-zero time, an upgraded client state, an empty name, a height ≤ 0.
 *
 * @example validatePlan(create(PlanSchema, { name: "", height: 5n })) // throws "name cannot be empty: invalid request"
 */
export function validatePlan(plan: Plan): void {
  if (!isZeroTime(plan.time)) throw ErrInvalidRequest.wrap("time-based upgrades have been deprecated in the SDK");
  if (plan.upgradedClientState !== undefined) {
    throw ErrInvalidRequest.wrap("upgrade logic for IBC has been moved to the IBC module");
  }
  if (plan.name === "") throw ErrInvalidRequest.wrap("name cannot be empty");
  if (plan.height <= 0n) throw ErrInvalidRequest.wrap("height must be greater than 0");
}

/** Parameters of {@link newPlan}. */
export interface NewPlanParameters {
  name: string;
  height: bigint;
  info?: string;
}

/** A plan in its stored form: the given name, height and info, time 0001-01-01T00:00:00Z, no client state. */
export function newPlan(parameters: NewPlanParameters): Plan {
  return create(PlanSchema, {
    name: parameters.name,
    height: parameters.height,
    info: parameters.info ?? "",
    time: zeroTime(),
  });
}

/** The stored form of a valid plan: the same fields with the time set to 0001-01-01T00:00:00Z. */
export function storedForm(plan: Plan): Plan {
  return newPlan({ name: plan.name, height: plan.height, info: plan.info });
}

/** True when the plan must run at `blockHeight`: due at its height and at every later one (an overdue plan). */
export function isDue(plan: Plan, blockHeight: bigint): boolean {
  return plan.height > 0n && plan.height <= blockHeight;
}

/** The plan record as REST and `-o json` print it: every field present, height as a string. */
export interface PlanJson {
  name: string;
  time: string;
  height: string;
  info: string;
  upgraded_client_state: null;
}

/**
 * The JSON record of a plan, fields in proto order:
 * `{"name":"v2","time":"0001-01-01T00:00:00Z","height":"130","info":"","upgraded_client_state":null}`.
 * Stored plans always carry the zero time and never a client state.
 */
export function planToJson(plan: Plan): PlanJson {
  return {
    name: plan.name,
    time: ZERO_TIME_TEXT,
    height: plan.height.toString(),
    info: plan.info,
    upgraded_client_state: null,
  };
}
