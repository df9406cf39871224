// `chaind upgrade rehearse <name>` (issue 33; docs/UPGRADING.md "Rehearsing an upgrade"): the upgrade run on real
// state exactly as the new release runs it at H+1, on a work copy (a home at any height it still holds, or a
// snapshot archive), with the chain's invariants, a determinism check in a second process with another time
// zone, locale, wall clock and Math.random, and optionally the source's next blocks under the new rules. The
// source is only read; every work copy lives in one temporary folder, removed on every outcome.
import { mkdtempSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { create, toBinary } from "@bufbuild/protobuf";
import { TimestampSchema, timestampFromMs } from "@bufbuild/protobuf/wkt";
import { homePaths, loadGenesis } from "../../config/index.ts";
import { type RequestFinalizeBlock, RequestFinalizeBlockSchema } from "../../gen/tendermint/abci/types_pb.js";
import { currentChain } from "../../runtime/current-chain.ts";
import type { ChainDefinition, Release } from "../../runtime/release.ts";
import { upgradeHistory } from "../../runtime/release-history.ts";
import { openMultiStore, readCommittedStoreNames } from "../../store/index.ts";
import { levelLockHeldAsync } from "../../store/level-lock-probe.ts";
import type { StoreUpgrades } from "../../store/types.ts";
import { closeVerifyPool } from "../../x/auth/verify-pool.ts";
import type { DrainedMigration } from "../../x/upgrade/migration-runner.ts";
import { type DryRunReport, releaseForUpgrade, storeRows, versionRows } from "../dry-run.ts";
import { peakRssBytes } from "../peak-rss.ts";
import type { CheckResult } from "./checks.ts";
import { runInvariants } from "./checks.ts";
import { readCometBlock } from "./comet-block.ts";
import { firstDifference, type StateDifference } from "./compare-stores.ts";
import { type ChildCommand, runSecondProcess, type SecondEnvironment } from "./determinism.ts";
import { RehearsalError } from "./errors.ts";
import { compareBlock, type FollowedBlock, followBlocks } from "./follow.ts";
import { copyLevelDb, removeWithLevelCopies } from "./level-copy.ts";
import { currentEnvironment } from "./perturb.ts";
import { stateFromHome, stateFromSnapshot } from "./prepare-state.ts";
import { openSourceBlocks, recordedBlockTime } from "./source-blocks.ts";
import { type MigrationTime, runUpgrade } from "./upgrade-run.ts";

/** Options of {@link rehearseUpgrade}. */
export interface RehearsalParameters {
  /** The node's home: the state's source, or with `snapshot` the home whose genesis names the chain. */
  home: string;
  name: string;
  /** The state height (default: the latest); not with `snapshot`. */
  height?: bigint;
  /** A snapshot archive (`chaind snapshots dump`) to rehearse on instead of the home's state. */
  snapshot?: string;
  /** How many of the source's blocks after H to execute with the new release (default 0). */
  follow?: number;
  /** Run the second, perturbed process (default true). */
  determinism?: boolean;
  /** How to start this binary's CLI for the second run (default: this process's executable and entry point). */
  childCommand?: ChildCommand;
  /**
   * Block H+1's time (default: the source's for H+1, else one second after block H). The app hash after the upgrade
   * depends on it (staking keeps the block's header in state): to match a real upgrade at H+1, give that block's time.
   */
  blockTime?: { seconds: bigint; nanos: number };
  /** Block H+1's proposer address (default: the source's for H+1, else none); it reaches state like the time. */
  proposer?: Uint8Array;
  /**
   * Block H+1 as CometBFT's RPC `/block` answered it (a JSON file): its time, proposer, hash and transactions (the
   * extended commit among them) run instead of a built block, so the app hash is the network's (comet-block.ts).
   */
  blockFile?: string;
  chain?: ChainDefinition;
  tempRoot?: string;
}

/** The determinism verdict. */
export interface DeterminismReport {
  ran: boolean;
  /** Both runs gave the same app hash (and so the same contents in every store). */
  equal: boolean;
  /** This process's time zone and locale (when the second run ran). */
  first?: { timeZone: string; locale: string };
  second?: SecondEnvironment;
  appHashSecond?: string;
  /** Where the states first differ, when they do. */
  difference?: StateDifference;
  /** The second run failed where the first did not. */
  error?: string;
}

/**
 * The rehearsal's report (`-o json` prints it as docs/UPGRADING.md documents): the dry run's fields (its store,
 * version and app-hash rows mean the same here) with the rehearsal's own durations, then what the rehearsal adds.
 */
export interface RehearsalReport extends Omit<DryRunReport, "durations"> {
  source: { home: string; snapshot?: string };
  checks: CheckResult[];
  /** The upgrade's stepped migrations run to their end: steps (blocks) each takes at its budget. */
  steppedMigrations: DrainedMigration[];
  determinism: DeterminismReport;
  follow: { requested: number; blocks: FollowedBlock[] } | undefined;
  durations: {
    prepareMs: number;
    loadMs: number;
    handlerMs: number;
    migrations: MigrationTime[];
    blockMs: number;
    commitMs: number;
    secondRunMs: number;
    followMs: number;
    /** Running the stepped migrations to their end (not part of the pause: they run one step a block). */
    steppedMs: number;
    /** The declared checks and invariants together (the chain's code; each check's own time is in `checks`). */
    checksMs: number;
    totalMs: number;
    /** open with the store loader + handler (migrations included) + commit: the chain's pause at the height. */
    pauseEstimateMs: number;
  };
  peakRssBytes: number;
  /** Every check passed, both runs agreed and no followed transaction broke. */
  passed: boolean;
  /** One line per failure. */
  failures: string[];
}

const NO_STORE_UPGRADES: StoreUpgrades = { added: [], renamed: [], deleted: [] };

/**
 * Rehearses the upgrade `name`. Throws RehearsalError (one line) for bad input; resolves with the report
 * otherwise, `passed` false when a check failed.
 *
 * @example const report = await rehearseUpgrade({ home, name: "v2", follow: 5 }); report.passed
 */
export async function rehearseUpgrade(parameters: RehearsalParameters): Promise<RehearsalReport> {
  const started = performance.now();
  const chain = parameters.chain ?? currentChain();
  const release = releaseForUpgrade(parameters.name, chain);
  const follow = parameters.follow ?? 0;
  if (parameters.snapshot !== undefined && parameters.height !== undefined) {
    throw new RehearsalError("--height and --snapshot exclude each other: a snapshot holds one height");
  }
  if (parameters.snapshot !== undefined && follow > 0) {
    throw new RehearsalError(
      "--follow needs the source's blocks: give --home of a node that holds them, not --snapshot",
    );
  }
  if (follow > 0 && (parameters.blockTime !== undefined || parameters.proposer !== undefined)) {
    throw new RehearsalError(
      "--block-time and --proposer set block H+1, which --follow takes from the source: give one or the other",
    );
  }
  if (
    parameters.blockFile !== undefined &&
    (follow > 0 || parameters.blockTime !== undefined || parameters.proposer !== undefined)
  ) {
    throw new RehearsalError("--block gives block H+1 whole: it excludes --follow, --block-time and --proposer");
  }
  // Whether a node holds the source's state is asked first: reading the lock table waits milliseconds off the CPU
  // (src/store/level-lock-probe.ts), and genesis.json's read and the work copy's links run beside that wait.
  const sourceHeld =
    parameters.snapshot === undefined ? levelLockHeldAsync(homePaths(parameters.home).applicationDb) : undefined;
  const genesisFile = homePaths(parameters.home).genesis;
  const genesis = await loadGenesis(genesisFile).catch((err: unknown) => {
    throw new RehearsalError(`cannot read ${genesisFile}: ${(err as Error).message}`, { cause: err });
  });
  // The rehearsal's own file work (this folder, the work copy's links) is done with synchronous calls: each awaited
  // one is a trip through the thread pool and back to the event loop, which on a busy machine waits for a core.
  const temp = mkdtempSync(join(parameters.tempRoot ?? tmpdir(), "chaind-rehearse-"));
  try {
    const workHome = join(temp, "first");
    // The source's block store is opened (read from its files where they lie, or for a store in use from a copy:
    // source-blocks.ts) before the state is copied and opened: it is first needed once the upgrade run's open of
    // the state has told H (block H+1 is made from blocks H and H+1). Neither is what the real upgrade spends (the
    // rehearsal's own cost, issue 33's bench).
    const opening = openSourceBlocks(
      parameters.snapshot === undefined ? homePaths(parameters.home).blocksDb : undefined,
      temp,
    );
    opening.catch(() => undefined); // awaited where the blocks are needed, which reports its failure
    // Without --follow the source's blocks are done with once block H+1 is made: closed (and any copy removed)
    // while the upgrade runs, and waited for before the rehearsal returns.
    let closingSource: Promise<void> | undefined;
    try {
      const determinism = parameters.determinism ?? true;
      const secondHome = join(temp, "second");
      const blockFile = join(temp, "block.bin");
      if (parameters.snapshot === undefined) {
        await stateFromHome(parameters.home, workHome, parameters.height, sourceHeld);
      } else {
        await stateFromSnapshot({
          archive: parameters.snapshot,
          configHome: parameters.home,
          workHome,
          chain,
          previous: previousRelease(chain, release),
        });
      }
      if (determinism) {
        // The second run's state is copied before the first run opens (and so changes) the work state.
        await mkdir(homePaths(secondHome).dataDir, { recursive: true });
        await copyLevelDb(homePaths(workHome).applicationDb, homePaths(secondHome).applicationDb);
      }
      const prepareMs = performance.now() - started;
      let recorded: RequestFinalizeBlock | undefined;

      const { run, chain: opened } = await runUpgrade({
        home: workHome,
        name: parameters.name,
        chain,
        release,
        chainId: genesis.chainId,
        refuse: ({ height, appliedAt }) => {
          if (height === 0n) {
            throw new RehearsalError(`${homePaths(parameters.home).applicationDb} holds no committed state yet`);
          }
          if (appliedAt !== undefined) {
            throw new RehearsalError(
              `the upgrade "${parameters.name}" was already applied at height ${appliedAt}: rehearse on a state before it (--height ${appliedAt - 1n} or lower)`,
            );
          }
        },
        block: async ({ height }) => {
          // Block H+1: the network's real one when --block gives it (CometBFT's /block JSON), the source's own when
          // following (its transactions run under the new rules, then the upgrade, as at the real height);
          // otherwise an empty block with the source's time for H+1 when it has one, else one second after block H
          // (so a home and a snapshot of the same height rehearse alike), else now. --block-time and --proposer
          // override them. On a chain with vote extensions runUpgrade puts H's extended commit in the built block,
          // as a steady network's real block would carry it (built-commit.ts; docs/UPGRADING.md says exactly what
          // that models).
          const source = await opening;
          recorded = await source.request(height + 1n);
          const previous =
            (await source.request(height))?.time ?? (await recordedBlockTime(homePaths(workHome).blocksDb, height));
          if (follow === 0) {
            closingSource = source.close();
            closingSource.catch(() => undefined); // awaited (and so reported) in the finally below
          }
          const fallbackTime =
            previous === undefined
              ? timestampFromMs(Date.now())
              : create(TimestampSchema, { seconds: previous.seconds + 1n, nanos: previous.nanos });
          const given =
            parameters.blockFile === undefined ? undefined : await readCometBlock(parameters.blockFile, height + 1n);
          const block =
            given !== undefined
              ? given
              : follow > 0 && recorded !== undefined
                ? recorded
                : create(RequestFinalizeBlockSchema, {
                    height: height + 1n,
                    time:
                      parameters.blockTime === undefined
                        ? (recorded?.time ?? fallbackTime)
                        : create(TimestampSchema, parameters.blockTime),
                    proposerAddress: parameters.proposer ?? recorded?.proposerAddress ?? new Uint8Array(),
                    hash: recorded?.hash ?? new Uint8Array(),
                    txs: [],
                    misbehavior: [],
                  });
          // The second process runs the same block: it gets it as a file.
          if (determinism) await writeFile(blockFile, toBinary(RequestFinalizeBlockSchema, block));
          return block;
        },
        inspect: true,
      });
      const height = run.height;
      try {
        const checks = [...run.checks];
        const secondStarted = performance.now();
        // Read only when there is a second run to compare with: ICU's first date format costs ~50 ms.
        const determinismReport: DeterminismReport = {
          ran: determinism,
          equal: true,
          first: determinism ? currentEnvironment() : undefined,
        };
        if (determinism) {
          const second = await runSecondProcess({
            command: parameters.childCommand ?? thisBinary(),
            workHome: secondHome,
            name: parameters.name,
            blockFile,
            chainId: genesis.chainId,
          });
          determinismReport.second = second.environment;
          determinismReport.appHashSecond = second.appHash;
          determinismReport.error = second.error;
          determinismReport.equal = second.appHash === run.appHashAfter;
          if (second.appHash !== undefined && !determinismReport.equal) {
            determinismReport.difference = await differenceWith(
              opened.app.store,
              homePaths(secondHome).applicationDb,
              run.appliedAt,
            );
          }
        }
        const secondRunMs = performance.now() - secondStarted;

        const followStarted = performance.now();
        let followReport: RehearsalReport["follow"];
        if (follow > 0) {
          const blocks: FollowedBlock[] = [];
          const source = await opening;
          const first = await source.results(height + 1n);
          if (recorded !== undefined && first !== undefined) {
            blocks.push(compareBlock(height + 1n, run.block, first, recorded.txs));
            blocks.push(...(await followBlocks(opened.app, source, height + 2n, height + BigInt(follow))));
            checks.push(...(await runInvariants(opened.moduleManager.modules(), followCtx(opened), "followed")));
          }
          followReport = { requested: follow, blocks };
        }
        const followMs = performance.now() - followStarted;

        const storeUpgrades = run.storeUpgradesInstalled
          ? (upgradeHistory(chain, release).find((u) => u.name === parameters.name)?.storeUpgrades ?? NO_STORE_UPGRADES)
          : NO_STORE_UPGRADES;
        const failures = [
          ...checks.filter((c) => !c.passed).map((c) => `check ${c.name} (${c.phase}) failed: ${c.error}`),
          ...determinismFailures(determinismReport),
          ...(followReport?.blocks ?? []).flatMap((b) =>
            b.broken.map(
              (t) =>
                `block ${b.height} tx ${t.index} succeeded on the source but failed with code ${t.code} (${t.codespace}): ${t.log}`,
            ),
          ),
        ];
        const d = run.durations;
        return {
          name: parameters.name,
          release: { name: release.name, version: release.version },
          source: { home: parameters.home, snapshot: parameters.snapshot },
          height,
          appliedAt: run.appliedAt,
          scheduledPlan: run.scheduledPlan,
          storeUpgrades,
          stores: storeRows(run.storesBefore, run.storesAfter, run.storeUpgradesInstalled ? storeUpgrades : undefined),
          moduleVersions: versionRows(run.versionsBefore, run.versionsAfter),
          protocolVersion: { before: run.protocolBefore, after: run.protocolAfter },
          appHashBefore: run.appHashBefore,
          appHashAfter: run.appHashAfter,
          checks,
          steppedMigrations: run.steppedMigrations,
          determinism: determinismReport,
          follow: followReport,
          durations: {
            prepareMs,
            loadMs: d.loadMs,
            handlerMs: d.handlerMs,
            migrations: d.migrations,
            blockMs: d.blockMs,
            commitMs: d.commitMs,
            secondRunMs,
            followMs,
            steppedMs: d.steppedMs,
            checksMs: checks.reduce((sum, c) => sum + c.ms, 0),
            totalMs: performance.now() - started,
            pauseEstimateMs: d.loadMs + d.handlerMs + d.commitMs,
          },
          peakRssBytes: peakRssBytes(),
          passed: failures.length === 0,
          failures,
        };
      } finally {
        await opened.app.close();
        await closeVerifyPool();
      }
    } finally {
      await (closingSource ??
        opening.then(
          (source) => source.close(),
          () => undefined,
        ));
    }
  } finally {
    // The work copies hold one link per LevelDB table (hundreds for a large state): unlinked at once (level-copy.ts).
    await removeWithLevelCopies(temp, [
      homePaths(join(temp, "first")).applicationDb,
      homePaths(join(temp, "second")).applicationDb,
    ]);
  }
}

/** The release a chain runs before `release`: its last `upgradesFrom`, else the one listed before it. */
function previousRelease(chain: ChainDefinition, release: Release): Release {
  const named = release.upgradesFrom?.at(-1);
  const index = chain.releases.indexOf(release);
  const previous = chain.releases.find((r) => r.name === named) ?? chain.releases[index - 1];
  if (previous === undefined) {
    throw new RehearsalError(`release ${release.name} has no predecessor in this binary to read a snapshot with`);
  }
  return previous;
}

/** This process's binary: the executable with the entry point it was started with (none for a single executable). */
function thisBinary(): ChildCommand {
  // A single executable application has no script argument; `node entry.ts` has one.
  const entry = process.argv[1];
  const sea = entry === undefined || entry === process.execPath;
  return { command: process.execPath, args: sea ? [] : [...process.execArgv, entry] };
}

function followCtx(opened: Awaited<ReturnType<typeof runUpgrade>>["chain"]) {
  const app = opened.app;
  return () =>
    app.newContext(app.store.branch(), "finalize", {
      height: app.lastBlockHeight(),
      time: timestampFromMs(0),
      chainId: "",
      proposerAddress: new Uint8Array(),
      lastAppHash: app.store.lastCommit().appHash,
      hash: new Uint8Array(),
    });
}

async function differenceWith(
  first: Parameters<typeof firstDifference>[0],
  secondDb: string,
  version: bigint,
): Promise<StateDifference | undefined> {
  const second = await openMultiStore({ path: secondDb, storeNames: await readCommittedStoreNames(secondDb) });
  try {
    return await firstDifference(first, second, version);
  } finally {
    await second.close();
  }
}

function determinismFailures(report: DeterminismReport): string[] {
  if (!report.ran || report.equal) return [];
  if (report.error !== undefined) return [`determinism: ${report.error}`];
  const where =
    report.difference === undefined
      ? ""
      : report.difference.key === undefined
        ? ` (store ${report.difference.store} exists in one run only)`
        : ` (store ${report.difference.store}, first differing key ${report.difference.key}${report.difference.keyText === undefined ? "" : ` "${report.difference.keyText}"`})`;
  return [`determinism: the second run's app hash ${report.appHashSecond} differs from the first's${where}`];
}
