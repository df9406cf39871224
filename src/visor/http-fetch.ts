// HTTP(S) downloads with bounded retries and per-attempt timeouts, on Node's own fetch. Bodies stream to disk while
// they are hashed, so a release archive is never held in memory.
import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { setTimeout as sleep } from "node:timers/promises";
import type { HashAlgorithm } from "./checksum.ts";
import { errorCode, errorMessage, VisorError } from "./errors.ts";
import type { Logger } from "./log.ts";

/** How hard to try. */
export interface RetryPolicy {
  /** Total attempts, at least 1. */
  attempts: number;
  /** Wait before the second attempt; doubled after every failure. */
  delayMs: number;
  /** Limit for one attempt, body included. */
  timeoutMs: number;
  /** Cancels everything (chainvisor is shutting down). */
  signal?: AbortSignal;
}

/** Defaults for release downloads: 3 attempts, 1 s then 2 s apart, 30 minutes each. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { attempts: 3, delayMs: 1_000, timeoutMs: 30 * 60_000 };

/** A failure that another attempt cannot fix (404, 403, a checksum mismatch...). */
class PermanentError extends VisorError {}

/** Result of {@link fetchToFile}. */
export interface FetchedFile {
  bytes: number;
  /** Hex digest of the bytes written, in the algorithm asked for. */
  digest: string;
}

/** A download bigger than the limit: another attempt would not be smaller. */
export class TooLargeError extends PermanentError {}

/**
 * Downloads `url` into `path` (replaced on every attempt), hashing the bytes with `algorithm` on the way, so the
 * checksum is known the moment the last byte is written. At most `maxBytes` are accepted: a larger Content-Length is
 * refused before anything is written, and a body without one is cut off (and the attempt failed) once it passes the
 * limit, so an endless or oversized answer never fills the disk.
 * @example await fetchToFile("https://example.org/chaind.tar.gz", "/tmp/x/artifact", "sha256", DEFAULT_RETRY_POLICY, log, 1 << 30)
 */
export async function fetchToFile(
  url: string,
  path: string,
  algorithm: HashAlgorithm,
  policy: RetryPolicy,
  log: Logger,
  maxBytes: number = Number.MAX_SAFE_INTEGER,
): Promise<FetchedFile> {
  return withRetries(url, policy, log, async (signal) => {
    const response = await request(url, signal);
    const declared = Number(response.headers.get("content-length") ?? Number.NaN);
    if (Number.isFinite(declared) && declared > maxBytes) {
      await response.body?.cancel();
      throw new TooLargeError(
        `the answer is ${declared} bytes (Content-Length), more than the limit of ${maxBytes} bytes (DAEMON_DOWNLOAD_MAX_SIZE)`,
      );
    }
    const hash = createHash(algorithm);
    let bytes = 0;
    const hashing = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        if (bytes > maxBytes) {
          done(
            new TooLargeError(
              `the answer passed the limit of ${maxBytes} bytes (DAEMON_DOWNLOAD_MAX_SIZE); download stopped`,
            ),
          );
          return;
        }
        hash.update(chunk);
        done(null, chunk);
      },
    });
    const body = Readable.fromWeb(response.body as WebReadableStream<Uint8Array>);
    await pipeline(body, hashing, createWriteStream(path), { signal });
    return { bytes, digest: hash.digest("hex") };
  });
}

/**
 * Downloads a small text document (at most `maxBytes`), such as a plan's info document.
 */
export async function fetchText(url: string, maxBytes: number, policy: RetryPolicy, log: Logger): Promise<Uint8Array> {
  return withRetries(url, policy, log, async (signal) => {
    const response = await request(url, signal);
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.length;
      if (size > maxBytes)
        throw new PermanentError(`the document at ${redactUrl(url)} is larger than ${maxBytes} bytes`);
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  });
}

async function request(url: string, signal: AbortSignal): Promise<Response> {
  // fetch refuses URLs with user:password; Go's client (and so cosmovisor) sends them as Basic authentication.
  const target = new URL(url);
  const headers: Record<string, string> = {};
  if (target.username !== "" || target.password !== "") {
    const user = `${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`;
    headers.authorization = `Basic ${Buffer.from(user).toString("base64")}`;
    target.username = "";
    target.password = "";
  }
  const response = await fetch(target, { signal, redirect: "follow", headers });
  if (response.ok && response.body !== null) return response;
  await response.body?.cancel();
  const status = `${response.status} ${response.statusText}`.trim();
  // Server errors, timeouts and rate limits can pass; anything else (404, 403...) will not.
  const transient = response.status >= 500 || response.status === 408 || response.status === 429;
  if (transient) throw new VisorError(`server answered ${status}`);
  throw new PermanentError(`server answered ${status}`);
}

async function withRetries<T>(
  url: string,
  policy: RetryPolicy,
  log: Logger,
  attempt: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  let delay = policy.delayMs;
  const attempts = Math.max(1, policy.attempts);
  for (let n = 1; ; n++) {
    const timeout = AbortSignal.timeout(policy.timeoutMs);
    const signal = policy.signal ? AbortSignal.any([policy.signal, timeout]) : timeout;
    try {
      return await attempt(signal);
    } catch (error) {
      const shown = redactUrl(url);
      if (policy.signal?.aborted) throw new VisorError(`download of ${shown} cancelled`, { cause: error });
      const reason = timeout.aborted ? `no complete answer within ${policy.timeoutMs} ms` : describeFetchError(error);
      if (error instanceof PermanentError)
        throw new VisorError(`could not download ${shown}: ${reason}`, { cause: error });
      if (n >= attempts) {
        throw new VisorError(`could not download ${shown}: ${reason} (gave up after ${attempts} attempts)`, {
          cause: error,
        });
      }
      log.warn(`download of ${shown} failed (attempt ${n} of ${attempts}): ${reason}; retrying in ${delay} ms`);
      await sleep(delay, undefined, policy.signal ? { signal: policy.signal } : undefined);
      delay *= 2;
    }
  }
}

/** Plain words for the system errors a download meets most, as Go's net package prints them. */
const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset by peer",
  ENOTFOUND: "no such host",
  EAI_AGAIN: "temporary failure in name resolution",
  ETIMEDOUT: "i/o timeout",
  EHOSTUNREACH: "no route to host",
  ENETUNREACH: "network is unreachable",
  EPIPE: "broken pipe",
  UND_ERR_SOCKET: "the server closed the connection",
  UND_ERR_CONNECT_TIMEOUT: "connect timeout",
  UND_ERR_HEADERS_TIMEOUT: "no answer headers in time",
  UND_ERR_BODY_TIMEOUT: "the answer body stalled",
};

/**
 * The cause of a failed download in one phrase. fetch reports every network problem as "fetch failed" with the
 * useful part in `cause` (and sometimes in the cause's own cause, or an AggregateError of one per address tried).
 */
export function describeFetchError(error: unknown): string {
  if (!(error instanceof TypeError) || error.cause === undefined) return errorMessage(error);
  let cause: unknown = error.cause;
  if (cause instanceof AggregateError && cause.errors.length > 0) cause = cause.errors[0];
  const code = errorCode(cause);
  const words = code === undefined ? undefined : NETWORK_ERRORS[code];
  const detail = errorMessage(cause);
  if (words === undefined) return detail === "" ? errorMessage(error) : detail;
  return detail.toLowerCase().includes(words) ? detail : `${words} (${detail})`;
}

/** Query parameters that are ours and safe to show; every other value may be a token and is hidden. */
const SAFE_QUERY = new Set(["checksum", "archive"]);

/**
 * A URL fit for a log line or an error: user name and password removed, and every query value except `checksum`
 * and `archive` replaced by `REDACTED` (pre-signed links carry their secret there).
 * @example redactUrl("https://u:p@h/x?token=abc&checksum=sha256:00") === "https://h/x?token=REDACTED&checksum=sha256:00"
 */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url.replace(/\/\/[^/@]*@/, "//");
  }
  parsed.username = "";
  parsed.password = "";
  // Rewritten by hand, not through searchParams, so the parts that stay keep their original spelling.
  parsed.search = parsed.search
    .slice(1)
    .split("&")
    .map((part) => {
      const eq = part.indexOf("=");
      const key = eq < 0 ? part : part.slice(0, eq);
      return eq < 0 || SAFE_QUERY.has(decodeURIComponent(key)) ? part : `${key}=REDACTED`;
    })
    .join("&");
  return parsed.href;
}
