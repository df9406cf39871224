// The App's ABCI lifecycle driven directly: InitChain and invalid genesis, FinalizeBlock/Commit, the
// halt path, the app version, ABCI Query paths and heights, PrepareProposal, and the store loader
// over a real LevelDB store across restarts.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { BinaryReader } from "@bufbuild/protobuf/wire";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { QueryAccountRequestSchema } from "../gen/chain/auth/v1beta1/query_pb.js";
import {
  QueryAllBalancesRequestSchema,
  QueryAllBalancesResponseSchema,
  QueryBalanceRequestSchema,
} from "../gen/chain/bank/v1beta1/query_pb.js";
import { MsgSendSchema } from "../gen/chain/bank/v1beta1/tx_pb.js";
import {
  RequestFinalizeBlockSchema,
  RequestInitChainSchema,
  RequestPrepareProposalSchema,
  RequestProcessProposalSchema,
  RequestQuerySchema,
  ResponseProcessProposal_ProposalStatus,
} from "../gen/tendermint/abci/types_pb.js";
import { openMultiStore, readLastCommittedVersion as readHeight, verifyStoreProof } from "../store/index.ts";
import { createTestApp, genesisFor, packAny, signTx, testKey } from "../testing/app.ts";
import { balanceKey } from "../x/bank/keys.ts";
import { AppStateError, blockRetentionHeight } from "./base-app.ts";
import type { Context } from "./context.ts";
import { HaltError } from "./halt.ts";
import type { AppModule } from "./module.ts";
import { upgradeStoreLoader } from "./store-loader.ts";

const alice = testKey("alice");
const bob = testKey("bob");

function hookModule(
  name: string,
  hooks: Partial<Pick<AppModule, "preBlock" | "beginBlock" | "endBlock">>,
  storeKeys: string[] = [],
): AppModule {
  return {
    name,
    consensusVersion: 1n,
    storeKeys,
    defaultGenesis: () => ({}),
    validateGenesis: () => {},
    initGenesis: async () => undefined,
    exportGenesis: async () => ({}),
    registerServices: () => {},
    ...hooks,
  };
}

function query(path: string, data: Uint8Array = new Uint8Array(), height = 0n, prove = false) {
  return create(RequestQuerySchema, { path, data, height, prove });
}

describe("App lifecycle", () => {
  it("refuses a wrong chain id and invalid genesis, naming the module", async () => {
    const t = await createTestApp({ skipInitChain: true });
    await assert.rejects(t.app.initChain(create(RequestInitChainSchema, { chainId: "other", initialHeight: 1n })), {
      message: "invalid chain-id on InitChain; expected: test-chain, got: other",
    });
    // Above the last height the state store can number (N13: the store's setInitialVersion threw a bug's stack).
    await assert.rejects(
      t.app.initChain(create(RequestInitChainSchema, { chainId: t.chainId, initialHeight: 2n ** 63n - 1n })),
      (err: unknown) =>
        err instanceof AppStateError &&
        err.message ===
          "initial_height 9223372036854775807 is above 9007199254740991 (2^53 − 1), the highest height the state store can number",
    );
    const appState = genesisFor({ [alice.bech32]: [{ denom: "stake", amount: 5n }] });
    const bank = appState.bank as { balances: unknown[] };
    bank.balances.push(bank.balances[0]);
    await assert.rejects(
      t.app.initChain(
        create(RequestInitChainSchema, {
          chainId: t.chainId,
          initialHeight: 1n,
          appStateBytes: new TextEncoder().encode(JSON.stringify(appState)),
        }),
      ),
      {
        name: "GenesisError",
        message: `invalid genesis state for module "bank": duplicate balance for address ${alice.bech32}`,
      },
    );
    await assert.rejects(
      t.app.initChain(
        create(RequestInitChainSchema, { chainId: t.chainId, appStateBytes: new TextEncoder().encode("{") }),
      ),
      /invalid genesis state for module "app_state": not valid JSON/,
    );
    const badSupply = genesisFor({ [alice.bech32]: [{ denom: "stake", amount: 5n }] });
    (badSupply.bank as { supply: unknown[] }).supply = [{ denom: "stake", amount: "6" }];
    await assert.rejects(
      t.app.initChain(
        create(RequestInitChainSchema, {
          chainId: t.chainId,
          appStateBytes: new TextEncoder().encode(JSON.stringify(badSupply)),
        }),
      ),
      { message: 'invalid genesis state for module "bank": genesis supply is incorrect, expected 6stake, got 5stake' },
    );
  });

  it("runs InitChain, blocks and commits; Info reports the last commit; the version map reaches its handler", async () => {
    const t = await createTestApp({ skipInitChain: true });
    let received: Map<string, bigint> | undefined;
    t.app.onInitChainVersionMap(async (_ctx, vm) => {
      received = vm;
    });
    const response = await t.app.initChain(
      create(RequestInitChainSchema, {
        chainId: t.chainId,
        initialHeight: 1n,
        time: timestampFromMs(1_700_000_000_000),
        appStateBytes: new TextEncoder().encode(
          JSON.stringify(genesisFor({ [alice.bech32]: [{ denom: "stake", amount: 100n }] })),
        ),
      }),
    );
    assert.equal(response.appHash.length, 32, "a non-empty app hash for the genesis header");
    assert.deepEqual(
      [...(received ?? [])],
      [
        ["auth", 1n],
        ["bank", 1n],
      ],
    );
    assert.equal((await t.app.info()).lastBlockHeight, 0n);
    const block = await t.nextBlock();
    const info = await t.app.info();
    assert.equal(info.lastBlockHeight, 1n);
    assert.deepEqual(info.lastBlockAppHash, block.appHash);
    await assert.rejects(t.app.commit(), AppStateError);
    await assert.rejects(t.app.finalizeBlock(create(RequestFinalizeBlockSchema, { height: 5n })), {
      message: "invalid height in FinalizeBlock: expected 2, got 5",
    });
  });

  it("a genesis initial_height of 1000 makes block 1000 the store's first version (both engines drive this)", async () => {
    const t = await createTestApp({ skipInitChain: true });
    await t.app.initChain(
      create(RequestInitChainSchema, {
        chainId: t.chainId,
        initialHeight: 1000n,
        appStateBytes: new TextEncoder().encode(
          JSON.stringify(genesisFor({ [alice.bech32]: [{ denom: "stake", amount: 100n }] })),
        ),
      }),
    );
    await assert.rejects(t.app.finalizeBlock(create(RequestFinalizeBlockSchema, { height: 1n })), {
      message: "invalid height in FinalizeBlock: expected 1000, got 1",
    });
    const first = await t.app.finalizeBlock(create(RequestFinalizeBlockSchema, { height: 1000n }));
    await t.app.commit();
    assert.equal(t.app.store.lastCommit().version, 1000n);
    assert.deepEqual(t.app.store.lastCommit().appHash, first.appHash);
    assert.equal(t.app.store.earliestVersion(), 1000n);
    assert.equal((await t.app.info()).lastBlockHeight, 1000n);
    await t.nextBlock();
    assert.equal((await t.app.info()).lastBlockHeight, 1001n);
    const atFirst = await t.app.query(
      query(
        "/chain.bank.v1beta1.Query/Balance",
        toBinary(
          QueryBalanceRequestSchema,
          create(QueryBalanceRequestSchema, { address: alice.bech32, denom: "stake" }),
        ),
        1000n,
      ),
    );
    assert.equal(atFirst.code, 0, atFirst.log);
    assert.equal(atFirst.height, 1000n);
    assert.throws(() => t.app.store.setInitialVersion(5n), /already holds version 1001/);
  });

  it("halts from a PreBlock hook without staging anything, then continues once the hook lets it", async () => {
    let halt = true;
    const writes: bigint[] = [];
    const t = await createTestApp({
      extraModules: () => [
        hookModule(
          "guard",
          {
            async preBlock(ctx: Context) {
              ctx.kvStore("guard").set(new Uint8Array([1]), new Uint8Array([Number(ctx.blockHeight)]));
              if (ctx.blockHeight === 3n && halt)
                throw new HaltError('UPGRADE "v2" NEEDED at height: 3: ', { exitCode: 3, reason: "upgrade" });
              writes.push(ctx.blockHeight);
            },
          },
          ["guard"],
        ),
      ],
    });
    await t.nextBlock();
    await t.nextBlock();
    const hashAt2 = (await t.app.info()).lastBlockAppHash;
    const request = create(RequestFinalizeBlockSchema, { height: 3n, time: timestampFromMs(1_700_000_100_000) });
    await assert.rejects(t.app.finalizeBlock(request), (err: Error) => err instanceof HaltError && err.exitCode === 3);
    await assert.rejects(t.app.commit(), AppStateError, "nothing was staged");
    assert.deepEqual((await t.app.info()).lastBlockAppHash, hashAt2);
    await assert.rejects(t.app.finalizeBlock(request), HaltError, "the same block halts again");
    halt = false;
    const block = await t.app.finalizeBlock(request);
    await t.app.commit();
    assert.equal((await t.app.info()).lastBlockHeight, 3n);
    assert.notDeepEqual(block.appHash, hashAt2);
    assert.deepEqual(writes, [1n, 2n, 3n]);
  });

  it("replays a finalized but uncommitted height from scratch", async () => {
    const t = await createTestApp({ balances: { [alice.bech32]: [{ denom: "stake", amount: 1000n }] } });
    await t.nextBlock();
    const tx = signTx({
      key: alice,
      chainId: t.chainId,
      accountNumber: 0n,
      sequence: 0n,
      messages: [
        packAny(
          MsgSendSchema,
          create(MsgSendSchema, {
            fromAddress: alice.bech32,
            toAddress: bob.bech32,
            amount: [{ denom: "stake", amount: "7" }],
          }),
        ),
      ],
    });
    const request = create(RequestFinalizeBlockSchema, {
      height: 2n,
      txs: [tx],
      time: timestampFromMs(1_700_000_002_000),
    });
    const first = await t.app.finalizeBlock(request);
    const second = await t.app.finalizeBlock(request);
    assert.equal(second.txResults[0].code, 0, "the tx is not seen as a replay of itself");
    assert.deepEqual(second.appHash, first.appHash);
    await t.app.commit();
  });

  it("applies halt-height from configuration after the configured height", async () => {
    const t = await createTestApp();
    (t.app as unknown as { options: { haltHeight: bigint } }).options.haltHeight = 1n;
    await t.nextBlock();
    await assert.rejects(t.nextBlock(), (err: Error) => err instanceof HaltError && err.reason === "halt-height");
  });

  it("reports the protocol version and returns a consensus-param update when a block changes it", async () => {
    let version = 0n;
    const t = await createTestApp({
      extraModules: () => [
        hookModule("bump", {
          async endBlock(ctx: Context) {
            if (ctx.blockHeight === 2n) version = 1n;
            return undefined;
          },
        }),
      ],
    });
    t.app.setAppVersionProvider(async () => version);
    const b1 = await t.nextBlock();
    assert.equal(b1.consensusParamUpdates, undefined);
    const b2 = await t.nextBlock();
    assert.equal(b2.consensusParamUpdates?.version?.app, 1n);
    assert.equal((await t.app.info()).appVersion, 1n);
  });

  it("tags block events with the hook that emitted them", async () => {
    const t = await createTestApp({
      extraModules: () => [
        hookModule("ev", {
          async beginBlock(ctx: Context) {
            ctx.events.emit("hello", { who: "begin" });
          },
        }),
      ],
    });
    const block = await t.nextBlock();
    const event = block.events.find((e) => e.type === "hello");
    assert.deepEqual(
      event?.attributes.map((a) => [a.key, a.value]),
      [
        ["who", "begin"],
        ["mode", "BeginBlock"],
      ],
    );
  });

  it("prepares proposals within max_tx_bytes and accepts proposals explicitly", async () => {
    const t = await createTestApp();
    const txs = [new Uint8Array(100), new Uint8Array(100), new Uint8Array(100)];
    const prepared = await t.app.prepareProposal(create(RequestPrepareProposalSchema, { txs, maxTxBytes: 210n }));
    assert.equal(prepared.txs.length, 2, "each tx costs 1 + 1 + 100 bytes");
    const processed = await t.app.processProposal(create(RequestProcessProposalSchema, { txs }));
    assert.equal(processed.status, ResponseProcessProposal_ProposalStatus.ACCEPT);
  });
});

describe("ABCI Query", () => {
  async function chain() {
    const t = await createTestApp({ balances: { [alice.bech32]: [{ denom: "stake", amount: 1000n }] } });
    await t.nextBlock();
    const tx = signTx({
      key: alice,
      chainId: t.chainId,
      accountNumber: 0n,
      sequence: 0n,
      messages: [
        packAny(
          MsgSendSchema,
          create(MsgSendSchema, {
            fromAddress: alice.bech32,
            toAddress: bob.bech32,
            amount: [{ denom: "stake", amount: "25" }],
          }),
        ),
      ],
    });
    const block2 = await t.nextBlock([tx]);
    assert.equal(block2.txResults[0].code, 0);
    const block3 = await t.nextBlock();
    return { t, appHashAfter2: block2.appHash, block3 };
  }

  it("is not ready before the first block", async () => {
    const t = await createTestApp();
    const r = await t.app.query(query("/chain.bank.v1beta1.Query/Params"));
    assert.equal(r.code, 26);
    assert.equal(r.log, "chaind is not ready; please wait for first block: invalid height");
  });

  it("answers gRPC paths in binary at the requested height, also under the cosmos package name", async () => {
    const { t } = await chain();
    const request = toBinary(
      QueryAllBalancesRequestSchema,
      create(QueryAllBalancesRequestSchema, { address: bob.bech32 }),
    );
    const latest = await t.app.query(query("/chain.bank.v1beta1.Query/AllBalances", request));
    assert.equal(latest.code, 0, latest.log);
    assert.equal(latest.height, 3n);
    assert.equal(fromBinary(QueryAllBalancesResponseSchema, latest.value).balances[0].amount, "25");
    const atOne = await t.app.query(query("/chain.bank.v1beta1.Query/AllBalances", request, 1n));
    assert.equal(atOne.height, 1n);
    assert.deepEqual(fromBinary(QueryAllBalancesResponseSchema, atOne.value).balances, []);
    const alias = await t.app.query(query("/cosmos.bank.v1beta1.Query/AllBalances", request));
    assert.equal(alias.code, 0);
  });

  it("maps handler errors to sdk codes with the gRPC text, and height errors", async () => {
    const { t } = await chain();
    const stranger = testKey("stranger").bech32;
    const missing = await t.app.query(
      query(
        "/chain.auth.v1beta1.Query/Account",
        toBinary(QueryAccountRequestSchema, create(QueryAccountRequestSchema, { address: stranger })),
      ),
    );
    assert.equal(missing.code, 22);
    assert.equal(missing.log, `rpc error: code = NotFound desc = account ${stranger} not found: key not found`);
    assert.equal(missing.height, 3n);
    const badDenom = await t.app.query(
      query(
        "/chain.bank.v1beta1.Query/Balance",
        toBinary(QueryBalanceRequestSchema, create(QueryBalanceRequestSchema, { address: alice.bech32, denom: "x" })),
      ),
    );
    assert.equal(badDenom.code, 18);
    assert.equal(badDenom.log, "rpc error: code = InvalidArgument desc = invalid denom: x: invalid request");
    const future = await t.app.query(query("/chain.bank.v1beta1.Query/Params", new Uint8Array(), 9n));
    assert.equal(future.code, 26);
    assert.equal(
      future.log,
      "cannot query with height in the future; please provide a valid height (latest height: 3): invalid height",
    );
    const unknown = await t.app.query(query("/nothing/here"));
    assert.equal(unknown.code, 6);
    assert.equal(unknown.log, "unknown query path: unknown request");
    const broadcast = await t.app.query(query("/chain.tx.v1beta1.Service/BroadcastTx"));
    assert.equal(broadcast.code, 18);
  });

  it("answers /store/<name>/key with a proof that verifies against the next header's app hash", async () => {
    const { t, appHashAfter2 } = await chain();
    const key = balanceKey(bob.address, "stake");
    const r = await t.app.query(query("/store/bank/key", key, 2n, true));
    assert.equal(r.code, 0, r.log);
    assert.equal(new TextDecoder().decode(r.value), "25");
    assert.equal(r.proofOps?.ops.length, 2);
    const ops = r.proofOps!.ops.map((op) => ({ type: op.type, key: op.key, data: op.data }));
    assert.ok(verifyStoreProof({ storeName: "bank", key, value: r.value, version: 2n, ops }, appHashAfter2));
    const early = await t.app.query(query("/store/bank/key", key, 1n, true));
    assert.equal(early.code, 18);
    assert.equal(early.log, "cannot query with proof when height <= 1; please provide a valid height: invalid request");
    const noStore = await t.app.query(query("/store/nope/key", key));
    assert.equal(noStore.code, 6);
    assert.equal(noStore.log, "no such store: nope: unknown request");
  });

  it("answers /store/<name>/subspace with kv pairs, and /app/version and /app/simulate", async () => {
    const { t } = await chain();
    const r = await t.app.query(query("/store/bank/subspace", new Uint8Array([0x00])));
    assert.equal(r.code, 0, r.log);
    const pairs = decodePairs(r.value);
    assert.deepEqual(
      pairs.map(([k, v]) => [new TextDecoder().decode(k.slice(1)), new TextDecoder().decode(v)]),
      [["stake", "1000"]],
    );
    const version = await t.app.query(query("/app/version"));
    assert.equal(new TextDecoder().decode(version.value), "0.0.0");
    const tx = signTx({
      key: alice,
      chainId: t.chainId,
      accountNumber: 0n,
      sequence: 1n,
      messages: [
        packAny(
          MsgSendSchema,
          create(MsgSendSchema, {
            fromAddress: alice.bech32,
            toAddress: bob.bech32,
            amount: [{ denom: "stake", amount: "1" }],
          }),
        ),
      ],
    });
    const simulated = await t.app.query(query("app/simulate", tx));
    assert.equal(simulated.code, 0, simulated.log);
    const json = JSON.parse(new TextDecoder().decode(simulated.value));
    assert.equal(
      json.gas_info.gas_wanted,
      "18446744073709551615",
      "MaxUint64: the infinite gas meter's limit, as upstream",
    );
    assert.ok(Number(json.gas_info.gas_used) > 0);
    assert.equal(json.result.msg_responses[0]["@type"], "/chain.bank.v1beta1.MsgSendResponse");
  });

  // Upstream's handleQueryApp / handleQueryStore and the store's Query, as their answers read (codespace, height,
  // log texts).
  it("answers /app/* and /store/* with upstream's codespace, height and error texts", async () => {
    const { t } = await chain();
    const latest = t.app.lastBlockHeight();
    const version = await t.app.query(query("/app/version"));
    assert.deepEqual([version.code, version.codespace, version.height], [0, "sdk", latest]);
    const versionAt = await t.app.query(query("/app/version", new Uint8Array(), 1n));
    assert.equal(versionAt.height, 1n, "the request's height, as upstream answers it");
    const garbage = await t.app.query(query("/app/simulate", new Uint8Array([1, 2, 3])));
    assert.equal(garbage.code, 2);
    assert.equal(garbage.codespace, "sdk");
    assert.match(garbage.log, /^failed to simulate tx: .*tx parse error$/);
    const unknownApp = await t.app.query(query("/app/nope"));
    assert.deepEqual([unknownApp.code, unknownApp.log], [6, "unknown query: [app nope]: unknown request"]);
    const noPath = await t.app.query(query(""));
    assert.deepEqual([noPath.code, noPath.log], [6, "no query path provided: unknown request"]);
    const bareApp = await t.app.query(query("/app"));
    assert.equal(
      bareApp.log,
      "expected second parameter to be either 'simulate' or 'version', neither was present: unknown request",
    );
    const empty = await t.app.query(query("/store/bank/key"));
    assert.deepEqual([empty.code, empty.log], [2, "query cannot be zero length: tx parse error"]);
    const other = await t.app.query(query("/store/bank/other", new Uint8Array([1])));
    assert.deepEqual([other.code, other.log], [6, "unexpected query path: /other: unknown request"]);
    const noStore = await t.app.query(query("/store/nope/other", new Uint8Array([1])));
    assert.equal(noStore.log, "no such store: nope: unknown request", "the store name is checked first");
  });
});

describe("store loader", () => {
  it("applies store upgrades only when opening at the upgrade height minus one", async () => {
    const dir = await mkdtemp(join(tmpdir(), "chaind-app-"));
    try {
      const openStore = (o: { storeNames: string[]; upgrades?: import("../store/types.ts").StoreUpgrades }) =>
        openMultiStore({ path: dir, storeNames: o.storeNames, upgrades: o.upgrades });
      const v1 = await createTestApp({ openStore, balances: { [alice.bech32]: [{ denom: "stake", amount: 5n }] } });
      await v1.nextBlock();
      await v1.nextBlock();
      await v1.app.close();

      const extra = () => [
        hookModule(
          "extra",
          {
            async beginBlock(ctx: Context) {
              ctx
                .kvStore("extra")
                .set(new TextEncoder().encode("h"), new TextEncoder().encode(String(ctx.blockHeight)));
            },
          },
          ["extra"],
        ),
      ];
      // Without the loader the new store is refused.
      await assert.rejects(
        createTestApp({ openStore, skipInitChain: true, extraModules: extra }),
        /add them with StoreUpgrades.added/,
      );

      const readCommittedHeight = () => readHeight(dir);
      const v2 = await createTestApp({ openStore, readCommittedHeight, extraModules: extra, deferLoad: true });
      v2.app.setStoreLoader(upgradeStoreLoader(3n, { added: ["extra"], renamed: [], deleted: [] }));
      await v2.app.load();
      assert.deepEqual(v2.app.storeUpgrades?.added, ["extra"]);
      await v2.app.finalizeBlock(
        create(RequestFinalizeBlockSchema, { height: 3n, time: timestampFromMs(1_700_000_003_000) }),
      );
      await v2.app.commit();
      await v2.app.close();

      const again = await createTestApp({ openStore, readCommittedHeight, extraModules: extra, deferLoad: true });
      again.app.setStoreLoader(upgradeStoreLoader(3n, { added: ["extra"], renamed: [], deleted: [] }));
      await again.app.load();
      assert.equal(again.app.storeUpgrades, undefined, "never applied twice");
      assert.equal(again.app.lastBlockHeight(), 3n);
      const r = await again.app.query(query("/store/extra/key", new TextEncoder().encode("h")));
      assert.equal(new TextDecoder().decode(r.value), "3");
      await again.app.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

function decodePairs(bytes: Uint8Array): [Uint8Array, Uint8Array][] {
  const out: [Uint8Array, Uint8Array][] = [];
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    reader.tag();
    const pair = new BinaryReader(reader.bytes());
    pair.tag();
    const key = pair.bytes();
    pair.tag();
    out.push([key, pair.bytes()]);
  }
  return out;
}

describe("genesis txs", () => {
  it("delivers a gentx at height 0: no gas limit, signed with account number 0", async () => {
    const holder: { app?: import("./base-app.ts").App; tx?: Uint8Array; code?: number } = {};
    const genutil: AppModule = {
      ...hookModule("genutil", {}),
      async initGenesis(ctx: Context) {
        const result = await holder.app!.deliverGenesisTx(ctx, holder.tx!);
        holder.code = result.code;
        return undefined;
      },
    };
    const carol = testKey("carol");
    const t = await createTestApp({
      skipInitChain: true,
      extraModules: () => [genutil],
    });
    holder.app = t.app;
    // Carol is the second genesis account (number 1) but signs with account number 0, as gentxs do.
    holder.tx = signTx({
      key: carol,
      chainId: t.chainId,
      accountNumber: 0n,
      sequence: 0n,
      gasLimit: 1n,
      messages: [
        packAny(
          MsgSendSchema,
          create(MsgSendSchema, {
            fromAddress: carol.bech32,
            toAddress: bob.bech32,
            amount: [{ denom: "stake", amount: "3" }],
          }),
        ),
      ],
    });
    const appState = genesisFor({
      [alice.bech32]: [{ denom: "stake", amount: 1n }],
      [carol.bech32]: [{ denom: "stake", amount: 10n }],
    });
    await t.app.initChain(
      create(RequestInitChainSchema, {
        chainId: t.chainId,
        initialHeight: 1n,
        appStateBytes: new TextEncoder().encode(JSON.stringify(appState)),
      }),
    );
    assert.equal(holder.code, 0);
    await t.nextBlock();
    const ctx = await t.app.createQueryContext();
    assert.equal((await t.bankKeeper.getBalance(ctx, bob.address, "stake")).amount, 3n);
    assert.equal((await t.accountKeeper.getAccount(ctx, carol.address))?.sequence, 1n);
  });
});

// Upstream's GetBlockRetentionHeight: min-retain-blocks only lowers what evidence and state sync still need.
describe("the retain height Commit returns", () => {
  it("is 0 without min-retain-blocks, else the lowest non-zero bound, never below 0", () => {
    const evidence = { evidenceMaxAgeNumBlocks: 100_000n };
    assert.equal(blockRetentionHeight(500_000n, 0n, evidence), 0n, "min-retain-blocks 0 keeps every block");
    assert.equal(blockRetentionHeight(50n, 3n, evidence), 0n, "the evidence window reaches below block 1");
    assert.equal(blockRetentionHeight(200_000n, 3n, evidence), 100_000n, "evidence needs the last 100000");
    assert.equal(blockRetentionHeight(200_000n, 150_000n, evidence), 50_000n, "min-retain-blocks keeps more");
    assert.equal(blockRetentionHeight(50n, 3n), 47n, "no other bound: height - min-retain-blocks");
    const snapshots = { snapshotInterval: 10n, snapshotKeepRecent: 2n };
    assert.equal(blockRetentionHeight(50n, 3n, snapshots), 30n, "blocks since the oldest kept snapshot stay");
    assert.equal(blockRetentionHeight(2n, 3n), 0n);
  });
});
