// Plan Info validation for `tx upgrade software-upgrade` (docs/CONTRACT.md §8): the info is JSON with a `binaries` map of
// `os/arch` (Go's names) or `any` to download URLs carrying `checksum=<sha256|sha512>:<hex>`. Unless told not
// to, every binary is downloaded, its checksum verified, and an archive checked for `bin/<daemon>` or `<daemon>`.
import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdtemp, open, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { unzipSync } from "fflate";
import * as tar from "tar";
import { currentBinaryName } from "../../config/home.ts";
import { fetchFailure } from "../../errors/fetch-failure.ts";
import { UserError } from "../../errors/user-error.ts";

/** The parsed info: only `binaries` is read; other keys are ignored. */
export interface PlanInfo {
  binaries: Record<string, string>;
}

/** A problem with the plan info; the message says what was wrong and what was expected. */
export class PlanInfoError extends UserError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "PlanInfoError";
  }
}

/** Options of {@link validatePlanInfo}. */
export interface ValidatePlanInfoOptions {
  /** Every URL must carry a checksum (the default; `--no-checksum-required` turns it off). */
  enforceChecksum?: boolean;
  /** The daemon's executable name an archive must hold as `bin/<name>` or `<name>` (default `chaind`). */
  daemonName?: string;
  /** Download each binary and verify it (default true). */
  download?: boolean;
  /** Abort a single download after this many milliseconds (default 10 minutes). */
  downloadTimeoutMs?: number;
}

// Go's GOOS and GOARCH values: the sidecar picks the entry for its own platform by these names.
const GO_OS = new Set(
  "aix android darwin dragonfly freebsd hurd illumos ios js linux nacl netbsd openbsd plan9 solaris wasip1 windows zos".split(
    " ",
  ),
);
const GO_ARCH = new Set(
  "386 amd64 amd64p32 arm arm64 arm64be armbe loong64 mips mips64 mips64le mips64p32 mips64p32le mipsle ppc ppc64 ppc64le riscv riscv64 s390 s390x sparc sparc64 wasm".split(
    " ",
  ),
);

const CHECKSUM_HEX_LENGTH: Record<string, number> = { sha256: 64, sha512: 128 };

/**
 * Parses `--upgrade-info`: trimmed; blank → `plan info must not be blank`; a URL (absolute, or a path starting
 * with `/`) is downloaded (checksum verified when present) and its content parsed instead; the JSON must be an
 * object whose `binaries` is an object of strings.
 */
export async function parsePlanInfo(info: string, options: ValidatePlanInfoOptions = {}): Promise<PlanInfo> {
  let text = info.trim();
  if (text === "") throw new PlanInfoError("plan info must not be blank");
  if (looksLikeUrl(text)) {
    const url = parseDownloadUrl(text, options.enforceChecksum ?? true, "plan info url");
    text = (await downloadToText(url, options.downloadTimeoutMs)).trim();
    if (text === "") throw new PlanInfoError(`no content returned by "${url.href}"`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new PlanInfoError(
      `could not parse plan info: ${(err as Error).message}; expected JSON such as {"binaries":{"linux/amd64":"https://…?checksum=sha256:<hex>"}}`,
      { cause: err },
    );
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new PlanInfoError(
      `could not parse plan info: expected a JSON object with a "binaries" map, got ${describe(parsed)}`,
    );
  }
  const binaries = (parsed as { binaries?: unknown }).binaries;
  if (binaries === undefined || binaries === null) return { binaries: {} };
  if (typeof binaries !== "object" || Array.isArray(binaries)) {
    throw new PlanInfoError(
      `could not parse plan info: "binaries" must be an object of platform → URL, got ${describe(binaries)}`,
    );
  }
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(binaries)) {
    if (typeof value !== "string") {
      throw new PlanInfoError(
        `could not parse plan info: binaries["${key}"] must be a URL string, got ${describe(value)}`,
      );
    }
    out[key] = value;
  }
  return { binaries: out };
}

/**
 * Checks the binaries map without downloading: at least one entry; keys `any` or `<os>/<arch>` with Go's names;
 * values absolute http(s) or file URLs whose `checksum` (required unless `enforceChecksum` is false) is
 * `sha256:<64 hex>` or `sha512:<128 hex>`. Entries are checked in key order, so the reported one is stable.
 */
export function validateBinaries(binaries: Record<string, string>, enforceChecksum = true): void {
  const keys = Object.keys(binaries).sort();
  if (keys.length === 0)
    throw new PlanInfoError(`no "binaries" entries found; expected {"binaries":{"<os>/<arch>":"<url>"}}`);
  for (const key of keys) {
    checkPlatformKey(key);
    parseDownloadUrl(binaries[key], enforceChecksum, `binaries[${key}]`);
  }
}

/**
 * The whole check `tx upgrade software-upgrade` runs unless `--no-validate`: parse, validate the map, then (unless
 * `download` is false) download every binary into a temporary directory, verify its checksum and, for an archive,
 * that it holds `bin/<daemon>` or `<daemon>`. The temporary directory is always removed.
 */
export async function validatePlanInfo(info: string, options: ValidatePlanInfoOptions = {}): Promise<PlanInfo> {
  const enforceChecksum = options.enforceChecksum ?? true;
  const parsed = await parsePlanInfo(info, options);
  validateBinaries(parsed.binaries, enforceChecksum);
  if (options.download ?? true) await checkBinaryDownloads(parsed.binaries, options);
  return parsed;
}

/** Downloads and verifies every binary of the map (see {@link validatePlanInfo}). */
export async function checkBinaryDownloads(
  binaries: Record<string, string>,
  options: ValidatePlanInfoOptions = {},
): Promise<void> {
  const daemonName = options.daemonName ?? currentBinaryName();
  const dir = await mkdtemp(join(tmpdir(), "chaind-plan-info-"));
  try {
    for (const key of Object.keys(binaries).sort()) {
      const url = parseDownloadUrl(binaries[key], options.enforceChecksum ?? true, `binaries[${key}]`);
      try {
        const file = join(dir, key.replace(/[^a-zA-Z0-9]/g, "-"));
        await downloadToFile(url, file, options.downloadTimeoutMs);
        await checkBinaryFile(file, url, daemonName);
      } catch (err) {
        throw new PlanInfoError(`error downloading binary for os/arch ${key}: ${(err as Error).message}`, {
          cause: err,
        });
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function checkPlatformKey(key: string): void {
  if (key === "any") return;
  const [os, arch, extra] = key.split("/");
  if (extra === undefined && os !== undefined && arch !== undefined && GO_OS.has(os) && GO_ARCH.has(arch)) return;
  throw new PlanInfoError(
    `invalid os/arch format in key "${key}": expected "any" or <os>/<arch> with Go's names, e.g. linux/amd64, linux/arm64, darwin/arm64, windows/amd64`,
  );
}

function looksLikeUrl(text: string): boolean {
  return text.startsWith("/") || /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(text);
}

/** Parses a download URL; a path starting with `/` is a local file. `where` names the entry in errors. */
function parseDownloadUrl(text: string, enforceChecksum: boolean, where: string): URL {
  const fail = (cause: string): never => {
    throw new PlanInfoError(`invalid url "${text}" in ${where}: ${cause}`);
  };
  let url: URL;
  try {
    url = text.startsWith("/") ? new URL(`file://${text}`) : new URL(text);
  } catch {
    return fail(
      `not an absolute URL; expected e.g. https://example.com/${currentBinaryName()}-linux-amd64?checksum=sha256:<hex>`,
    );
  }
  if (!["http:", "https:", "file:"].includes(url.protocol)) {
    fail(`unsupported scheme "${url.protocol.slice(0, -1)}"; expected http, https or file`);
  }
  const checksum = url.searchParams.get("checksum");
  if (checksum === null || checksum === "") {
    if (enforceChecksum) fail("missing checksum query parameter (add ?checksum=sha256:<hex>)");
    return url;
  }
  parseChecksum(checksum) ??
    fail(`invalid checksum "${checksum}": expected sha256:<64 hex digits> or sha512:<128 hex digits>`);
  return url;
}

function parseChecksum(text: string): { algorithm: string; hex: string } | undefined {
  // Split at the first colon only: split(":", 2) would drop whatever follows a second one ("sha256:<hex>:junk"),
  // accepting a value the sidecar then refuses when the chain has already halted.
  const separator = text.indexOf(":");
  if (separator < 0) return undefined;
  const algorithm = text.slice(0, separator);
  const hex = text.slice(separator + 1);
  const length = CHECKSUM_HEX_LENGTH[algorithm];
  if (length === undefined || hex.length !== length || !/^[0-9a-fA-F]+$/.test(hex)) return undefined;
  return { algorithm, hex: hex.toLowerCase() };
}

/** The URL without its `checksum` parameter (what is actually fetched). */
function fetchUrl(url: URL): URL {
  const copy = new URL(url.href);
  copy.searchParams.delete("checksum");
  return copy;
}

/** Downloads `url` into `file`, hashing on the way; a checksum in the URL must match the bytes. */
async function downloadToFile(url: URL, file: string, timeoutMs = 600_000): Promise<void> {
  const expected = parseChecksum(url.searchParams.get("checksum") ?? "");
  const hash = createHash(expected?.algorithm ?? "sha256");
  const source = await openSource(url, timeoutMs);
  const hashing = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      callback(null, chunk);
    },
  });
  await pipeline(source, hashing, createWriteStream(file, { mode: 0o600 }));
  if (expected !== undefined) {
    const got = hash.digest("hex");
    if (got !== expected.hex) {
      // Upstream's words (go-getter's), on one line as every CLI error is (docs/CONTRACT.md §12).
      throw new PlanInfoError(
        `Checksums did not match for ${fetchUrl(url).href}. Expected: ${expected.hex}, got: ${got}`,
      );
    }
  }
}

async function downloadToText(url: URL, timeoutMs?: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "chaind-plan-info-"));
  try {
    const file = join(dir, "info");
    try {
      await downloadToFile(url, file, timeoutMs);
    } catch (err) {
      throw new PlanInfoError(`could not download url "${url.href}": ${(err as Error).message}`, { cause: err });
    }
    return await readFile(file, "utf8");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function openSource(url: URL, timeoutMs: number): Promise<Readable> {
  if (url.protocol === "file:") {
    const handle = await open(fileURLToPath(fetchUrl(url)), "r");
    return handle.createReadStream();
  }
  let response: Response;
  try {
    response = await fetch(fetchUrl(url), { signal: AbortSignal.timeout(timeoutMs), redirect: "follow" });
  } catch (err) {
    throw new PlanInfoError(fetchFailure(err), { cause: err });
  }
  if (!response.ok || response.body === null) {
    await response.body?.cancel();
    throw new PlanInfoError(
      `bad response status from ${fetchUrl(url).href}: ${response.status} ${response.statusText}`,
    );
  }
  return Readable.fromWeb(response.body);
}

/** A downloaded file is either the binary itself or a tar.gz/zip archive holding `bin/<daemon>` or `<daemon>`. */
async function checkBinaryFile(file: string, url: URL, daemonName: string): Promise<void> {
  const handle = await open(file, "r");
  const magic = Buffer.alloc(4);
  try {
    await handle.read(magic, 0, 4, 0);
  } finally {
    await handle.close();
  }
  let members: Map<string, boolean>;
  if (magic[0] === 0x1f && magic[1] === 0x8b) members = await tarMembers(file);
  else if (magic.readUInt32BE(0) === 0x504b0304) members = zipMembers(await readFile(file));
  else return; // a plain file: the binary itself
  for (const candidate of [`bin/${daemonName}`, daemonName]) {
    const regular = members.get(candidate);
    if (regular === true) return;
    if (regular === false) throw new PlanInfoError(`${candidate} in "${fetchUrl(url).href}" is not a regular file`);
  }
  throw new PlanInfoError(
    `url "${fetchUrl(url).href}" result does not contain a bin/${daemonName} or ${daemonName} file`,
  );
}

/** Archive member path (without a leading `./`) → whether it is a regular file. */
async function tarMembers(file: string): Promise<Map<string, boolean>> {
  const members = new Map<string, boolean>();
  await tar.t({
    file,
    onReadEntry: (entry) => {
      members.set(entry.path.replace(/^\.\//, ""), entry.type === "File" || entry.type === "OldFile");
    },
  });
  return members;
}

function zipMembers(bytes: Uint8Array): Map<string, boolean> {
  const members = new Map<string, boolean>();
  unzipSync(bytes, {
    filter: (entry) => {
      members.set(entry.name.replace(/^\.\//, "").replace(/\/$/, ""), !entry.name.endsWith("/"));
      return false; // names only; nothing is inflated
    },
  });
  return members;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `${typeof value} ${JSON.stringify(value)}`;
}
