// CORS for the REST gateway (docs/CONTRACT.md §7). Off unless app.toml turns it on: `enabled-unsafe-cors = true`
// allows every origin, `cors-allowed-origins = [...]` only the listed ones. Allowed origins may
// send GET and POST with Content-Type and the height header, and may read the height header back.
// A disallowed origin gets no CORS headers at all, so the browser blocks the call.
import type { IncomingHttpHeaders } from "node:http";
import { HEIGHT_HEADER } from "./height.ts";

/** The origins CORS admits: `"*"` for all, else the exact list. */
export type CorsPolicy = { allowAll: true } | { allowAll: false; origins: ReadonlySet<string> };

/** What the CORS layer decided for one request. */
export type CorsOutcome =
  /** Not a cross-origin request, or CORS is off: carry on, add nothing. */
  | { kind: "none" }
  /** A preflight: answer it with `status` and `headers` (empty headers = refused), do not route it. */
  | { kind: "preflight"; status: number; headers: Record<string, string>; refusal?: string }
  /** A cross-origin request: carry on and add `headers` to the response. */
  | { kind: "actual"; headers: Record<string, string> };

const ALLOWED_METHODS = ["GET", "POST"];
// Content-Type plus the height headers; the CORS-safelisted ones are always fine.
const ALLOWED_HEADERS = ["Content-Type", HEIGHT_HEADER];
const ALWAYS_ALLOWED = new Set(["accept", "accept-language", "content-language", "content-type", HEIGHT_HEADER]);
const PREFLIGHT_MAX_AGE_SECONDS = "600";

/**
 * The policy from app.toml's `[api]`: undefined (CORS off) unless `enabled-unsafe-cors` is true
 * (every origin) or `cors-allowed-origins` is non-empty ("*" in it also means every origin).
 */
export function corsPolicy(enabledUnsafeCors: boolean, allowedOrigins: readonly string[]): CorsPolicy | undefined {
  if (enabledUnsafeCors || allowedOrigins.includes("*")) return { allowAll: true };
  if (allowedOrigins.length === 0) return undefined;
  return { allowAll: false, origins: new Set(allowedOrigins) };
}

/**
 * Decides what CORS does with a request. Preflights (OPTIONS with Origin and
 * Access-Control-Request-Method) are answered here: 204 with the allow headers, or 403 without any
 * CORS header when the origin, method or a requested header is not allowed.
 */
export function corsDecision(
  policy: CorsPolicy | undefined,
  method: string,
  headers: IncomingHttpHeaders,
): CorsOutcome {
  const origin = headers.origin;
  if (policy === undefined || origin === undefined) return { kind: "none" };
  const requestedMethod = headers["access-control-request-method"];
  const preflight = method === "OPTIONS" && typeof requestedMethod === "string";
  const allowed = policy.allowAll || policy.origins.has(origin);
  if (!allowed) {
    return preflight
      ? {
          kind: "preflight",
          status: 403,
          headers: {},
          refusal: `origin ${origin} is not allowed (api.cors-allowed-origins)`,
        }
      : { kind: "none" };
  }
  // With a list, the answer depends on the Origin header: caches must keep answers apart.
  const base: Record<string, string> = policy.allowAll
    ? { "access-control-allow-origin": "*" }
    : { "access-control-allow-origin": origin, vary: "Origin" };
  if (!preflight) return { kind: "actual", headers: { ...base, "access-control-expose-headers": HEIGHT_HEADER } };

  if (!ALLOWED_METHODS.includes(requestedMethod.toUpperCase())) {
    return refuse(`method ${requestedMethod} is not allowed cross-origin; allowed: ${ALLOWED_METHODS.join(", ")}`);
  }
  const requestedHeaders = (headers["access-control-request-headers"] ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== "");
  const refused = requestedHeaders.filter((name) => !ALWAYS_ALLOWED.has(name));
  if (refused.length > 0) {
    return refuse(`header ${refused.join(", ")} is not allowed cross-origin; allowed: ${ALLOWED_HEADERS.join(", ")}`);
  }
  return {
    kind: "preflight",
    status: 204,
    headers: {
      ...base,
      "access-control-allow-methods": ALLOWED_METHODS.join(", "),
      "access-control-allow-headers": ALLOWED_HEADERS.join(", "),
      "access-control-max-age": PREFLIGHT_MAX_AGE_SECONDS,
    },
  };
}

function refuse(refusal: string): CorsOutcome {
  return { kind: "preflight", status: 403, headers: {}, refusal };
}
