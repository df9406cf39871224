// Closes gRPC connections that never open HTTP/2. A TCP connection to the gRPC port that never sends the
// client preface costs the node a file descriptor and an HTTP/2 session for as long as the peer likes
// (an adversarial run held 500 of them for over a minute); REST and the consensus RPC already cut such
// connections with their read timeouts. grpc-js has no option for it: its servers disable Node's
// HTTP/2 session timeout, and it does not expose their raw connections.
import type { Http2Server, ServerHttp2Session } from "node:http2";
import type { Server } from "@grpc/grpc-js";

/** How long a new gRPC connection may take to send the HTTP/2 preface (REST's read timeout is also 10 s). */
export const GRPC_PREFACE_TIMEOUT_MS = 10_000;

/**
 * Arms the preface timeout on every listener `server` has bound: a connection that has not opened HTTP/2
 * (the client preface and the SETTINGS frame that must follow it, RFC 9113 §3.4) `timeoutMs` after it
 * opened is closed. Connections that did are left alone
 * however long they then stay idle (a gRPC client may keep an idle channel open). Call after binding.
 * Throws if the gRPC library no longer keeps its HTTP/2 servers where this looks (a version change):
 * better refused at start than silently unprotected.
 */
export function closeConnectionsWithoutPreface(server: Server, timeoutMs = GRPC_PREFACE_TIMEOUT_MS): void {
  // grpc-js (its version pinned by the lockfile) keeps each bound HTTP/2 server as a key of this map.
  const listeners = (server as unknown as { http2Servers?: unknown }).http2Servers;
  if (!(listeners instanceof Map)) {
    throw new Error("cannot arm the gRPC preface timeout: @grpc/grpc-js no longer exposes its HTTP/2 servers");
  }
  for (const listener of listeners.keys() as Iterable<Http2Server>) {
    // Node's HTTP/2 server starts a session for each connection as it opens, before any byte arrives.
    listener.on("session", (session: ServerHttp2Session) => {
      const timer = setTimeout(() => session.destroy(), timeoutMs);
      timer.unref();
      session.once("remoteSettings", () => clearTimeout(timer));
      session.once("close", () => clearTimeout(timer));
    });
  }
}
