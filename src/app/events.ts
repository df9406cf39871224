// ABCI events as modules emit them: a type and ordered key/value attributes. Every attribute is
// marked for indexing (upstream's default when the node sets no index-events filter), so the
// embedded engine's tx index and CometBFT's kv indexer can search them.

/** One attribute of an event. */
export interface EventAttribute {
  key: string;
  value: string;
  /** Whether the tx indexer indexes this attribute. */
  index: boolean;
}

/** An ABCI event (the shape of `tendermint.abci.Event`). */
export interface AbciEvent {
  type: string;
  attributes: EventAttribute[];
}

/** Collects the events of one unit of work (a tx's messages, a block hook, ...), in emission order. */
export class EventManager {
  private readonly list: AbciEvent[] = [];

  /**
   * Whether emitted events are kept. False only for {@link DISCARDED_EVENTS}: code that builds costly
   * attribute values (amounts as text, bech32, base64) may skip building them when nobody keeps them.
   */
  get recording(): boolean {
    return true;
  }

  /** A new, empty manager of the same kind: one that discards gives itself (nested work discards too). */
  fresh(): EventManager {
    return new EventManager();
  }

  /**
   * Emits an event; attributes keep the object's insertion order.
   * @example ctx.events.emit("transfer", { recipient, sender, amount: "10stake" })
   */
  emit(type: string, attributes: Record<string, string> = {}): void {
    this.list.push(newEvent(type, attributes));
  }

  /** Appends already-built events (e.g. those of a nested execution). */
  emitEvents(events: readonly AbciEvent[]): void {
    for (const event of events) this.list.push(event);
  }

  /** The events emitted so far (a copy of the list). */
  events(): AbciEvent[] {
    return [...this.list];
  }
}

/** Builds an event whose attributes are all indexed. */
export function newEvent(type: string, attributes: Record<string, string> = {}): AbciEvent {
  return {
    type,
    attributes: Object.entries(attributes).map(([key, value]) => ({ key, value, index: true })),
  };
}

/** A copy of `event` with `extra` attributes appended. */
export function appendAttributes(event: AbciEvent, extra: Record<string, string>): AbciEvent {
  // A copy and a push rather than spreads of entries: it runs for every event of every message of every tx.
  const attributes = event.attributes.slice();
  const keys = Object.keys(extra);
  for (let i = 0; i < keys.length; i++) attributes.push({ key: keys[i], value: extra[keys[i]], index: true });
  return { type: event.type, attributes };
}

// CheckTx's callers that read no events (the engine's broadcast_tx_sync and its rechecks) still run
// the ante handler, which emits a handful of events per tx: built and then thrown away, they were a
// tenth of CheckTx's time. Events never reach consensus (no hash covers them), so dropping them there
// changes nothing but the answer's `events`, which those callers ask to be empty.
class DiscardingEventManager extends EventManager {
  override get recording(): boolean {
    return false;
  }

  override fresh(): EventManager {
    return this;
  }

  override emit(): void {}

  override emitEvents(): void {}

  override events(): AbciEvent[] {
    return [];
  }
}

/** An event manager that keeps nothing, for work whose events nobody reads (see `recording`). */
export const DISCARDED_EVENTS: EventManager = new DiscardingEventManager();
