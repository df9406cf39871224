// The replay mode's App: one ABCI application that runs, at every height, the rules of the release active on
// chain, and switches releases in process where the halt-and-switch path would stop one binary and start another.
// Before FinalizeBlock(H) it reads the committed plan (state H−1); when that plan is due at H, H is not skipped and
// the plan is the upgrade entering the next release of the line, it closes the current release's App, opens the
// next release's App with that upgrade's store upgrades applied while opening at H−1 (exactly what the new binary's
// store loader does after a restart) and runs block H on it, whose EndBlock applies the handler. Nothing is written
// to upgrade-info.json and nothing halts. A plan the line does not know reaches the current release's upgrade
// module unchanged, which halts as docs/CONTRACT.md §2.4 says. A crash at any point leaves the state at H−1 (or at H, after the
// new release committed it, where the done record picks the new release at the next start), so a restart
// resumes correctly.

import { create } from "@bufbuild/protobuf";
import type { AbciApp, CheckTxOptions } from "../engine/abci-app.ts";
import {
  type RequestCheckTx,
  type RequestCommit,
  type RequestExtendVote,
  type RequestFinalizeBlock,
  type RequestInfo,
  type RequestInitChain,
  type RequestPrepareProposal,
  type RequestProcessProposal,
  type RequestQuery,
  type RequestVerifyVoteExtension,
  type ResponseCheckTx,
  type ResponseCommit,
  type ResponseExtendVote,
  ResponseExtendVoteSchema,
  type ResponseFinalizeBlock,
  type ResponseInfo,
  type ResponseInitChain,
  type ResponsePrepareProposal,
  type ResponseProcessProposal,
  type ResponseQuery,
  type ResponseVerifyVoteExtension,
  ResponseVerifyVoteExtension_VerifyStatus,
  ResponseVerifyVoteExtensionSchema,
} from "../gen/tendermint/abci/types_pb.js";
import { readPlan } from "../x/upgrade/keeper.ts";
import {
  activeReleaseIndex,
  checkReleaseLine,
  type LineRelease,
  type ReleaseLine,
  type SwitchableApp,
} from "./release-line.ts";
import type { UpgradeRecords } from "./upgrade-records.ts";

/** Reported each time the App switches releases. */
export interface ReleaseSwitch {
  /** The release that ran up to height − 1. */
  from: string;
  /** The release that runs `height` and after. */
  to: string;
  /** The upgrade that entered `to`. */
  upgrade: string;
  height: bigint;
}

/** A pino-compatible logger (only `info` is used). */
export interface SwitchLogger {
  info(obj: object, msg?: string): void;
}

/** Options of {@link SwitchingApp.open}. */
export interface SwitchingAppOptions<A extends SwitchableApp> {
  line: ReleaseLine<A>;
  /** The upgrade records of the state to open (src/replay/upgrade-records.ts); they pick the starting release. */
  records: UpgradeRecords;
  logger?: SwitchLogger;
}

// Methods of the wrapped App that may be called from servers while a switch is in progress: they wait for it.
const ASYNC_PASSTHROUGH = new Set<PropertyKey>([
  "createQueryContext",
  "simulate",
  "exportAppState",
  "committedAppVersion",
]);

/** The release-switching ABCI application (see the file comment). Create it with {@link SwitchingApp.open}. */
export class SwitchingApp<A extends SwitchableApp> implements AbciApp {
  private readonly line: ReleaseLine<A>;
  private readonly logger: SwitchLogger | undefined;
  private readonly listeners = new Set<(event: ReleaseSwitch) => void>();
  private readonly commitListeners: ((height: bigint) => void)[] = [];
  private currentApp: A;
  private index: number;
  private switching: Promise<void> | undefined;

  private constructor(line: ReleaseLine<A>, app: A, index: number, logger: SwitchLogger | undefined) {
    this.line = line;
    this.currentApp = app;
    this.index = index;
    this.logger = logger;
  }

  /**
   * Opens the App of the release active on chain: the one the last completed upgrade entered (the first release
   * when none completed). Rejects with a ReleaseLineError (exit status 21) when the chain completed an upgrade the
   * line does not know.
   *
   * @example
   * const records = await readUpgradeRecords(storePath, "upgrade");
   * const switching = await SwitchingApp.open({ line, records, logger });
   * const app = switching.asApp(); // hand this to the engine or the ABCI server
   */
  static async open<A extends SwitchableApp>(options: SwitchingAppOptions<A>): Promise<SwitchingApp<A>> {
    checkReleaseLine(options.line);
    const { records } = options;
    const index = activeReleaseIndex(
      options.line,
      records.lastCompleted === undefined
        ? undefined
        : { name: records.lastCompleted.name, protocolVersion: records.protocolVersion },
    );
    const release = options.line.releases[index] as LineRelease<A>;
    const app = await release.open({});
    options.logger?.info(
      {
        release: release.name,
        height: records.height.toString(),
        lastCompletedUpgrade: records.lastCompleted?.name ?? null,
        protocolVersion: records.protocolVersion.toString(),
      },
      `in-place upgrades: running the rules of release ${release.name}, the release active on chain`,
    );
    return new SwitchingApp(options.line, app, index, options.logger);
  }

  /** The App of the release running now. */
  get current(): A {
    return this.currentApp;
  }

  /** The release running now. */
  get release(): LineRelease<A> {
    return this.line.releases[this.index] as LineRelease<A>;
  }

  /**
   * Calls `listener` with the height after every Commit, whichever release committed it (periodic snapshots): a
   * listener registered on one release's App would fall silent once the chain switched to the next.
   */
  onCommit(listener: (height: bigint) => void): void {
    this.commitListeners.push(listener);
  }

  /** Subscribes to release switches; returns the unsubscribe function. */
  onSwitch(listener: (event: ReleaseSwitch) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * This switching App seen as an `A`: the ABCI methods, `close` and `onCommit` are the switching ones; every other member
   * (query routers, type registry, version, store, ...) is read from the current release's App at each access,
   * so servers built once at start follow the switches.
   */
  asApp(): A {
    const own: Record<PropertyKey, unknown> = {
      info: this.info.bind(this),
      initChain: this.initChain.bind(this),
      checkTx: this.checkTx.bind(this),
      prepareProposal: this.prepareProposal.bind(this),
      processProposal: this.processProposal.bind(this),
      extendVote: this.extendVote.bind(this),
      verifyVoteExtension: this.verifyVoteExtension.bind(this),
      finalizeBlock: this.finalizeBlock.bind(this),
      commit: this.commit.bind(this),
      onCommit: this.onCommit.bind(this),
      query: this.query.bind(this),
      close: this.close.bind(this),
    };
    return new Proxy(this.currentApp, {
      get: (_target, prop) => {
        if (Object.hasOwn(own, prop)) return own[prop];
        const app = this.currentApp;
        const value: unknown = Reflect.get(app, prop, app);
        if (typeof value !== "function") return value;
        if (ASYNC_PASSTHROUGH.has(prop)) {
          return async (...args: unknown[]) => {
            await this.settled();
            const now = this.currentApp;
            return (Reflect.get(now, prop, now) as (...a: unknown[]) => unknown).apply(now, args);
          };
        }
        return (value as (...a: unknown[]) => unknown).bind(app);
      },
      has: (_target, prop) => Object.hasOwn(own, prop) || prop in this.currentApp,
    });
  }

  async info(request: RequestInfo): Promise<ResponseInfo> {
    await this.settled();
    return this.currentApp.info(request);
  }

  async initChain(request: RequestInitChain): Promise<ResponseInitChain> {
    await this.settled();
    return this.currentApp.initChain(request);
  }

  async checkTx(request: RequestCheckTx, options?: CheckTxOptions): Promise<ResponseCheckTx> {
    await this.settled();
    return this.currentApp.checkTx(request, options);
  }

  async prepareProposal(request: RequestPrepareProposal): Promise<ResponsePrepareProposal> {
    await this.settled();
    return this.currentApp.prepareProposal(request);
  }

  async processProposal(request: RequestProcessProposal): Promise<ResponseProcessProposal> {
    await this.settled();
    return this.currentApp.processProposal(request);
  }

  async extendVote(request: RequestExtendVote): Promise<ResponseExtendVote> {
    await this.settled();
    const app = this.currentApp;
    if (app.extendVote !== undefined) return app.extendVote(request);
    return create(ResponseExtendVoteSchema);
  }

  async verifyVoteExtension(request: RequestVerifyVoteExtension): Promise<ResponseVerifyVoteExtension> {
    await this.settled();
    const app = this.currentApp;
    if (app.verifyVoteExtension !== undefined) return app.verifyVoteExtension(request);
    const status =
      request.voteExtension.length === 0
        ? ResponseVerifyVoteExtension_VerifyStatus.ACCEPT
        : ResponseVerifyVoteExtension_VerifyStatus.REJECT;
    return create(ResponseVerifyVoteExtensionSchema, { status });
  }

  async finalizeBlock(request: RequestFinalizeBlock): Promise<ResponseFinalizeBlock> {
    await this.settled();
    await this.switchIfDue(request);
    return this.currentApp.finalizeBlock(request);
  }

  async commit(request: RequestCommit): Promise<ResponseCommit> {
    await this.settled();
    const response = await this.currentApp.commit(request);
    const height = this.currentApp.store.lastCommit().version;
    for (const listener of this.commitListeners) listener(height);
    return response;
  }

  async query(request: RequestQuery): Promise<ResponseQuery> {
    await this.settled();
    return this.currentApp.query(request);
  }

  /** Closes the current release's App. */
  async close(): Promise<void> {
    await this.settled();
    await this.currentApp.close();
  }

  private async settled(): Promise<void> {
    while (this.switching !== undefined) await this.switching;
  }

  /** Switches to the next release when the committed plan enters it at `height` (see the file comment). */
  private async switchIfDue(request: RequestFinalizeBlock): Promise<void> {
    const height = request.height;
    const next = this.line.releases[this.index + 1];
    if (next === undefined) return;
    const store = this.currentApp.store;
    // Only a block on top of the committed state can be the upgrade block; anything else the App itself refuses.
    if (store.lastCommit().version + 1n !== height) return;
    const plan = await readPlan((await store.view()).store(this.line.upgradeStoreKey));
    if (plan === undefined || plan.name !== next.enteredBy || plan.height > height) return;
    if (this.line.isSkipHeight(height)) return;
    // The readiness gate may postpone (or abandon) the plan in this very block: then the old rules run it.
    if ((await this.currentApp.holdsDuePlan?.(request)) === true) return;

    const from = this.release.name;
    let done: () => void = () => {};
    this.switching = new Promise<void>((resolve) => {
      done = resolve;
    });
    try {
      await this.currentApp.close();
      this.currentApp = await next.open({ upgradeHeight: height });
      this.index += 1;
    } finally {
      this.switching = undefined;
      done();
    }
    const event: ReleaseSwitch = { from, to: next.name, upgrade: plan.name, height };
    this.logger?.info(
      { from, to: next.name, upgrade: plan.name, height: height.toString() },
      `in-place upgrades: upgrade "${plan.name}" is due at height ${height}; switching from release ${from} to ${next.name} in process`,
    );
    for (const listener of this.listeners) listener(event);
  }
}
