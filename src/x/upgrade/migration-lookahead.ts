// The next block's migration steps, done ahead. A step runs first in its block's PreBlock, on the state the last
// block committed, so it can be computed as soon as that commit is done — while the engine (or CometBFT) waits
// timeout_commit and the node has nothing else to do. It runs on the store's AheadBranch, which records what the
// step read; PreBlock joins its writes into the block's branch and emits its events only when the block has written
// nothing the step read (the extended commit recorded before it, a readiness gate moving the plan), else the step
// runs in the block as before. Either way the block's state and events are the same: the lookahead moves work out of
// the block's interval, never changes what the block does. A step that reads what the next block's header only
// will know (its time, proposer or hash) is not done ahead (src/app/ahead-context.ts).

import type { Context } from "../../app/context.ts";
import { type AbciEvent, EventManager } from "../../app/events.ts";
import type { AheadBranchMultiStore } from "../../store/types.ts";
import { runMigrationSteps, type SteppedMigrationSource } from "./migration-runner.ts";

/** What the App gives the lookahead (src/app/base-app.ts `App.aheadContext`). */
export interface AheadContextSource {
  aheadContext(events: EventManager): { ctx: Context; branch: AheadBranchMultiStore } | undefined;
}

/** Steps done ahead for the block at `height`, on the state whose app hash is `appHash`, once `result` resolves. */
interface AheadSteps {
  height: bigint;
  appHash: Uint8Array;
  /** The branch and the events of the steps, or undefined when they could not be done ahead. */
  result: Promise<{ branch: AheadBranchMultiStore; events: AbciEvent[] } | undefined>;
}

/** See the file comment. One per upgrade keeper. */
export class MigrationLookahead {
  private readonly source: SteppedMigrationSource & { carriesSteppedMigrations(): boolean };
  private ahead: AheadSteps | undefined;
  /** Blocks whose steps were joined from work done ahead, and blocks where work done ahead did not fit. */
  readonly counts = { joined: 0, unfit: 0 };
  /** Off: every step runs in its block (a test compares both ways; the state is the same). */
  enabled = true;

  constructor(source: SteppedMigrationSource & { carriesSteppedMigrations(): boolean }) {
    this.source = source;
  }

  /**
   * After a commit: starts the next block's steps on a branch of the committed state (nothing when this binary
   * carries no stepped migration, or the app cannot branch ahead). Never throws; what fails ahead runs in the block.
   * Returns {@link settled}'s promise: the work started.
   */
  start(app: AheadContextSource): Promise<void> {
    this.ahead = undefined;
    this.startAhead(app);
    return this.settled();
  }

  private startAhead(app: AheadContextSource): void {
    if (!this.enabled || !this.source.carriesSteppedMigrations()) return;
    const events = new EventManager();
    let made: ReturnType<AheadContextSource["aheadContext"]>;
    try {
      made = app.aheadContext(events);
    } catch {
      return; // e.g. a store closing under a stopping node: the block, if any, runs its steps itself
    }
    if (made === undefined) return;
    const { ctx, branch } = made;
    const result = runMigrationSteps(this.source, ctx).then(
      () => {
        // Still in the wait: what the block's commit of these writes will read from disk, read now. Only a head
        // start: should it fail, the commit reads (and reports) the same itself.
        try {
          branch.warm();
        } catch {}
        return { branch, events: events.events() };
      },
      () => undefined,
    );
    this.ahead = { height: ctx.blockHeight, appHash: ctx.header.lastAppHash, result };
  }

  /** Resolves once the steps started after the last commit are done (or at once when none were started). */
  async settled(): Promise<void> {
    await this.ahead?.result;
  }

  /**
   * In PreBlock, where the steps run: joins the steps done ahead for this block into its branch and emits their
   * events, when they were done for this block on the state it follows and fit its branch. False when the steps
   * must run in the block. Work done ahead is used once: a block the engine finalizes again runs its steps.
   */
  async take(ctx: Context): Promise<boolean> {
    const ahead = this.ahead;
    this.ahead = undefined;
    if (ahead === undefined || ahead.height !== ctx.blockHeight) return false;
    if (Buffer.compare(ahead.appHash, ctx.header.lastAppHash) !== 0) return false;
    const done = await ahead.result;
    if (done === undefined) return false;
    if (!done.branch.fitsInto(ctx.multiStore)) {
      this.counts.unfit++;
      return false;
    }
    done.branch.joinInto(ctx.multiStore);
    ctx.events.emitEvents(done.events);
    this.counts.joined++;
    return true;
  }
}
