// A branch of the committed state for work a node does ahead of the block it belongs to (a stepped migration's next
// step, done while the engine waits timeout_commit: src/x/upgrade/migration-lookahead.ts). It records what it reads,
// and its writes join a block's branch only when that block has written nothing it read — then the result is
// exactly what running the same work on the block's branch would give.
import { Branch, type BranchOwner } from "./branch.ts";
import { StoreUsageError } from "./errors.ts";
import { ReadLog } from "./read-log.ts";
import type { AheadBranchMultiStore, BranchMultiStore, KVStore } from "./types.ts";

/** See the file comment. Made by `MultiStore.aheadBranch()`. */
export class AheadBranch implements AheadBranchMultiStore {
  private readonly log = new ReadLog();
  private readonly work: Branch;

  constructor(owner: BranchOwner) {
    this.work = new Branch(owner, undefined, this.log);
  }

  store(name: string): KVStore {
    return this.work.store(name);
  }

  branch(): BranchMultiStore {
    return this.work.branch();
  }

  /** Never: the writes go into a block's branch with {@link joinInto}, not into the working set. */
  write(): void {
    throw new StoreUsageError(
      "a branch of work done ahead is not written into the state: join it into a block's branch",
    );
  }

  storeNames(): string[] {
    return this.work.storeNames();
  }

  /**
   * Whether `block` (a block's top-level branch over the same committed state) can take this branch's writes as if
   * the work had run on it: it must not have written any key this branch read, or any key inside a range it scanned.
   */
  fitsInto(block: BranchMultiStore): boolean {
    return block instanceof Branch && block.parent === undefined && !block.wroteWhatWasRead(this.log);
  }

  /**
   * Readies the commit of this branch's writes, still ahead of the block: sorts them (the order the commit walks them
   * in, kept through the join) and loads the committed tree nodes their commit will copy into the node cache.
   */
  warm(): void {
    this.work.warmWrites();
  }

  /** Moves this branch's writes into `block`, after them in order (a key both wrote ends with this branch's value). */
  joinInto(block: BranchMultiStore): void {
    if (!(block instanceof Branch) || !this.fitsInto(block)) {
      throw new StoreUsageError("work done ahead does not fit this block's branch: it read what the block has written");
    }
    block.absorb(this.work);
  }
}
