// Configuration from the environment, with cosmovisor's variable names, defaults, parsing and error texts so an
// operator can move a cosmovisor setup over unchanged. Every problem is collected and reported together.
import { statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { goPathError, VisorConfigError } from "./errors.ts";
import { parseGoDuration } from "./go-duration.ts";

/** The environment (or a test's stand-in for it). */
export type Env = Readonly<Record<string, string | undefined>>;

/** chainvisor's effective configuration. Durations are in milliseconds. */
export interface VisorConfig {
  /** DAEMON_HOME: the node's home; chainvisor's own files live in `<home>/chainvisor`. */
  home: string;
  /** DAEMON_NAME: the executable's file name inside every `bin/`. */
  name: string;
  allowDownloadBinaries: boolean;
  /** Unlike cosmovisor this defaults to true: a download must carry a checksum unless explicitly allowed. */
  downloadMustHaveChecksum: boolean;
  restartAfterUpgrade: boolean;
  restartDelayMs: number;
  shutdownGraceMs: number;
  pollIntervalMs: number;
  dataBackupDir: string;
  unsafeSkipBackup: boolean;
  preUpgradeMaxRetries: number;
  /** CHAINVISOR_API_URL: overrides the REST address read from `<home>/config/app.toml`. */
  apiUrl: string | undefined;
  /** CHAINVISOR_PLAN_POLL_INTERVAL: how often the node's current plan is read over REST to stage binaries. */
  planPollIntervalMs: number;
  /** DAEMON_DOWNLOAD_MAX_SIZE: the most bytes one download may bring, and the most its archive may unpack to. */
  downloadMaxBytes: number;
  /** DAEMON_METRICS_ADDR: where `run` serves its Prometheus metrics (GET /metrics); undefined = off. */
  metricsAddr: { host: string; port: number } | undefined;
  /**
   * DAEMON_SWITCH_AHEAD: restart the node on a staged release that carries the running one, in the in-place mode,
   * before the plan's height (src/visor/switch-ahead.ts). Off by default.
   */
  switchAhead: boolean;
  /** DAEMON_SWITCH_AHEAD_WINDOW: the restart happens at a random moment within this long after staging. */
  switchAheadWindowMs: number;
  /** DAEMON_SWITCH_AHEAD_GUARD: never restart ahead within this many blocks of the plan's height. */
  switchAheadGuard: bigint;
}

/** How much of the configuration a command needs validated. */
export type ConfigCheck = "full" | "init";

/** The environment variable names chainvisor reads. */
export const ENV = {
  home: "DAEMON_HOME",
  name: "DAEMON_NAME",
  allowDownload: "DAEMON_ALLOW_DOWNLOAD_BINARIES",
  mustHaveChecksum: "DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM",
  restartAfterUpgrade: "DAEMON_RESTART_AFTER_UPGRADE",
  restartDelay: "DAEMON_RESTART_DELAY",
  shutdownGrace: "DAEMON_SHUTDOWN_GRACE",
  pollInterval: "DAEMON_POLL_INTERVAL",
  backupDir: "DAEMON_DATA_BACKUP_DIR",
  skipBackup: "UNSAFE_SKIP_BACKUP",
  preUpgradeMaxRetries: "DAEMON_PREUPGRADE_MAX_RETRIES",
  apiUrl: "CHAINVISOR_API_URL",
  planPollInterval: "CHAINVISOR_PLAN_POLL_INTERVAL",
  downloadMaxSize: "DAEMON_DOWNLOAD_MAX_SIZE",
  metricsAddr: "DAEMON_METRICS_ADDR",
  switchAhead: "DAEMON_SWITCH_AHEAD",
  switchAheadWindow: "DAEMON_SWITCH_AHEAD_WINDOW",
  switchAheadGuard: "DAEMON_SWITCH_AHEAD_GUARD",
} as const;

/** The directory chainvisor owns inside DAEMON_HOME. */
export const ROOT_DIR_NAME = "chainvisor";

const DEFAULT_POLL_INTERVAL_MS = 300;
const DEFAULT_PLAN_POLL_INTERVAL_MS = 5_000;
/** 10 minutes: validators of one network spread their restarts over this long by default. */
export const DEFAULT_SWITCH_AHEAD_WINDOW_MS = 10 * 60_000;
/** 20 blocks: closer than this to the plan's height, a restart ahead is given up for the halt path. */
export const DEFAULT_SWITCH_AHEAD_GUARD = 20n;
/** 1 GiB: five times today's unpacked release, far below what would fill a validator's disk by surprise. */
export const DEFAULT_DOWNLOAD_MAX_BYTES = 1024 ** 3;

/**
 * Reads and validates the configuration; throws a {@link VisorConfigError} listing every problem.
 * `check: "init"` checks DAEMON_HOME and DAEMON_NAME only, as cosmovisor's init: not the chainvisor and backup
 * directories, which need an initialised home, nor the variables only the other commands use.
 * @example const config = loadConfig(process.env);
 */
export function loadConfig(env: Env, check: ConfigCheck = "full"): VisorConfig {
  const problems: string[] = [];
  const home = env[ENV.home] ?? "";
  const name = env[ENV.name] ?? "";
  const bool = (variable: string, fallback: boolean) => {
    const value = (env[variable] ?? "").toLowerCase();
    if (value === "") return fallback;
    if (value === "true") return true;
    if (value === "false") return false;
    problems.push(`env variable "${variable}" must have a boolean value ("true" or "false"), got "${value}"`);
    return false;
  };
  const duration = (variable: string, fallbackMs: number) => {
    const value = env[variable] ?? "";
    if (value === "") return fallbackMs;
    let nanos: bigint;
    try {
      nanos = parseGoDuration(value);
    } catch (error) {
      problems.push(`invalid: ${variable}: could not parse '${value}' into a duration: ${(error as Error).message}`);
      return fallbackMs;
    }
    if (nanos <= 0n) {
      problems.push(`invalid: ${variable}: must be greater than 0`);
      return fallbackMs;
    }
    return Number(nanos) / 1e6;
  };

  const allowDownloadBinaries = bool(ENV.allowDownload, false);
  const downloadMustHaveChecksum = bool(ENV.mustHaveChecksum, true);
  const restartAfterUpgrade = bool(ENV.restartAfterUpgrade, true);
  const unsafeSkipBackup = bool(ENV.skipBackup, false);
  const pollIntervalMs = duration(ENV.pollInterval, DEFAULT_POLL_INTERVAL_MS);
  const restartDelayMs = duration(ENV.restartDelay, 0);
  const shutdownGraceMs = duration(ENV.shutdownGrace, 0);
  const preUpgradeMaxRetries = parseGoInt(env[ENV.preUpgradeMaxRetries] ?? "", problems);
  const apiUrl = parseApiUrl(env[ENV.apiUrl] ?? "", problems);
  const planPollIntervalMs = duration(ENV.planPollInterval, DEFAULT_PLAN_POLL_INTERVAL_MS);
  const dataBackupDir = env[ENV.backupDir] || home;
  const downloadMaxBytes = parseByteSize(env[ENV.downloadMaxSize] ?? "", problems);
  const metricsAddr = parseMetricsAddr(env[ENV.metricsAddr] ?? "", problems);
  const switchAhead = bool(ENV.switchAhead, false);
  const switchAheadWindowMs = parseSwitchAheadWindow(env[ENV.switchAheadWindow] ?? "", problems);
  const switchAheadGuard = parseSwitchAheadGuard(env[ENV.switchAheadGuard] ?? "", problems);

  // cosmovisor's init reads DAEMON_HOME and DAEMON_NAME only: a variable meant for `run` that is wrong must not stop
  // the genesis release from being installed (every other command reports it). Its default stands in meanwhile.
  if (check === "init") problems.length = 0;
  if (name === "") problems.push(`${ENV.name} is not set`);
  else if (name.includes("/") || name === "." || name === "..") {
    problems.push(`${ENV.name} must be a plain file name, got "${name}"`);
  }
  if (home === "") problems.push(`${ENV.home} is not set`);
  else if (!isAbsolute(home)) problems.push(`${ENV.home} must be an absolute path`);
  else if (check === "full") {
    const root = join(home, ROOT_DIR_NAME);
    const stat = statOrError(root);
    if (typeof stat === "string") problems.push(`cannot stat home dir: ${stat}`);
    else if (!stat.isDirectory()) problems.push(`${root} is not a directory`);
  }
  if (check === "full" && !unsafeSkipBackup) {
    if (dataBackupDir === "") problems.push(`${ENV.backupDir} must not be empty`);
    else if (!isAbsolute(dataBackupDir)) problems.push(`${dataBackupDir} must be an absolute path`);
    else {
      const stat = statOrError(dataBackupDir);
      if (typeof stat === "string") problems.push(`"${dataBackupDir}" must be a valid directory: ${stat}`);
      else if (!stat.isDirectory()) problems.push(`"${dataBackupDir}" must be a valid directory`);
    }
  }
  if (problems.length > 0) throw new VisorConfigError(problems);
  return {
    home,
    name,
    allowDownloadBinaries,
    downloadMustHaveChecksum,
    restartAfterUpgrade,
    restartDelayMs,
    shutdownGraceMs,
    pollIntervalMs,
    dataBackupDir,
    unsafeSkipBackup,
    preUpgradeMaxRetries,
    apiUrl,
    planPollIntervalMs,
    downloadMaxBytes,
    metricsAddr,
    switchAhead,
    switchAheadWindowMs,
    switchAheadGuard,
  };
}

/**
 * DAEMON_SWITCH_AHEAD_WINDOW: a Go duration with a unit (`10m`, `90s`, `1h`), more than 0; empty means 10m.
 * @example parseSwitchAheadWindow("2m", []) === 120000
 */
export function parseSwitchAheadWindow(value: string, problems: string[]): number {
  if (value === "") return DEFAULT_SWITCH_AHEAD_WINDOW_MS;
  let nanos: bigint | undefined;
  try {
    nanos = parseGoDuration(value);
  } catch {
    nanos = undefined;
  }
  if (nanos === undefined || nanos <= 0n) {
    problems.push(
      `invalid: ${ENV.switchAheadWindow}: expected a duration greater than 0 with a unit such as 10m, 90s or 1h30m, got "${value}"`,
    );
    return DEFAULT_SWITCH_AHEAD_WINDOW_MS;
  }
  return Number(nanos) / 1e6;
}

/**
 * DAEMON_SWITCH_AHEAD_GUARD: a whole number of blocks, 0 or more; empty means 20.
 * @example parseSwitchAheadGuard("50", []) === 50n
 */
export function parseSwitchAheadGuard(value: string, problems: string[]): bigint {
  if (value === "") return DEFAULT_SWITCH_AHEAD_GUARD;
  if (!/^[0-9]{1,18}$/.test(value)) {
    problems.push(
      `invalid: ${ENV.switchAheadGuard}: expected a whole number of blocks (0 or more, e.g. 20), got "${value}"`,
    );
    return DEFAULT_SWITCH_AHEAD_GUARD;
  }
  return BigInt(value);
}

// "host:port" or ":port" (every interface), as CometBFT's prometheus_listen_addr; "" = metrics off.
function parseMetricsAddr(value: string, problems: string[]): VisorConfig["metricsAddr"] {
  if (value === "") return undefined;
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:\s/]*):([0-9]{1,5})$/.exec(value);
  const port = match === null ? Number.NaN : Number(match[2]);
  if (match === null || port > 65535) {
    problems.push(
      `invalid: ${ENV.metricsAddr}: expected "<host>:<port>" or ":<port>" (e.g. "127.0.0.1:26661"), got "${value}"`,
    );
    return undefined;
  }
  const host = (match[1] as string).replace(/^\[|\]$/g, "");
  return { host: host === "" ? "0.0.0.0" : host, port };
}

function statOrError(path: string) {
  try {
    return statSync(path);
  } catch (error) {
    return goPathError("stat", path, error);
  }
}

// Go's strconv.Atoi: an optional sign and decimal digits, nothing else, within 64 bits. Empty means the default 0.
function parseGoInt(value: string, problems: string[]): number {
  if (value === "") return 0;
  const fail = (reason: string) => {
    problems.push(
      `${ENV.preUpgradeMaxRetries} could not be parsed to int: strconv.Atoi: parsing "${value}": ${reason}`,
    );
    return 0;
  };
  if (!/^[+-]?[0-9]+$/.test(value)) return fail("invalid syntax");
  const parsed = BigInt(value);
  if (parsed > (1n << 63n) - 1n || parsed < -(1n << 63n)) return fail("value out of range");
  return Number(parsed);
}

function parseApiUrl(value: string, problems: string[]): string | undefined {
  if (value === "") return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    url = new URL("invalid:");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    problems.push(`${ENV.apiUrl} must be an http:// or https:// URL such as http://localhost:1317, got "${value}"`);
    return undefined;
  }
  return value.replace(/\/+$/, "");
}

const BYTE_UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
};

/**
 * A size such as `1073741824`, `512MiB`, `2GB` or `1.5GiB` (units in any case; K/M/G alone mean KiB/MiB/GiB);
 * empty means the default. Must be at least 1 byte.
 * @example parseByteSize("512MiB", []) === 536870912
 */
export function parseByteSize(value: string, problems: string[]): number {
  if (value.trim() === "") return DEFAULT_DOWNLOAD_MAX_BYTES;
  const match = /^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-z]*)\s*$/i.exec(value);
  let unit = match?.[2].toLowerCase() ?? "";
  if (unit === "k" || unit === "m" || unit === "g" || unit === "t") unit = `${unit}ib`;
  const factor = BYTE_UNITS[unit];
  const bytes = match === null || factor === undefined ? Number.NaN : Math.floor(Number(match[1]) * factor);
  if (!Number.isSafeInteger(bytes) || bytes < 1) {
    problems.push(
      `invalid: ${ENV.downloadMaxSize}: expected a size of at least 1 byte such as 1073741824, 512MiB or 2GB, got "${value}"`,
    );
    return DEFAULT_DOWNLOAD_MAX_BYTES;
  }
  return bytes;
}
