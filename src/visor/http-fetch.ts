// HTTP(S) downloads with bounded retries and per-attempt timeouts, on Node's own fetch. Bodies stream to disk while
// they are hashed, so a release archive is never held in memory.
import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { setTimeout as sleep } from "node:timers/promises";
import type { HashAlgorithm } from "./checksum.ts";
import { errorMessage, VisorError } from "./errors.ts";
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

/**
 * Downloads `url` into `path` (replaced on every attempt), hashing the bytes with `algorithm` on the way.
 * @example await fetchToFile("https://example.org/chaind.tar.gz", "/tmp/x/artifact", "sha256", DEFAULT_RETRY_POLICY, log)
 */
export async function fetchToFile(
  url: string,
  path: string,
  algorithm: HashAlgorithm,
  policy: RetryPolicy,
  log: Logger,
): Promise<FetchedFile> {
  return withRetries(url, policy, log, async (signal) => {
    const response = await request(url, signal);
    const hash = createHash(algorithm);
    let bytes = 0;
    const hashing = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        bytes += chunk.length;
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
      if (size > maxBytes) throw new PermanentError(`the document at ${url} is larger than ${maxBytes} bytes`);
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  });
}

async function request(url: string, signal: AbortSignal): Promise<Response> {
  const response = await fetch(url, { signal, redirect: "follow" });
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
      if (policy.signal?.aborted) throw new VisorError(`download of ${url} cancelled`, { cause: error });
      const reason = timeout.aborted ? `no complete answer within ${policy.timeoutMs} ms` : describeFetchError(error);
      if (error instanceof PermanentError)
        throw new VisorError(`could not download ${url}: ${reason}`, { cause: error });
      if (n >= attempts) {
        throw new VisorError(`could not download ${url}: ${reason} (gave up after ${attempts} attempts)`, {
          cause: error,
        });
      }
      log.warn(`download of ${url} failed (attempt ${n} of ${attempts}): ${reason}; retrying in ${delay} ms`);
      await sleep(delay, undefined, policy.signal ? { signal: policy.signal } : undefined);
      delay *= 2;
    }
  }
}

// fetch reports network problems as "fetch failed" with the useful part in `cause`.
function describeFetchError(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  if (error instanceof TypeError && cause !== undefined) return `${error.message}: ${errorMessage(cause)}`;
  return errorMessage(error);
}
