// The consensus RPC's WebSocket endpoint (`/websocket`), as CometBFT v0.38 serves it: the same JSON-RPC methods as
// over HTTP, plus `subscribe` / `unsubscribe` / `unsubscribe_all`. A subscription's events are JSON-RPC responses
// carrying the subscribe request's id, `result = {query, data: {type, value}, events}`. Limits and texts are
// CometBFT's (rpc/core/events.go): `max_subscription_clients N reached`, `max_subscriptions_per_client N reached`,
// `maximum query length exceeded` (512), `failed to parse query: …`, `already subscribed`, `subscription not found`.
import { type IncomingMessage, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import type { Engine } from "../engine.ts";
import { canonicalQuery, conditionMatchesValue, parseTxQuery, type QueryCondition, TxQueryError } from "../tx-query.ts";
import type { Json } from "./json-shapes.ts";
import { jsonRpcId, RpcCode, RpcErrorReply } from "./rpc-error.ts";
import { WsConnection } from "./ws-connection.ts";
import { type EventMap, eventsOfBlock, type PublishedEvent } from "./ws-events.ts";
import { acceptKey, CloseCode } from "./ws-frames.ts";
import { handshakeRefusal, handshakeRefusalAnswer } from "./ws-handshake.ts";
import { WS_OUTPUT_LIMITS, WsOutputBudget } from "./ws-output-budget.ts";

/** config.toml [rpc] limits the endpoint honours. */
export interface WsHubOptions {
  /** rpc.max_subscription_clients (default 100). */
  maxSubscriptionClients?: number;
  /** rpc.max_subscriptions_per_client (default 5). */
  maxSubscriptionsPerClient?: number;
  /** Largest message a client may send (default 1 MB, CometBFT's read limit). */
  maxMessageBytes?: number;
  /** Unread output one connection may hold before its requests wait and an event closes it (default 16 MiB). */
  maxPendingBytes?: number;
  /** Unread output all connections together may hold (default 256 MiB). */
  maxTotalPendingBytes?: number;
}

/** A server's unread WebSocket output now (what the bounds limit; read by tests). */
export interface WsOutputStats {
  /** Connections open. */
  connections: number;
  /** Bytes held for all of them (the shared budget's count). */
  totalBytes: number;
  /** The largest any one connection holds (its own count or its socket's writableLength). */
  largestBytes: number;
  /** Connections whose next request waits for their output to drain. */
  waiting: number;
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
  /** Keyed by the query's canonical form, which CometBFT's event bus tells subscriptions apart by. */
  subscriptions: Map<string, Subscription>;
}

/** Whether an event's composite-key map satisfies every condition of a query. */
export function queryMatches(conditions: readonly QueryCondition[], events: EventMap): boolean {
  return conditions.every((c) => (events[c.key] ?? []).some((v) => conditionMatchesValue(c, v)));
}

/** Answers an upgrade request that is refused, on its raw socket, and closes it. */
function rejectHandshake(socket: Duplex, status: number, headers: Record<string, string>, body: string): void {
  const lines = Object.entries({ ...headers, "x-server-time": String(Math.floor(Date.now() / 1000)) })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${lines}connection: close\r\n\r\n${body}`);
}

/** Serves `/websocket` on an RPC server's `upgrade` event and fans out the engine's block events. */
export class WsHub {
  private readonly clients = new Set<Client>();
  private readonly options: Required<WsHubOptions>;
  private readonly budget: WsOutputBudget;
  /** The largest peak of a connection that closed since the last {@link takeOutputPeaks}. */
  private closedPeak = 0;
  private readonly call: JsonRpcCall;
  private readonly detach: () => void;

  constructor(engine: Engine, call: JsonRpcCall, options: WsHubOptions = {}) {
    this.call = call;
    this.options = {
      maxSubscriptionClients: options.maxSubscriptionClients ?? 100,
      maxSubscriptionsPerClient: options.maxSubscriptionsPerClient ?? 5,
      maxMessageBytes: options.maxMessageBytes ?? 1_000_000,
      maxPendingBytes: options.maxPendingBytes ?? WS_OUTPUT_LIMITS.perConnectionBytes,
      maxTotalPendingBytes: options.maxTotalPendingBytes ?? WS_OUTPUT_LIMITS.totalBytes,
    };
    this.budget = new WsOutputBudget(this.options.maxTotalPendingBytes);
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

  /** The unread output held now, for all connections and the largest one. */
  get output(): WsOutputStats {
    let largestBytes = 0;
    let waiting = 0;
    for (const c of this.clients) {
      largestBytes = Math.max(largestBytes, c.conn.pendingBytes);
      if (c.conn.waitingForOutput) waiting++;
    }
    return { connections: this.clients.size, totalBytes: this.budget.used, largestBytes, waiting };
  }

  /**
   * The most unread output one connection, and all together, held at any moment since the last call, closed
   * connections included (the bounds are checked as each message is written; a sample could miss a peak that a
   * single publish builds and a close releases).
   */
  takeOutputPeaks(): { connectionBytes: number; totalBytes: number } {
    let connectionBytes = this.closedPeak;
    this.closedPeak = 0;
    for (const c of this.clients) connectionBytes = Math.max(connectionBytes, c.conn.takePeak());
    return { connectionBytes, totalBytes: this.budget.takePeak() };
  }

  /** Handles an HTTP upgrade request; anything but a valid WebSocket handshake on /websocket is refused. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (path !== "/websocket") {
      const body = "404 page not found\n";
      const headers = { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" };
      rejectHandshake(socket, 404, { ...headers, "content-length": String(body.length) }, body);
      return;
    }
    const refusal = handshakeRefusal(req);
    if (refusal !== undefined) {
      const answer = handshakeRefusalAnswer(refusal);
      rejectHandshake(socket, refusal, answer.headers, answer.body);
      return;
    }
    const key = req.headers["sec-websocket-key"] as string;
    socket.write(
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
        `Sec-WebSocket-Accept: ${acceptKey(key)}\r\n\r\n`,
    );
    const conn = new WsConnection(
      socket,
      {
        maxMessageBytes: this.options.maxMessageBytes,
        maxPendingBytes: this.options.maxPendingBytes,
        budget: this.budget,
      },
      head,
    );
    const client: Client = { conn, subscriptions: new Map() };
    this.clients.add(client);
    conn.onClose(() => {
      this.closedPeak = Math.max(this.closedPeak, conn.takePeak());
      client.subscriptions.clear();
      this.clients.delete(client);
    });
    // Requests on one socket are answered in order, as CometBFT's read loop does (the connection awaits each).
    conn.onMessage = (text) => this.message(client, text);
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
      const e = new RpcErrorReply(RpcCode.parseError, `error unmarshaling request: ${(error as Error).message}`);
      // No id key at all: CometBFT's RPCResponse has `id,omitempty`.
      this.send(client, { jsonrpc: "2.0", error: e.toJson() });
      return;
    }
    const r = request as { id?: unknown; method?: unknown; params?: unknown } | null;
    const method = typeof r === "object" && r !== null && !Array.isArray(r) ? r.method : undefined;
    if (method !== "subscribe" && method !== "unsubscribe" && method !== "unsubscribe_all") {
      const out = await this.call(request);
      if (out !== undefined) this.send(client, asWebSocketAnswer(out));
      return;
    }
    const rawId = (r as { id?: unknown }).id;
    if (rawId === undefined || rawId === null) return; // a notification: no answer
    if (typeof rawId !== "string" && typeof rawId !== "number") {
      // An id that is neither a string nor a number: the same parse error as for any other method.
      const out = await this.call(request);
      if (out !== undefined) this.send(client, out);
      return;
    }
    const id = jsonRpcId(rawId);
    try {
      const result = this.subscriptionCall(client, method, id, (r as { params?: unknown }).params);
      this.send(client, { jsonrpc: "2.0", id, result });
    } catch (error) {
      const e =
        error instanceof RpcErrorReply ? error : new RpcErrorReply(RpcCode.internalError, (error as Error).message);
      this.send(client, { jsonrpc: "2.0", id, error: e.toJson() });
    }
  }

  private subscriptionCall(client: Client, method: string, id: string | number, params: unknown): Json {
    if (method === "unsubscribe_all") {
      if (client.subscriptions.size === 0) throw new RpcErrorReply(RpcCode.internalError, "subscription not found");
      client.subscriptions.clear();
      return {};
    }
    const query = queryParam(params);
    if (method === "unsubscribe") {
      // CometBFT parses the query first (a malformed one is a parse error, not "not found"), then looks the
      // subscription up by the parsed query's canonical form: `a='x'` unsubscribes what `a = 'x'` subscribed.
      const canonical = canonicalQuery(parsedQuery(query));
      if (!client.subscriptions.delete(canonical))
        throw new RpcErrorReply(RpcCode.internalError, "subscription not found");
      return {};
    }
    const o = this.options;
    if (client.subscriptions.size === 0 && this.subscribedClients >= o.maxSubscriptionClients) {
      throw new RpcErrorReply(RpcCode.internalError, `max_subscription_clients ${o.maxSubscriptionClients} reached`);
    }
    if (client.subscriptions.size >= o.maxSubscriptionsPerClient) {
      throw new RpcErrorReply(
        RpcCode.internalError,
        `max_subscriptions_per_client ${o.maxSubscriptionsPerClient} reached`,
      );
    }
    if (query.length > MAX_QUERY_LENGTH)
      throw new RpcErrorReply(RpcCode.internalError, "maximum query length exceeded");
    const conditions = parsedQuery(query);
    const canonical = canonicalQuery(conditions);
    if (client.subscriptions.has(canonical)) throw new RpcErrorReply(RpcCode.internalError, "already subscribed");
    // Events echo the query as the client wrote it, as CometBFT's do.
    client.subscriptions.set(canonical, { query, conditions, id });
    return {};
  }

  private publish(events: PublishedEvent[]): void {
    const subscribers = [...this.clients].filter((c) => c.subscriptions.size > 0);
    if (subscribers.length === 0) return;
    for (const ev of events) {
      // The event's data and composite keys are serialised once for every subscriber (only the id and query
      // differ between them), and that one buffer is written to each socket, not copied.
      let tail: Buffer | undefined;
      for (const client of subscribers) {
        for (const sub of client.subscriptions.values()) {
          if (client.conn.isClosed) break;
          if (!queryMatches(sub.conditions, ev.events)) continue;
          tail ??= Buffer.from(`,"data":${JSON.stringify(ev.data)},"events":${JSON.stringify(ev.events)}}}`);
          const head = Buffer.from(
            `{"jsonrpc":"2.0","id":${JSON.stringify(sub.id)},"result":{"query":${JSON.stringify(sub.query)}`,
          );
          this.deliver(client, [head, tail]);
        }
      }
    }
  }

  /**
   * Writes one event to a subscriber. Events cannot wait for a client to read, so one that would take the client's
   * unread output over its bound closes the connection (CometBFT cancels such a subscriber too). When the total
   * over all connections would pass its budget, the subscribers holding the most are closed first.
   */
  private deliver(client: Client, parts: Buffer[]): void {
    const size = parts[0].length + parts[1].length;
    while (this.budget.wouldExceed(size)) {
      let slowest: Client | undefined;
      for (const c of this.clients) {
        if (c.subscriptions.size === 0 || c.conn.isClosed || c.conn.pendingBytes === 0) continue;
        if (slowest === undefined || c.conn.pendingBytes > slowest.conn.pendingBytes) slowest = c;
      }
      if (slowest === undefined) break; // only replies hold the budget: they wait for their own clients
      this.dropSlow(slowest);
    }
    if (!client.conn.isClosed && !client.conn.offer(parts)) this.dropSlow(client);
  }

  private dropSlow(client: Client): void {
    client.subscriptions.clear();
    client.conn.close(CloseCode.policyViolation, "client is not pulling messages fast enough");
  }
}

/** The query's conditions, or CometBFT's "failed to parse query: <parser error>" (ours names the query too). */
function parsedQuery(query: string): QueryCondition[] {
  try {
    return parseTxQuery(query);
  } catch (error) {
    if (!(error instanceof TxQueryError)) throw error;
    const detail = error.message.replace(/^failed to parse query /, "");
    throw new RpcErrorReply(RpcCode.internalError, `failed to parse query: ${detail}`);
  }
}

function queryParam(params: unknown): string {
  let q: unknown;
  if (Array.isArray(params)) q = params[0];
  else if (typeof params === "object" && params !== null) q = (params as { query?: unknown }).query;
  // CometBFT parses an absent query as "" and refuses it as a query that does not parse (internal error).
  if (q === undefined || q === null) return "";
  if (typeof q !== "string") {
    // Over WebSocket CometBFT answers params that do not convert with an internal error (see asWebSocketAnswer).
    throw new RpcErrorReply(
      RpcCode.internalError,
      "error converting json params to arguments: query must be a string such as tm.event='NewBlock'",
    );
  }
  return q;
}

/**
 * An answer as CometBFT's WebSocket sends it: its read loop answers params that do not convert with -32603
 * Internal error (rpc/jsonrpc/server/ws_handler.go), where its HTTP handlers answer -32602 Invalid params.
 */
function asWebSocketAnswer(answer: Json): Json {
  const error = (answer as { error?: { code?: unknown } }).error;
  if (error?.code !== RpcCode.invalidParams) return answer;
  return { ...(answer as object), error: { ...error, code: RpcCode.internalError, message: "Internal error" } } as Json;
}
