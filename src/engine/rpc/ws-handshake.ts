// Which requests to `/websocket` are not a WebSocket handshake, and how they are refused: as CometBFT's upgrader
// (gorilla/websocket v1.5.3, origin checks off) refuses them, in its order, with Go's http.Error text of the status
// and `Sec-Websocket-Version: 13`. A plain GET of `/websocket` is one of them (400), not an unknown path.
import type { IncomingMessage } from "node:http";
import { STATUS_CODES } from "node:http";

/** Whether a comma-separated header holds `token` (case-insensitive), as gorilla's tokenListContainsValue. */
function headerHasToken(req: IncomingMessage, name: string, token: string): boolean {
  const value = req.headers[name];
  const text = Array.isArray(value) ? value.join(",") : (value ?? "");
  return text.split(",").some((t) => t.trim().toLowerCase() === token);
}

/** The status a handshake request is refused with, or undefined when it is a valid handshake. */
export function handshakeRefusal(req: IncomingMessage): number | undefined {
  if (!headerHasToken(req, "connection", "upgrade")) return 400;
  if (!headerHasToken(req, "upgrade", "websocket")) return 400;
  if (req.method !== "GET") return 405;
  if (!headerHasToken(req, "sec-websocket-version", "13")) return 400;
  const key = req.headers["sec-websocket-key"];
  if (typeof key !== "string" || Buffer.from(key, "base64").length !== 16) return 400;
  return undefined;
}

/** The refusal's headers and body (Go's http.Error: the status text and a newline). */
export function handshakeRefusalAnswer(status: number): { headers: Record<string, string>; body: string } {
  const body = `${STATUS_CODES[status] ?? "Bad Request"}\n`;
  return {
    headers: {
      "content-type": "text/plain; charset=utf-8",
      "sec-websocket-version": "13",
      "x-content-type-options": "nosniff",
      "content-length": String(Buffer.byteLength(body)),
    },
    body,
  };
}
