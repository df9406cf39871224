// Addresses in the forms the config files use: `tcp://host:port` / `unix:///path` (api.address,
// rpc.laddr, proxy_app) and bare `host:port` (grpc.address, which upstream rejects with a scheme).

/** A parsed listen or dial address. `address` keeps the text as written, for messages and logs. */
export type ListenAddress =
  | { protocol: "tcp"; host: string; port: number; address: string }
  | { protocol: "unix"; path: string; address: string };

/** A bare `host:port`, as grpc.address is written. */
export interface HostPort {
  host: string;
  port: number;
}

/** The `expected` text of every message about a scheme address. */
export const SCHEME_ADDRESS_EXPECTED = 'an address with a scheme, "tcp://<host>:<port>" or "unix:///<path>"';
/** The `expected` text of every message about a bare address. */
export const HOST_PORT_EXPECTED = 'a "<host>:<port>" address without a scheme';

/**
 * Splits `host:port` (IPv6 hosts in brackets, `[::1]:9090`). An empty host means every interface and
 * becomes `0.0.0.0`. Port 0 is allowed (the system picks one; tests use it). Undefined when malformed.
 */
export function parseHostPort(text: string): HostPort | undefined {
  let host: string;
  let portText: string;
  if (text.startsWith("[")) {
    const close = text.indexOf("]");
    if (close < 0 || text[close + 1] !== ":") return undefined;
    host = text.slice(1, close);
    portText = text.slice(close + 2);
    if (host === "" || !host.includes(":")) return undefined;
  } else {
    const colon = text.lastIndexOf(":");
    if (colon < 0) return undefined;
    host = text.slice(0, colon);
    portText = text.slice(colon + 1);
    // A second colon outside brackets is an unbracketed IPv6 address or a stray scheme: refuse both.
    if (host.includes(":") || host.includes("/")) return undefined;
  }
  if (!/^[0-9]{1,5}$/.test(portText)) return undefined;
  const port = Number(portText);
  if (port > 65535) return undefined;
  if (/\s/.test(host)) return undefined;
  return { host: host === "" ? "0.0.0.0" : host, port };
}

/**
 * Parses `tcp://host:port` or `unix:///path`. With `schemeOptional`, a bare `host:port` is taken as
 * tcp (CometBFT does so for proxy_app). Undefined when malformed.
 *
 * @example parseListenAddress("tcp://localhost:1317") // { protocol: "tcp", host: "localhost", port: 1317, ... }
 */
export function parseListenAddress(text: string, options?: { schemeOptional?: boolean }): ListenAddress | undefined {
  const separator = text.indexOf("://");
  if (separator < 0) {
    if (options?.schemeOptional !== true) return undefined;
    const bare = parseHostPort(text);
    return bare === undefined ? undefined : { protocol: "tcp", ...bare, address: text };
  }
  const scheme = text.slice(0, separator).toLowerCase();
  const rest = text.slice(separator + 3);
  if (scheme === "tcp") {
    const hostPort = parseHostPort(rest);
    return hostPort === undefined ? undefined : { protocol: "tcp", ...hostPort, address: text };
  }
  if (scheme === "unix") {
    if (rest === "" || /\s/.test(rest)) return undefined;
    return { protocol: "unix", path: rest, address: text };
  }
  return undefined;
}
