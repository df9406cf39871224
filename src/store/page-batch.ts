// A commit's tree pages, encoded into their own batch a slice at a time. The commit's first write (rows,
// changelog, commit info) keeps LevelDB's thread busy for tens of milliseconds while this thread, once the
// new nodes are numbered, has nothing to do: the pages are encoded in that wait, a slice between two turns
// of the event loop, and what the wait did not cover is encoded after the commit (multistore.ts). The batch
// is written only once the commit's own write is durable, as before: the order on disk is unchanged. A large
// version's pages are written in parts of a bounded size (`partBytes`, `partWritten`; multistore.ts).
import { nodeKey } from "./keys.ts";
import type { KVBatch } from "./kv-backend.ts";
import type { RowSink } from "./part-writer.ts";
import { encodePageView, type InnerNode, PAGE_NODES } from "./tree-node.ts";

/** One store's numbered nodes, whose pages go into the batch. */
export interface PagedStore {
  sid: number;
  nodes: InnerNode[];
}

/**
 * The pages of one version's stores, encoded into `batch` in store order, page by page. `batch` is a commit's page
 * batch, or the parts a large version writes at stage (part-writer.ts).
 */
export class PageBatch<B extends RowSink = KVBatch> {
  readonly batch: B;
  readonly version: number;
  private readonly stores: readonly PagedStore[];
  private store = 0;
  private from = 0;
  /** Bytes of the pages put since the last part was written. */
  partBytes = 0;

  constructor(batch: B, version: number, stores: readonly PagedStore[]) {
    this.batch = batch;
    this.version = version;
    this.stores = stores;
  }

  /** Whether every page is in the batch. */
  get done(): boolean {
    return this.store >= this.stores.length;
  }

  /**
   * Puts up to `pages` more pages into the batch (all that are left when `pages` is Infinity), stopping once the part
   * holds `partLimit` bytes or more.
   */
  encode(pages: number, partLimit = Number.POSITIVE_INFINITY): void {
    const stores = this.stores;
    while (pages > 0 && this.store < stores.length && this.partBytes < partLimit) {
      const { sid, nodes } = stores[this.store];
      if (this.from >= nodes.length) {
        this.store++;
        this.from = 0;
        continue;
      }
      const to = Math.min(nodes.length, this.from + PAGE_NODES);
      const page = encodePageView(nodes, this.from, to);
      this.batch.put(nodeKey(sid, this.version, this.from / PAGE_NODES), page);
      this.partBytes += page.length;
      this.from = to;
      pages--;
    }
    this.skipFinished();
  }

  /** The pages put so far were written: the next part starts empty. */
  partWritten(): void {
    this.partBytes = 0;
  }

  private skipFinished(): void {
    const stores = this.stores;
    // A store whose last page was just put counts as done now, not at the next call.
    while (this.store < stores.length && this.from >= stores[this.store].nodes.length) {
      this.store++;
      this.from = 0;
    }
  }
}
