// The decisions of DAEMON_SWITCH_AHEAD, without any I/O: whether a staged release carries the running one (from the
// two binaries' `version --long --output json`), when within the window to restart, whether the plan's height is
// too close to restart at all, and where the in-place flag goes in the node's arguments.
import { VisorError } from "./errors.ts";

/** The flag that starts the node in the in-place mode (chaind's `start --in-place-upgrades`). */
export const IN_PLACE_FLAG = "--in-place-upgrades";
/** Flags that already ask for that mode (the first is its older name). */
const IN_PLACE_FLAGS = new Set(["--replay-releases", IN_PLACE_FLAG]);

/** One release a binary carries. */
export interface CarriedRelease {
  release: string;
  version: string;
}

/** What a binary's `version --long --output json` says about itself and the releases it carries. */
export interface VersionReport extends CarriedRelease {
  /** Oldest first, ending with the binary's own release. Empty for a binary that predates the field. */
  releaseLine: CarriedRelease[];
}

const isCarried = (value: unknown): value is CarriedRelease =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as CarriedRelease).release === "string" &&
  typeof (value as CarriedRelease).version === "string";

/**
 * Parses a binary's `version --long --output json`. A binary without `release_line` (an older release) reports an
 * empty line: it carries nothing it could be trusted with ahead of a height.
 * @example parseVersionReport('{"release":"v2","version":"2.0.0","release_line":[...]}', "/h/upgrades/v2/bin/chaind")
 */
export function parseVersionReport(text: string, binary: string): VersionReport {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const record = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : undefined;
  if (record === undefined || typeof record.release !== "string" || typeof record.version !== "string") {
    throw new VisorError(
      `${binary} version --long --output json did not print {"release":...,"version":...,"release_line":[...]}: got ${JSON.stringify(text.trim().slice(0, 200))}`,
    );
  }
  const line = Array.isArray(record.release_line) ? record.release_line.filter(isCarried) : [];
  return {
    release: record.release,
    version: record.version,
    releaseLine: line.map((entry) => ({ release: entry.release, version: entry.version })),
  };
}

/**
 * Whether `staged` can take over a node running `running` ahead of the height: it is another release, and its line
 * holds the running release with the same version (so it runs today's rules until the plan comes due).
 */
export function carriesRelease(staged: VersionReport, running: VersionReport): boolean {
  if (staged.release === running.release && staged.version === running.version) return false;
  return staged.releaseLine.some((entry) => entry.release === running.release && entry.version === running.version);
}

/**
 * The delay before the restart: a moment drawn uniformly within the window, so the validators of one network
 * restart at different blocks. `random` returns a number in [0, 1) (Math.random, or a seeded source in tests).
 * @example switchDelayMs(600_000, () => 0.5) === 300_000
 */
export function switchDelayMs(windowMs: number, random: () => number): number {
  const draw = random();
  const fraction = Number.isFinite(draw) ? Math.min(Math.max(draw, 0), 1) : 0;
  return Math.min(Math.floor(fraction * windowMs), Math.max(windowMs - 1, 0));
}

/**
 * True when a restart at `height` would come within `guard` blocks of the plan's height: too late to switch ahead
 * (a slow start could miss the height), so the halt path is left to do the switch.
 * @example tooCloseToHeight(100n, 80n, 20n) === true
 */
export function tooCloseToHeight(planHeight: bigint, height: bigint, guard: bigint): boolean {
  return planHeight - height <= guard;
}

/**
 * The node's arguments with the in-place flag after `start` (before any `--`), or undefined when they hold no
 * `start` command to give it to. Arguments that already ask for the mode are returned as they are.
 * @example inPlaceArgs(["start", "--home", "/h"]) // ["start", "--in-place-upgrades", "--home", "/h"]
 */
export function inPlaceArgs(args: readonly string[]): string[] | undefined {
  const end = args.indexOf("--");
  const own = end === -1 ? args : args.slice(0, end);
  if (own.some((arg) => IN_PLACE_FLAGS.has(arg))) return [...args];
  const start = own.indexOf("start");
  if (start === -1) return undefined;
  return [...args.slice(0, start + 1), IN_PLACE_FLAG, ...args.slice(start + 1)];
}

/**
 * A seeded source of numbers in [0, 1) (mulberry32), for tests that need the same draws every run.
 * @example const random = seededRandom(42); random(); // always the same first draw
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
