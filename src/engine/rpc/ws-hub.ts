// The consensus RPC's WebSocket endpoint (`/websocket`), as CometBFT v0.38 serves it: the same JSON-RPC methods as
// over HTTP, plus `subscribe` / `unsubscribe` / `unsubscribe_all`. A subscription's events are JSON-RPC responses
// carrying the subscribe request's id, `result = {query, data: {type, value}, events}`. Limits and texts are
// CometBFT's (rpc/core/events.go): `max_subscription_clients N reached`, `max_subscriptions_per_client N reached`,
// `maximum query length exceeded` (512), `failed to parse query: …`, `already subscribed`, `subscription not found`.
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { Engine } from "../engine.ts";
import { conditionMatchesValue, parseTxQuery, type QueryCondition, TxQueryError } from "../tx-query.ts";
import type { Json } from "./json-shapes.ts";
import { RpcCode, RpcError } from "./rpc-error.ts";
import { WsConnection } from "./ws-connection.ts";
import { type EventMap, eventsOfBlock, type PublishedEvent } from "./ws-events.ts";
import { acceptKey } from "./ws-frames.ts";

/** config.toml [rpc] limits the endpoint honours. */
export interface WsHubOptions {
  /** rpc.max_subscription_clients (default 100). */
  maxSubscriptionClients?: number;
  /** rpc.max_subscriptions_per_client (default 5). */
  maxSubscriptionsPerClient?: number;
  /** Largest message a client may send (default 1 MB, CometBFT's read limit). */
  maxMessageBytes?: number;
  /** Outgoing bytes a client may leave unread before its subscriptions are cancelled (default 64 MiB). */
  maxPendingBytes?: number;
}

/** Answers one ordinary JSON-RPC request object (undefined for a notification). */
export type JsonRpcCall = (request: unknown) => Promise<Json | undefined>;

const MAX_QUERY_LENGTH = 512;

interface Subscription {
  query: string;
  conditions: QueryCondition[];
  id: string | number;
}

interface Client {
  conn: WsConnection;
  subscriptions: Map<string, Subscription>;
}

/** Whether an event's composite-key map satisfies every condition of a query. */
export function queryMatches(conditions: readonly QueryCondition[], events: EventMap): boolean {
  return conditions.every((c) => (events[c.key] ?? []).some((v) => conditionMatchesValue(c, v)));
}

function rejectHandshake(socket: Duplex, status: string, text: string): void {
  socket.end(
    `HTTP/1.1 ${status}\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
  );
}

/** Serves `/websocket` on an RPC server's `upgrade` event and fans out the engine's block events. */
export class WsHub {
  private readonly clients = new Set<Client>();
  private readonly options: Required<WsHubOptions>;
  private readonly call: JsonRpcCall;
  private readonly detach: () => void;

  constructor(engine: Engine, call: JsonRpcCall, options: WsHubOptions = {}) {
    this.call = call;
    this.options = {
      maxSubscriptionClients: options.maxSubscriptionClients ?? 100,
      maxSubscriptionsPerClient: options.maxSubscriptionsPerClient ?? 5,
      maxMessageBytes: options.maxMessageBytes ?? 1_000_000,
      maxPendingBytes: options.maxPendingBytes ?? 64 * 1024 * 1024,
    };
    this.detach = engine.onNewBlock((ev) => {
      if (this.clients.size === 0) return;
      this.publish(eventsOfBlock(ev));
    });
  }

  /** Clients holding at least one subscription (what max_subscription_clients counts). */
  get subscribedClients(): number {
    let n = 0;
    for (const c of this.clients) if (c.subscriptions.size > 0) n++;
    return n;
  }

  /** Handles an HTTP upgrade request; anything but a valid WebSocket handshake on /websocket is refused. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    const key = req.headers["sec-websocket-key"];
    if (path !== "/websocket") {
      rejectHandshake(socket, "404 Not Found", "404 page not found\n");
      return;
    }
    if (
      req.method !== "GET" ||
      (req.headers.upgrade ?? "").toLowerCase() !== "websocket" ||
      (typeof key === "string") === false ||
      Buffer.from(key as string, "base64").length !== 16
    ) {
      rejectHandshake(socket, "400 Bad Request", "websocket: the client is not using the websocket protocol\n");
      return;
    }
    if (req.headers["sec-websocket-version"] !== "13") {
      socket.end("HTTP/1.1 426 Upgrade Required\r\nsec-websocket-version: 13\r\ncontent-length: 0\r\n\r\n");
      return;
    }
    socket.write(
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
        `Sec-WebSocket-Accept: ${acceptKey(key as string)}\r\n\r\n`,
    );
    const conn = new WsConnection(socket, { maxMessageBytes: this.options.maxMessageBytes }, head);
    const client: Client = { conn, subscriptions: new Map() };
    this.clients.add(client);
    conn.onClose(() => this.clients.delete(client));
    // Requests on one socket are answered in order, as CometBFT's read loop does.
    let queue: Promise<void> = Promise.resolve();
    conn.onMessage = (text) => {
      queue = queue.then(() => this.message(client, text)).catch(() => conn.close(1011));
    };
  }

  /** Closes every WebSocket connection and stops listening to the engine. */
  close(): void {
    this.detach();
    for (const c of this.clients) c.conn.close(1001, "server shutting down");
    this.clients.clear();
  }

  private send(client: Client, body: Json): void {
    client.conn.sendText(JSON.stringify(body));
  }

  private async message(client: Client, text: string): Promise<void> {
    let request: unknown;
    try {
      request = JSON.parse(text);
    } catch (error) {
      const e = new RpcError(RpcCode.parseError, `error unmarshaling request: ${(error as Error).message}`);
      // No id key at all: CometBFT's RPCResponse has `id,omitempty`.
      this.send(client, { jsonrpc: "2.0", error: e.toJson() });
      return;
    }
    const r = request as { id?: unknown; method?: unknown; params?: unknown } | null;
    const method = typeof r === "object" && r !== null && !Array.isArray(r) ? r.method : undefined;
    if (method !== "subscribe" && method !== "unsubscribe" && method !== "unsubscribe_all") {
      const out = await this.call(request);
      if (out !== undefined) this.send(client, out);
      return;
    }
    const id = (r as { id?: unknown }).id;
    if (typeof id !== "string" && typeof id !== "number") return; // a notification: no answer
    try {
      const result = this.subscriptionCall(client, method, id, (r as { params?: unknown }).params);
      this.send(client, { jsonrpc: "2.0", id, result });
    } catch (error) {
      const e = error instanceof RpcError ? error : new RpcError(RpcCode.internalError, (error as Error).message);
      this.send(client, { jsonrpc: "2.0", id, error: e.toJson() });
    }
  }

  private subscriptionCall(client: Client, method: string, id: string | number, params: unknown): Json {
    if (method === "unsubscribe_all") {
      if (client.subscriptions.size === 0) throw new RpcError(RpcCode.internalError, "subscription not found");
      client.subscriptions.clear();
      return {};
    }
    const query = queryParam(params);
    if (method === "unsubscribe") {
      parsedQuery(query); // CometBFT parses the query first: a malformed one is a parse error, not "not found"
      if (!client.subscriptions.delete(query)) throw new RpcError(RpcCode.internalError, "subscription not found");
      return {};
    }
    const o = this.options;
    if (client.subscriptions.size === 0 && this.subscribedClients >= o.maxSubscriptionClients) {
      throw new RpcError(RpcCode.internalError, `max_subscription_clients ${o.maxSubscriptionClients} reached`);
    }
    if (client.subscriptions.size >= o.maxSubscriptionsPerClient) {
      throw new RpcError(RpcCode.internalError, `max_subscriptions_per_client ${o.maxSubscriptionsPerClient} reached`);
    }
    if (query.length > MAX_QUERY_LENGTH) throw new RpcError(RpcCode.internalError, "maximum query length exceeded");
    const conditions = parsedQuery(query);
    if (client.subscriptions.has(query)) throw new RpcError(RpcCode.internalError, "already subscribed");
    client.subscriptions.set(query, { query, conditions, id });
    return {};
  }

  private publish(events: PublishedEvent[]): void {
    for (const client of this.clients) {
      if (client.subscriptions.size === 0) continue;
      for (const ev of events) {
        for (const sub of client.subscriptions.values()) {
          if (!queryMatches(sub.conditions, ev.events)) continue;
          this.send(client, {
            jsonrpc: "2.0",
            id: sub.id,
            result: { query: sub.query, data: ev.data, events: ev.events },
          });
        }
      }
      // A client that does not read its events loses its subscriptions, as CometBFT cancels a subscriber that
      // is not pulling messages fast enough, rather than buffering without bound.
      if (this.pendingBytes(client) > this.options.maxPendingBytes) {
        for (const sub of client.subscriptions.values()) {
          const e = new RpcError(
            RpcCode.internalError,
            "subscription was cancelled (reason: client is not pulling messages fast enough)",
          );
          this.send(client, { jsonrpc: "2.0", id: sub.id, error: e.toJson() });
        }
        client.subscriptions.clear();
      }
    }
  }

  private pendingBytes(client: Client): number {
    return client.conn.pendingBytes;
  }
}

/** The query's conditions, or CometBFT's "failed to parse query: <parser error>" (ours names the query too). */
function parsedQuery(query: string): QueryCondition[] {
  try {
    return parseTxQuery(query);
  } catch (error) {
    if (!(error instanceof TxQueryError)) throw error;
    const detail = error.message.replace(/^failed to parse query /, "");
    throw new RpcError(RpcCode.internalError, `failed to parse query: ${detail}`);
  }
}

function queryParam(params: unknown): string {
  let q: unknown;
  if (Array.isArray(params)) q = params[0];
  else if (typeof params === "object" && params !== null) q = (params as { query?: unknown }).query;
  // CometBFT parses an absent query as "" and refuses it as a query that does not parse (internal error).
  if (q === undefined || q === null) return "";
  if (typeof q !== "string") {
    throw new RpcError(RpcCode.invalidParams, "query must be a string such as tm.event='NewBlock'");
  }
  return q;
}
