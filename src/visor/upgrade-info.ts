// data/upgrade-info.json: the file the node writes when it halts for an upgrade (docs/CONTRACT.md §2.5), and the copy chainvisor
// keeps in each upgrade directory to remember which plan that release was installed for.
import { randomBytes } from "node:crypto";
import { mkdir, open, readFile, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { errorCode, errorMessage, VisorError } from "./errors.ts";

/** An upgrade plan as chainvisor needs it. */
export interface UpgradePlan {
  name: string;
  height: bigint;
  /** Free-form; may hold the binaries map (inline JSON) or a URL to it. Empty when absent. */
  info: string;
}

const ZERO_TIME = "0001-01-01T00:00:00Z";

/**
 * Parses and validates the content of an upgrade-info.json (`height` as a JSON number, or a decimal string as
 * protobuf JSON writes it). Every failure names the file.
 * @example parseUpgradeInfo('{"name":"v2","height":130}', "/home/data/upgrade-info.json")
 */
export function parseUpgradeInfo(text: string, source: string): UpgradePlan {
  if (text.trim() === "") throw emptyUpgradeInfoError(source);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new VisorError(`cannot parse ${source}: ${errorMessage(error)}`, {
      details: ['expected {"name":"<plan>","time":"0001-01-01T00:00:00Z","height":<number>,"info":"<info>"}'],
    });
  }
  const invalid = (reason: string) => new VisorError(`invalid upgrade-info.json content in ${source}: ${reason}`);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalid("expected a JSON object with name, time, height and info");
  }
  const record = value as Record<string, unknown>;
  const time = record.time;
  if (time !== undefined && time !== null && time !== "" && time !== ZERO_TIME) {
    throw invalid("time-based upgrades have been deprecated in the SDK");
  }
  if (record.upgraded_client_state !== undefined && record.upgraded_client_state !== null) {
    throw invalid("upgrade logic for IBC has been moved to the IBC module");
  }
  const name = record.name ?? "";
  if (typeof name !== "string") throw invalid(`"name" must be a string, got ${JSON.stringify(name)}`);
  if (name === "") throw invalid("name cannot be empty");
  const height = parseHeight(record.height);
  if (height === undefined) {
    throw invalid(
      `"height" must be an integer (a JSON number or a decimal string), got ${JSON.stringify(record.height)}`,
    );
  }
  if (height <= 0n) throw invalid("height must be greater than 0");
  const info = record.info ?? "";
  if (typeof info !== "string") throw invalid(`"info" must be a string, got ${JSON.stringify(info)}`);
  return { name, height, info };
}

/** The error for an upgrade-info.json with no content (cosmovisor's wording), naming the file. */
export function emptyUpgradeInfoError(source: string): VisorError {
  return new VisorError(`empty upgrade-info.json in "${source}"`);
}

function parseHeight(value: unknown): bigint | undefined {
  if (value === undefined || value === null) return 0n;
  if (typeof value === "number") return Number.isSafeInteger(value) ? BigInt(value) : undefined;
  if (typeof value === "string" && /^-?[0-9]+$/.test(value)) return BigInt(value);
  return undefined;
}

/**
 * Reads and parses an upgrade-info.json; `undefined` when the file does not exist.
 */
export async function readUpgradeInfo(path: string): Promise<UpgradePlan | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw new VisorError(`error while reading ${path}: ${errorMessage(error)}`, { cause: error });
  }
  return parseUpgradeInfo(text, path);
}

/** The file's content in the node's own format: height a JSON number, `info` omitted when empty. */
export function formatUpgradeInfo(plan: UpgradePlan): string {
  const info = plan.info === "" ? "" : `,"info":${JSON.stringify(plan.info)}`;
  return `{"name":${JSON.stringify(plan.name)},"time":"${ZERO_TIME}","height":${plan.height}${info}}`;
}

/**
 * Writes a file atomically (temporary file, fsync, rename), so a reader never sees it half written.
 */
export async function writeFileAtomic(path: string, content: string, mode = 0o600): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    const handle = await open(temporary, "w", mode);
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** Writes an upgrade-info.json atomically with mode 0600, as the node does. */
export async function writeUpgradeInfo(path: string, plan: UpgradePlan): Promise<void> {
  await writeFileAtomic(path, formatUpgradeInfo(plan));
}

/** "v2 at height 130", for log lines. */
export function describePlan(plan: UpgradePlan): string {
  return `"${plan.name}" at height ${plan.height}`;
}
