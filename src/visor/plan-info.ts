// A plan's Info: `{"binaries":{"linux/amd64":"<url>?checksum=sha256:<hex>","any":"<url>"}}` inline, or a URL to
// such a document. Only this host's entry is looked at, so a bad entry for another platform cannot block us.
import { createHash } from "node:crypto";
import { checksumOfUrl, requestUrl } from "./checksum.ts";
import { errorMessage, VisorError } from "./errors.ts";
import { DEFAULT_RETRY_POLICY, fetchText, type RetryPolicy } from "./http-fetch.ts";
import type { Logger } from "./log.ts";
import { goPlatform } from "./platform.ts";

/** Where this host's release comes from. */
export interface BinarySource {
  /** The download URL as written in the plan (checksum parameter included). */
  url: string;
  /** The key it was found under: `<os>/<arch>` or `any`. */
  key: string;
}

/** Parameters of {@link resolveBinaryUrl}. */
export interface ResolveBinaryUrlParameters {
  info: string;
  /** Refuse URLs (the info URL and the binary URL) that carry no checksum. */
  mustHaveChecksum: boolean;
  /** Defaults to this host, e.g. `linux/amd64`. */
  platform?: string;
  policy?: RetryPolicy;
  log: Logger;
}

const MAX_INFO_DOCUMENT_BYTES = 1 << 20;

/**
 * Finds the download URL for this host in a plan's Info, fetching the Info document first when Info is a URL.
 * @example await resolveBinaryUrl({ info: '{"binaries":{"any":"https://x/chaind?checksum=sha256:…"}}', mustHaveChecksum: true, log })
 */
export async function resolveBinaryUrl(parameters: ResolveBinaryUrlParameters): Promise<BinarySource> {
  const platform = parameters.platform ?? goPlatform();
  const info = parameters.info.trim();
  if (info === "") {
    throw new VisorError("plan info must not be blank", {
      details: [
        'it must hold {"binaries":{"<os>/<arch>":"<url>?checksum=sha256:<hex>"}} or a URL to such a document',
        "or install the release yourself with `chainvisor add-upgrade <name> <path>`",
      ],
    });
  }
  const document = /^[a-z][a-z0-9+.-]*:\/\//i.test(info) ? await fetchInfoDocument(info, parameters) : info;
  const binaries = parseBinaries(document);
  const key = platform in binaries ? platform : "any" in binaries ? "any" : undefined;
  if (key === undefined) {
    throw new VisorError(`cannot find binary for os/arch: neither ${platform}, nor any`, {
      details: [`the plan lists: ${Object.keys(binaries).join(", ")}`],
    });
  }
  const url = binaries[key];
  const problem = checkDownloadUrl(url, parameters.mustHaveChecksum);
  if (problem !== undefined) throw new VisorError(`invalid url "${url}" in binaries[${key}]: ${problem}`);
  return { url, key };
}

/**
 * Why a download URL cannot be used (scheme, syntax, checksum), or undefined when it can.
 */
export function checkDownloadUrl(url: string, mustHaveChecksum: boolean): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "not a valid absolute URL";
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return `unsupported scheme "${parsed.protocol}": only http and https downloads are supported`;
  }
  try {
    if (checksumOfUrl(parsed) === undefined && mustHaveChecksum) {
      return "missing checksum query parameter (add ?checksum=sha256:<hex>, or set DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM=false)";
    }
  } catch (error) {
    return errorMessage(error);
  }
  return undefined;
}

async function fetchInfoDocument(url: string, parameters: ResolveBinaryUrlParameters): Promise<string> {
  const problem = checkDownloadUrl(url, parameters.mustHaveChecksum);
  if (problem !== undefined) throw new VisorError(`invalid plan info URL "${url}": ${problem}`);
  const parsed = new URL(url);
  const checksum = checksumOfUrl(parsed);
  const body = await fetchText(
    requestUrl(parsed),
    MAX_INFO_DOCUMENT_BYTES,
    parameters.policy ?? DEFAULT_RETRY_POLICY,
    parameters.log,
  );
  if (checksum !== undefined) {
    const actual = createHash(checksum.algorithm).update(body).digest("hex");
    if (actual !== checksum.hex) {
      throw new VisorError(`Checksums did not match for the plan info document ${url}`, {
        details: [`Expected: ${checksum.algorithm}:${checksum.hex}`, `Got: ${checksum.algorithm}:${actual}`],
      });
    }
  }
  const text = new TextDecoder().decode(body).trim();
  if (text === "") throw new VisorError(`no content returned by "${url}"`);
  return text;
}

function parseBinaries(document: string): Record<string, string> {
  let value: unknown;
  try {
    value = JSON.parse(document);
  } catch (error) {
    throw new VisorError(`could not parse plan info: ${errorMessage(error)}`, {
      details: ['expected {"binaries":{"<os>/<arch>":"<url>?checksum=sha256:<hex>"}} or a URL to such a document'],
    });
  }
  const binaries =
    typeof value === "object" && value !== null ? (value as Record<string, unknown>).binaries : undefined;
  if (binaries === undefined || binaries === null) throw new VisorError('no "binaries" entries found in the plan info');
  if (typeof binaries !== "object" || Array.isArray(binaries)) {
    throw new VisorError('could not parse plan info: "binaries" must be an object of "<os>/<arch>": "<url>" entries');
  }
  const entries = Object.entries(binaries as Record<string, unknown>);
  if (entries.length === 0) throw new VisorError('no "binaries" entries found in the plan info');
  for (const [key, url] of entries) {
    if (typeof url !== "string") {
      throw new VisorError(
        `could not parse plan info: binaries[${key}] must be a URL string, got ${JSON.stringify(url)}`,
      );
    }
  }
  return binaries as Record<string, string>;
}
