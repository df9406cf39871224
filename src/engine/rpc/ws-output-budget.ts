// The bytes every WebSocket connection of one server has written but the kernel has not yet taken (its clients'
// unread output), summed, against one limit: each connection bounds its own output, and this bounds the sum, so
// many slow clients together cannot hold more than the budget (plus one message each; see ws-connection.ts).

/** Per-connection and total limits on unread WebSocket output (documented in src/engine/README.md). */
export const WS_OUTPUT_LIMITS = {
  /** One connection: over this, its requests wait and an event closes it (16 MiB). */
  perConnectionBytes: 16 * 1024 * 1024,
  /** All connections of one RPC server together (256 MiB). */
  totalBytes: 256 * 1024 * 1024,
} as const;

/** The running total, shared by a server's connections. */
export class WsOutputBudget {
  readonly limit: number;
  private usedBytes = 0;
  private peakBytes = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Bytes held for all connections now. */
  get used(): number {
    return this.usedBytes;
  }

  /** True when `more` bytes would take the total over the limit. */
  wouldExceed(more: number): boolean {
    return this.usedBytes + more > this.limit;
  }

  /** The most held at once since the last {@link takePeak} (what tests check the limit against). */
  takePeak(): number {
    const peak = this.peakBytes;
    this.peakBytes = this.usedBytes;
    return peak;
  }

  take(bytes: number): void {
    this.usedBytes += bytes;
    if (this.usedBytes > this.peakBytes) this.peakBytes = this.usedBytes;
  }

  release(bytes: number): void {
    this.usedBytes -= bytes;
  }
}
