// `<home>/data/upgrade-info.json` (docs/CONTRACT.md §2.5): written by the old binary when it halts for an upgrade, read
// by the sidecar (to switch binaries) and by the new binary at start (to install its store loader).
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { ErrInvalidRequest } from "../../app/errors.ts";
import { writeFileAtomic } from "../../config/atomic-file.ts";
import { type Plan, PlanSchema } from "../../gen/chain/upgrade/v1beta1/upgrade_pb.js";
import { UpgradeInfoFileError } from "./errors.ts";
import { validatePlan, ZERO_TIME_TEXT, zeroTime } from "./plan.ts";

/** The file's name inside `<home>/data`. */
export const UPGRADE_INFO_FILENAME = "upgrade-info.json";

/** What upgrade-info.json says: the plan's name and info, and the height at which the node halted. */
export interface UpgradeInfo {
  name: string;
  height: bigint;
  info: string;
}

/** `<home>/data/upgrade-info.json`. */
export function upgradeInfoPath(home: string): string {
  return join(home, "data", UPGRADE_INFO_FILENAME);
}

/**
 * The file's exact content for a halt at `height`: Go `encoding/json` of the plan's name, the zero time,
 * `height` (a JSON number, overriding the plan's own) and its info (left out when empty), no spaces, no newline.
 *
 * @example encodeUpgradeInfo(11n, plan) // '{"name":"v2","time":"0001-01-01T00:00:00Z","height":11}'
 */
export function encodeUpgradeInfo(height: bigint, plan: Pick<Plan, "name" | "info">): string {
  const info = plan.info === "" ? "" : `,"info":${goJsonString(plan.info)}`;
  return `{"name":${goJsonString(plan.name)},"time":"${ZERO_TIME_TEXT}","height":${height}${info}}`;
}

/**
 * Writes upgrade-info.json atomically (temporary file, fsync, rename) with mode 0600, creating `<home>/data`
 * when missing. Writing it again replaces it, so a node halting twice at the same place writes the same bytes.
 */
export async function dumpUpgradeInfoToDisk(
  home: string,
  height: bigint,
  plan: Pick<Plan, "name" | "info">,
): Promise<string> {
  const path = upgradeInfoPath(home);
  const dir = join(home, "data");
  try {
    await mkdir(dir, { recursive: true });
  } catch (err) {
    throw new Error(`could not create directory "${dir}": ${(err as Error).message}`, { cause: err });
  }
  try {
    await writeFileAtomic(path, encodeUpgradeInfo(height, plan), 0o600);
  } catch (err) {
    throw new Error(`unable to write upgrade info to filesystem: ${(err as Error).message}`, { cause: err });
  }
  return path;
}

/**
 * Reads upgrade-info.json: undefined when the file does not exist; an {@link UpgradeInfoFileError} naming the
 * file when it cannot be read, is not JSON of the expected shape, or fails plan validation (empty name,
 * height ≤ 0, a non-zero time, a client state).
 */
export async function readUpgradeInfoFromDisk(home: string): Promise<UpgradeInfo | undefined> {
  const path = upgradeInfoPath(home);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new UpgradeInfoFileError(path, `cannot read the upgrade info file: ${(err as Error).message}`, {
      cause: err,
    });
  }
  return parseUpgradeInfo(text, path);
}

const EXPECTED_SHAPE = `expected {"name":"<plan name>","time":"${ZERO_TIME_TEXT}","height":<height>,"info":"<info>"}`;

/** Parses and validates the content of an upgrade-info.json; `path` is only used in error messages. */
export function parseUpgradeInfo(text: string, path: string): UpgradeInfo {
  let parsed: unknown;
  try {
    // Keep the source text of numbers so a height beyond 2^53 is read exactly.
    parsed = JSON.parse(text, (_key, value, context?: { source?: string }) =>
      typeof value === "number" && context?.source !== undefined ? new JsonNumberText(context.source) : value,
    );
  } catch (err) {
    const detail = text.trim() === "" ? "the file is empty" : `not valid JSON (${(err as Error).message})`;
    throw new UpgradeInfoFileError(path, `${detail}; ${EXPECTED_SHAPE}`, { cause: err });
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new UpgradeInfoFileError(path, `not a JSON object; ${EXPECTED_SHAPE}`);
  }
  const record = parsed as Record<string, unknown>;
  const name = optionalString(record.name, "name", path);
  const info = optionalString(record.info, "info", path);
  const height = optionalInteger(record.height, path);
  const plan = create(PlanSchema, { name, height, info });
  if (record.time !== undefined && record.time !== null) plan.time = parseTime(record.time, path);
  if (record.upgraded_client_state !== undefined && record.upgraded_client_state !== null) {
    plan.upgradedClientState = { $typeName: "google.protobuf.Any", typeUrl: "", value: new Uint8Array() };
  }
  try {
    validatePlan(plan);
  } catch (err) {
    throw new UpgradeInfoFileError(path, `invalid upgrade info: ${(err as Error).message}`, { cause: err });
  }
  return { name, height, info };
}

function optionalString(value: unknown, field: string, path: string): string {
  if (value === undefined || value === null) return "";
  if (typeof value !== "string") throw new UpgradeInfoFileError(path, `"${field}" must be a string; ${EXPECTED_SHAPE}`);
  return value;
}

// A JSON number as written in the file. A class, not a plain `{ number }` object, so that an object the file itself
// spells `{"number":"12"}` is not taken for a number.
class JsonNumberText {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

function optionalInteger(value: unknown, path: string): bigint {
  if (value === undefined || value === null) return 0n;
  const source = value instanceof JsonNumberText ? value.text : undefined;
  if (source === undefined || !/^-?\d+$/.test(source)) {
    throw new UpgradeInfoFileError(path, `"height" must be an integer JSON number; ${EXPECTED_SHAPE}`);
  }
  const height = BigInt(source);
  if (height >= 1n << 63n || height < -(1n << 63n)) {
    throw new UpgradeInfoFileError(path, `"height" ${source} does not fit a signed 64-bit integer`);
  }
  return height;
}

// The zero time in any RFC 3339 spelling Go's decoder accepts for it.
const ZERO_TIME_PATTERN = /^0001-01-01T00:00:00(?:\.0+)?(?:Z|[+-]00:00)$/;

function parseTime(value: unknown, path: string): Timestamp {
  if (typeof value !== "string") {
    throw new UpgradeInfoFileError(path, `"time" must be an RFC 3339 string (${ZERO_TIME_TEXT})`);
  }
  if (ZERO_TIME_PATTERN.test(value)) {
    return zeroTime();
  }
  if (Number.isNaN(Date.parse(value))) {
    throw new UpgradeInfoFileError(path, `"time" is not an RFC 3339 time: ${JSON.stringify(value)}`);
  }
  // Any other instant is a time-based plan: the first validation rule, with upstream's message.
  const err = ErrInvalidRequest.wrap("time-based upgrades have been deprecated in the SDK");
  throw new UpgradeInfoFileError(path, `invalid upgrade info: ${err.message}`, { cause: err });
}

/** A JSON string as Go's encoding/json writes it: HTML-sensitive characters and U+2028/9 escaped. */
function goJsonString(text: string): string {
  return JSON.stringify(text).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
