// Waiting for a tx over the consensus RPC's WebSocket, as upstream clients do: subscribe to
// `tm.event='Tx' AND tx.hash='<HASH>'` on ws://<node>/websocket and resolve when the event arrives. Used by
// the CLI's `--wait`; when the socket cannot be opened (an old node, a proxy that refuses upgrades, a unix
// socket address) the caller falls back to polling the tx index.

/** An open subscription to one tx's inclusion. */
export interface TxInclusionWaiter {
  /** Resolves when the node publishes the tx's Tx event (it is then in a committed block). */
  readonly included: Promise<void>;
  /** Closes the socket. */
  close(): void;
}

/** The WebSocket URL of a consensus RPC address (`tcp://` and `http://` → `ws://`, `https://` → `wss://`). */
export function websocketUrlOf(node: string): string | undefined {
  const m = /^(tcp|http|https|ws|wss):\/\/([^/]+)/.exec(node.trim());
  if (m === null) return undefined;
  const scheme = m[1] === "https" || m[1] === "wss" ? "wss" : "ws";
  return `${scheme}://${m[2]}/websocket`;
}

/**
 * Opens a WebSocket to `node` and subscribes to the tx `hash` (uppercase hex). Resolves with the waiter once
 * the node confirmed the subscription, or undefined when that is not possible within `connectTimeoutMs`.
 */
export async function subscribeTxInclusion(
  node: string,
  hash: string,
  connectTimeoutMs = 5000,
): Promise<TxInclusionWaiter | undefined> {
  const url = websocketUrlOf(node);
  if (url === undefined || typeof WebSocket === "undefined") return undefined;
  let socket: WebSocket;
  try {
    socket = new WebSocket(url);
  } catch {
    return undefined;
  }
  const query = `tm.event='Tx' AND tx.hash='${hash.toUpperCase()}'`;
  let onIncluded: () => void = () => {};
  const included = new Promise<void>((resolve) => {
    onIncluded = resolve;
  });
  const confirmed = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), connectTimeoutMs);
    socket.addEventListener("open", () => {
      socket.send(JSON.stringify({ jsonrpc: "2.0", id: "wait-tx", method: "subscribe", params: { query } }));
    });
    socket.addEventListener("message", (event) => {
      let message: { id?: unknown; result?: { query?: unknown }; error?: unknown };
      try {
        message = JSON.parse(String(event.data));
      } catch {
        return;
      }
      if (message.id !== "wait-tx") return;
      if (message.error !== undefined) {
        clearTimeout(timer);
        resolve(false);
      } else if (message.result?.query === undefined) {
        clearTimeout(timer);
        resolve(true); // the subscribe answer: {}
      } else {
        onIncluded();
      }
    });
    socket.addEventListener("error", () => {
      clearTimeout(timer);
      resolve(false);
    });
    socket.addEventListener("close", () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
  if (!confirmed) {
    socket.close();
    return undefined;
  }
  return { included, close: () => socket.close() };
}
