// A small real chain for the server tests: the App with auth, bank, staking and upgrade over an
// in-memory multistore, driven block by block, plus NodeHooks that keep the blocks, the tx index
// and a mempool the way the embedded engine does (only what the tx/tendermint services read).
// Scripted block actions run inside EndBlock of a tiny test module, so state changes at known
// heights go through the real block pipeline.
import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, type JsonValue, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { Context } from "../app/context.ts";
import { GrpcCode, GrpcStatusError } from "../app/errors.ts";
import type { AppModule } from "../app/module.ts";
import { MsgSendSchema } from "../gen/chain/bank/v1beta1/tx_pb.js";
import type { TxResponseSchema } from "../gen/chain/base/abci/v1beta1/abci_pb.js";
import { RequestCheckTxSchema } from "../gen/tendermint/abci/types_pb.js";
import { abciQueryHook } from "../server/abci-query-hook.ts";
import { appNodeHooks, appQueryBackend } from "../server/app-backend.ts";
import type { BlockWithId, NodeHooks, QueryBackend, ValidatorInfo } from "../server/query-backend.ts";
import { txFromRaw } from "../server/tx-service.ts";
import { openMultiStore } from "../store/index.ts";
import type { PruningOptions } from "../store/types.ts";
import { StakingKeeper } from "../x/staking/keeper.ts";
import { stakingModule } from "../x/staking/module.ts";
import { UpgradeKeeper } from "../x/upgrade/keeper.ts";
import { createUpgradeModule } from "../x/upgrade/module.ts";
import { newPlan } from "../x/upgrade/plan.ts";
import { createTestApp, packAny, signTx, type TestApp, type TestKey, testKey } from "./app.ts";

/** A scripted action run in EndBlock of the given height. */
export type BlockAction = (ctx: Context, keepers: { upgrade: UpgradeKeeper }) => Promise<void>;

/** The fixture. */
export interface ChainFixture {
  testApp: TestApp;
  backend: QueryBackend;
  hooks: NodeHooks;
  upgrade: UpgradeKeeper;
  alice: TestKey;
  bob: TestKey;
  /** Runs one block with the mempool's txs (and `txs`), scripted actions included; returns its height. */
  nextBlock(txs?: Uint8Array[]): Promise<bigint>;
  /**
   * A signed MsgSend from alice. Her sequence is tracked by the fixture; `dryRun` signs with the next
   * sequence without consuming it (for simulations that never land in a block).
   */
  send(to: TestKey, amount: string, options?: { dryRun?: boolean }): Uint8Array;
  /** Sets an action for EndBlock of `height`. */
  at(height: bigint, action: BlockAction): void;
  close(): Promise<void>;
}

/** Options of {@link openChainFixture}. */
export interface ChainFixtureOptions {
  pruning?: PruningOptions;
}

const VALIDATOR_ADDRESS = new Uint8Array(20).fill(7);
const VALIDATOR_KEY = new Uint8Array(32).fill(9);

/**
 * Opens the chain at height 0 (genesis done, no block yet). Alice has 1000000stake, Bob 500stake.
 *
 * @example const chain = await openChainFixture(); await chain.nextBlock(); ... await chain.close();
 */
export async function openChainFixture(options: ChainFixtureOptions = {}): Promise<ChainFixture> {
  const home = await mkdtemp(join(tmpdir(), "chaind-server-"));
  const alice = testKey("alice");
  const bob = testKey("bob");
  const upgrade = new UpgradeKeeper({ home });
  upgrade.setUpgradeHandler("v1", async (_ctx, _plan, fromVM) => fromVM);
  const actions = new Map<bigint, BlockAction>();
  const scripted: AppModule = {
    name: "scripted",
    consensusVersion: 1n,
    storeKeys: [],
    defaultGenesis: (): JsonValue => ({}),
    validateGenesis: () => undefined,
    initGenesis: async () => undefined,
    exportGenesis: async (): Promise<JsonValue> => ({}),
    registerServices: () => undefined,
    endBlock: async (ctx) => {
      // The version map a real app stores at genesis, so that module_versions has something to list.
      if (ctx.blockHeight === 1n) await upgrade.setModuleVersionMap(ctx, testApp.moduleManager.getVersionMap());
      await actions.get(ctx.blockHeight)?.(ctx, { upgrade });
      return undefined;
    },
  };
  const testApp = await createTestApp({
    balances: {
      [alice.bech32]: [{ denom: "stake", amount: 1_000_000n }],
      [bob.bech32]: [{ denom: "stake", amount: 500n }],
    },
    extraModules: ({ accountKeeper, bankKeeper }) => [
      stakingModule(new StakingKeeper({ accountKeeper, bankKeeper })),
      createUpgradeModule({ keeper: upgrade }),
      scripted,
    ],
    openStore: (o) =>
      openMultiStore({ backend: "memory", storeNames: o.storeNames, upgrades: o.upgrades, pruning: options.pruning }),
  });
  const app = testApp.app;

  const blocks = new Map<bigint, BlockWithId & { time: Date; appHash: Uint8Array }>();
  const txIndex = new Map<string, { raw: Uint8Array; response: MessageInitShape<typeof TxResponseSchema> }>();
  const mempool: Uint8Array[] = [];
  let aliceSequence = 0n;
  const validators: ValidatorInfo[] = [
    {
      address: VALIDATOR_ADDRESS,
      pubKey: { type: "ed25519", key: VALIDATOR_KEY },
      votingPower: 10n,
      proposerPriority: 0n,
    },
  ];

  const hooks: NodeHooks = {
    ...appNodeHooks(app),
    broadcastTx: async (txBytes, mode) => {
      const txhash = hashOf(txBytes);
      const check = await app.checkTx(create(RequestCheckTxSchema, { tx: txBytes }));
      if (check.code === 0) mempool.push(txBytes);
      if (mode === "async") return { txhash };
      return {
        txhash,
        code: check.code,
        codespace: check.codespace,
        rawLog: check.log,
        gasWanted: check.gasWanted,
        gasUsed: check.gasUsed,
      };
    },
    getTx: async (hash) => {
      const found = txIndex.get(hash);
      if (found === undefined) return undefined;
      return { tx: txFromRaw(found.raw), txResponse: found.response };
    },
    searchTxs: async (request) => {
      const match = /^tx\.height\s*=\s*([0-9]+)$/.exec(request.query.trim());
      if (match === null) {
        throw new GrpcStatusError(
          GrpcCode.InvalidArgument,
          `this test node only understands tx.height=N, got ${request.query}`,
        );
      }
      const height = BigInt(match[1]);
      const found = [...txIndex.values()].filter((entry) => entry.response.height === height);
      // Pages as the engine's tx index does: page from 1, `limit` per page (the service caps it).
      const start = Number((request.page - 1n) * request.limit);
      const page = found.slice(start, start + Number(request.limit));
      return { txs: page.map((entry) => txFromRaw(entry.raw)), txResponses: [], total: BigInt(found.length) };
    },
    latestBlockHeight: () => app.lastBlockHeight(),
    block: async (height) => blocks.get(height),
    validatorSet: async (height) => (height >= 1n && height <= app.lastBlockHeight() ? validators : undefined),
    nodeInfo: async () => ({
      defaultNodeInfo: { network: testApp.chainId, moniker: "fixture", version: "0.38.25-chaind" },
      applicationVersion: { name: "chaind", appName: "chaind", version: "test" },
    }),
    syncing: async () => false,
    abciQuery: abciQueryHook({ query: (request) => app.query(request) }),
    blockStatus: async (height) => {
      const found = blocks.get(height);
      return found === undefined
        ? undefined
        : { time: found.time, appHash: found.appHash, validatorsHash: new Uint8Array(32).fill(1) };
    },
  };

  let timeMs = 1_700_000_000_000;
  return {
    testApp,
    backend: appQueryBackend(app),
    hooks,
    upgrade,
    alice,
    bob,
    at: (height, action) => actions.set(height, action),
    send: (to, amount, sendOptions) =>
      signTx({
        key: alice,
        chainId: testApp.chainId,
        accountNumber: 0n,
        sequence: sendOptions?.dryRun ? aliceSequence : aliceSequence++,
        messages: [
          packAny(
            MsgSendSchema,
            create(MsgSendSchema, {
              fromAddress: alice.bech32,
              toAddress: to.bech32,
              amount: [{ denom: "stake", amount }],
            }),
          ),
        ],
      }),
    async nextBlock(txs = []) {
      const all = [...mempool.splice(0), ...txs];
      timeMs += 1000;
      const response = await testApp.nextBlock(all, timeMs);
      const height = app.lastBlockHeight();
      const time = new Date(timeMs);
      all.forEach((raw, index) => {
        const result = response.txResults[index];
        txIndex.set(hashOf(raw), {
          raw,
          response: {
            height,
            txhash: hashOf(raw),
            code: result.code,
            codespace: result.codespace,
            rawLog: result.log,
            gasWanted: result.gasWanted,
            gasUsed: result.gasUsed,
            timestamp: time.toISOString().replace(".000Z", "Z"),
          },
        });
      });
      blocks.set(height, {
        blockId: {
          hash: new Uint8Array(32).fill(Number(height % 256n)),
          partSetHeader: { total: 1, hash: new Uint8Array(32) },
        },
        block: {
          header: {
            version: { block: 11n },
            chainId: testApp.chainId,
            height,
            time: timestampFromMs(timeMs),
            proposerAddress: VALIDATOR_ADDRESS,
            appHash: response.appHash,
          },
          data: { txs: all },
          evidence: { evidence: [] },
          lastCommit: { height: height - 1n },
        },
        time,
        appHash: response.appHash,
      });
      return height;
    },
    async close() {
      await app.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}

/** A first-run plan for tests: schedules `name` at `height` through the keeper. */
export function schedule(name: string, height: bigint): BlockAction {
  return (ctx, { upgrade }) => upgrade.scheduleUpgrade(ctx, newPlan({ name, height }));
}

function hashOf(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex").toUpperCase();
}
