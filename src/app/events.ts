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
