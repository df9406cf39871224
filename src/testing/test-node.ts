// Testing kit: a real App of one release — built by the same builder the node uses (src/runtime/build-app.ts) — over
// a real LevelDB store in a temporary home, one genesis validator created by a gentx, driven block by block, stopped
// and restarted as a different "binary" (release). Proposals go through real gov: submitted with the full deposit by
// a funded account, voted YES by the validator, executed by gov's EndBlock when the voting period ends. The
// counterpart of the SDK's simapp test helpers; not part of the runtime bundle.

import { create, fromBinary, type JsonValue } from "@bufbuild/protobuf";
import { type Any, timestampFromMs } from "@bufbuild/protobuf/wkt";
import { pino } from "pino";
import type { App } from "../app/base-app.ts";
import type { Context } from "../app/context.ts";
import type { AppModule, MigrationHandler } from "../app/module.ts";
import type { ModuleManager } from "../app/module-manager.ts";
import { toProtoJson } from "../app/proto-json.ts";
import { txFromTxRaw } from "../client/tx/tx-raw.ts";
import { TxMsgDataSchema } from "../gen/chain/base/abci/v1beta1/abci_pb.js";
import { type Proposal, VoteOption } from "../gen/chain/gov/v1/gov_pb.js";
import { MsgSubmitProposalResponseSchema, MsgSubmitProposalSchema, MsgVoteSchema } from "../gen/chain/gov/v1/tx_pb.js";
import { TxSchema } from "../gen/chain/tx/v1beta1/tx_pb.js";
import {
  type ExecTxResult,
  RequestFinalizeBlockSchema,
  RequestInitChainSchema,
  type ResponseFinalizeBlock,
} from "../gen/tendermint/abci/types_pb.js";
import { buildChainApp } from "../runtime/build-app.ts";
import { useChain } from "../runtime/current-chain.ts";
import { type ChainDefinition, defineChain, type Release } from "../runtime/release.ts";
import type { AccountKeeper } from "../x/auth/keeper.ts";
import type { GovKeeper } from "../x/gov/keeper.ts";
import type { UpgradeKeeper } from "../x/upgrade/keeper.ts";
import { genesisFor, packAny, signTx, type TestKey, testKey } from "./app.ts";
import { createValidatorMsg } from "./staking.ts";

/** The chain id of every test node's chain. */
export const TEST_CHAIN_ID = "upgrade-test";
const CHAIN_ID = TEST_CHAIN_ID;

/** gov voting period of the test chain. */
export const VOTING_PERIOD_MS = 20_000;
/** gov deposit period of the test chain. */
export const DEPOSIT_PERIOD_MS = 20_000;
/** The genesis validator (10M stake bonded). */
export const VALIDATOR = testKey("upgrade-harness-validator");
/** A funded account that submits proposals. */
export const PROPOSER = testKey("upgrade-harness-proposer");
const ACCOUNTS = [VALIDATOR, PROPOSER];
const MIN_DEPOSIT = 10_000_000n;

/** A "binary": the modules it has besides the standard ones and the upgrade that enters it (a runtime Release). */
export type TestRelease = Omit<Release, "name" | "version"> & { name?: string; version?: string };

/** A running test node. */
export interface TestNode {
  app: App;
  keeper: UpgradeKeeper;
  govKeeper: GovKeeper;
  accountKeeper: AccountKeeper;
  moduleManager: ModuleManager;
  /** Log messages since the node started. */
  logs: string[];
  /** Whether the release's store loader was installed at start. */
  storeLoaderInstalled: boolean;
  /** Runs FinalizeBlock at the next height (block time +1 s, or `advanceMs`) with `txs`, then commits. */
  nextBlock(options?: { txs?: Uint8Array[]; advanceMs?: number }): Promise<ResponseFinalizeBlock>;
  /** Signs and delivers one tx in its own block. */
  deliver(key: TestKey, messages: Any[]): Promise<ExecTxResult>;
  /** Submits a proposal with the full deposit (voting starts at once); returns its id. */
  submitProposal(messages: Any[]): Promise<bigint>;
  /** The validator votes YES. */
  voteYes(id: bigint): Promise<void>;
  /** Submit, vote, and one block past the voting period end: the proposal is tallied and executed. */
  passProposal(messages: Any[]): Promise<Proposal>;
  proposal(id: bigint): Promise<Proposal>;
  /** A read context at the latest committed height. */
  query(): Promise<Context>;
  close(): Promise<void>;
}

// Block time per home, so a restarted node keeps a monotonic clock.
const clocks = new Map<string, number>();

/** The release a test node runs and the chain it belongs to (see `chain` of {@link startTestNode}). */
function testChainOf(
  given: TestRelease,
  chain: ChainDefinition | undefined,
): { release: Release; chain: ChainDefinition } {
  if (chain !== undefined) {
    const release = chain.releases.find((r) => r.name === given.name);
    if (release === undefined) {
      throw new Error(
        `startTestNode: release "${given.name}" is not one of chain "${chain.name}"'s releases (${chain.releases.map((r) => r.name).join(", ")})`,
      );
    }
    // What the test overrides (e.g. its modules) wins; the name keeps it on the chain's line.
    return { release: { ...release, ...given, name: release.name, version: given.version ?? release.version }, chain };
  }
  // The test chain holds this one release, so the predecessors it names (`upgradesFrom`, v2's ["v1"]) are not in it
  // and defineChain would refuse them: the release keeps only its own upgrade.
  const release: Release = { name: "test", version: "0.0.0", ...given, upgradesFrom: undefined };
  return { release, chain: defineChain({ name: "chaind", releases: [release] }) };
}

/** Starts (or restarts) a node on `home` as `release`. A fresh home runs InitChain (gentx, gov periods of 20 s). */
export async function startTestNode(parameters: {
  home: string;
  release: TestRelease;
  /**
   * The chain `release` is one of (a full Release then, e.g. `v2` of chain/releases.ts): the release keeps the
   * handlers of the upgrades before it on the chain's line (`upgradesFrom`), as the node does. Without it the test
   * chain holds `release` alone, which knows only its own `upgrade`.
   */
  chain?: ChainDefinition;
  skipUpgradeHeights?: bigint[];
  /** The genesis consensus params' `abci.vote_extensions_enable_height` (default 0: off). */
  voteExtensionsEnableHeight?: bigint;
}): Promise<TestNode> {
  const { home } = parameters;
  const { release, chain } = testChainOf(parameters.release, parameters.chain);
  // A chain's own binary serves that chain's identity (runCli makes it the process's); its test node does too, so
  // the kit's keys and every address the App reads or prints carry the chain's bech32 prefix, as on its real node,
  // without each test having to call useChain first.
  if (parameters.chain !== undefined) useChain(parameters.chain);
  const logs: string[] = [];
  const logger = pino({ level: "debug" }, { write: (line: string) => logs.push(JSON.parse(line).msg) });
  const built = await buildChainApp({
    chain,
    release,
    home,
    chainId: CHAIN_ID,
    logger,
    skipUpgradeHeights: parameters.skipUpgradeHeights,
  });
  const { app, accountKeeper, govKeeper, moduleManager, upgradeKeeper: keeper } = built;
  const storeLoaderInstalled = built.storeUpgradesInstalled;
  const defaultGov = moduleManager.defaultGenesis().gov as Record<string, JsonValue>;
  let time = clocks.get(home) ?? 1_700_000_000_000;
  if (app.lastBlockHeight() === 0n) {
    await initChain(app, defaultGov, time, parameters.voteExtensionsEnableHeight ?? 0n);
  }

  const nextBlock: TestNode["nextBlock"] = async (options = {}) => {
    const blockTime = time + (options.advanceMs ?? 1000);
    const response = await app.finalizeBlock(
      create(RequestFinalizeBlockSchema, {
        height: app.lastBlockHeight() + 1n,
        time: timestampFromMs(blockTime),
        txs: options.txs ?? [],
      }),
    );
    await app.commit();
    time = blockTime;
    clocks.set(home, time);
    return response;
  };
  const deliver: TestNode["deliver"] = async (key, messages) => {
    const ctx = await app.createQueryContext();
    const account = await accountKeeper.getAccount(ctx, key.address);
    if (account === undefined) throw new Error(`no account for ${key.bech32}`);
    const tx = signTx({
      key,
      messages,
      chainId: CHAIN_ID,
      accountNumber: account.accountNumber,
      sequence: account.sequence,
      gasLimit: 2_000_000n,
    });
    return (await nextBlock({ txs: [tx] })).txResults[0];
  };
  const proposal: TestNode["proposal"] = async (id) => {
    const found = await govKeeper.getProposal(await app.createQueryContext(), id);
    if (found === undefined) throw new Error(`no proposal ${id}`);
    return found;
  };
  const submitProposal: TestNode["submitProposal"] = async (messages) => {
    const submit = create(MsgSubmitProposalSchema, {
      messages,
      initialDeposit: [{ denom: "stake", amount: MIN_DEPOSIT.toString() }],
      proposer: PROPOSER.bech32,
      title: "upgrade test",
      summary: "upgrade test",
    });
    const result = await deliver(PROPOSER, [packAny(MsgSubmitProposalSchema, submit)]);
    if (result.code !== 0) throw new Error(`proposal rejected: ${result.log}`);
    const data = fromBinary(TxMsgDataSchema, result.data);
    return fromBinary(MsgSubmitProposalResponseSchema, data.msgResponses[0].value).proposalId;
  };
  const voteYes: TestNode["voteYes"] = async (id) => {
    const vote = create(MsgVoteSchema, { proposalId: id, voter: VALIDATOR.bech32, option: VoteOption.YES });
    const result = await deliver(VALIDATOR, [packAny(MsgVoteSchema, vote)]);
    if (result.code !== 0) throw new Error(`vote rejected: ${result.log}`);
  };
  return {
    app,
    keeper,
    govKeeper,
    accountKeeper,
    moduleManager,
    logs,
    storeLoaderInstalled,
    nextBlock,
    deliver,
    submitProposal,
    voteYes,
    async passProposal(messages) {
      const id = await submitProposal(messages);
      await voteYes(id);
      await nextBlock({ advanceMs: VOTING_PERIOD_MS });
      return proposal(id);
    },
    proposal,
    query: () => app.createQueryContext(),
    close: () => app.close(),
  };
}

async function initChain(
  app: App,
  defaultGov: Record<string, JsonValue>,
  time: number,
  voteExtensionsEnableHeight: bigint,
): Promise<void> {
  const gentx = signTx({
    key: VALIDATOR,
    messages: [createValidatorMsg(VALIDATOR, 10_000_000n)],
    chainId: CHAIN_ID,
    accountNumber: 0n,
    sequence: 0n,
  });
  const tx = txFromTxRaw(gentx);
  const balances = Object.fromEntries(ACCOUNTS.map((key) => [key.bech32, [{ denom: "stake", amount: 100_000_000n }]]));
  const appState = {
    ...genesisFor(balances),
    gov: {
      ...defaultGov,
      params: {
        ...(defaultGov.params as Record<string, JsonValue>),
        voting_period: `${VOTING_PERIOD_MS / 1000}s`,
        max_deposit_period: `${DEPOSIT_PERIOD_MS / 1000}s`,
        expedited_voting_period: "5s",
      },
    },
    genutil: { gen_txs: [toProtoJson(TxSchema, tx, app.typeRegistry)] },
  };
  await app.initChain(
    create(RequestInitChainSchema, {
      chainId: CHAIN_ID,
      time: timestampFromMs(time),
      initialHeight: 1n,
      consensusParams: { abci: { voteExtensionsEnableHeight } },
      appStateBytes: new TextEncoder().encode(JSON.stringify(appState)),
    }),
  );
}

/** A small test module with its own store: genesis writes `genesis` → JSON, migrations as given. */
export function testModule(parameters: {
  name: string;
  version: bigint;
  storeKey?: string;
  defaultGenesis?: JsonValue;
  migrations?: Record<number, MigrationHandler>;
}): AppModule {
  const storeKey = parameters.storeKey ?? parameters.name;
  return {
    name: parameters.name,
    consensusVersion: parameters.version,
    storeKeys: [storeKey],
    defaultGenesis: () => parameters.defaultGenesis ?? { note: `default genesis of ${parameters.name}` },
    validateGenesis: () => {},
    async initGenesis(ctx, genesis) {
      ctx.kvStore(storeKey).set(new TextEncoder().encode("genesis"), new TextEncoder().encode(JSON.stringify(genesis)));
      return undefined;
    },
    exportGenesis: async () => ({}),
    registerServices: () => {},
    registerMigrations(registrar) {
      for (const [from, handler] of Object.entries(parameters.migrations ?? {})) {
        registrar.registerMigration(parameters.name, BigInt(from), handler);
      }
    },
  };
}
