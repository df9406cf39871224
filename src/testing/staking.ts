// Testing kit: the framework's test app plus staking, gov and genutil, with validators created from real gentxs at
// InitChain, and helpers to sign and deliver txs block by block (staking's and gov's tests, a chain's tests of its
// own staking-aware module). test-node.ts builds its gentx with createValidatorMsg.

import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  create,
  type DescMessage,
  type DescMethod,
  type JsonValue,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";
import type { Any } from "@bufbuild/protobuf/wkt";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { type Logger, pino } from "pino";
import type { Coin } from "../app/coins.ts";
import { toProtoJson } from "../app/proto-json.ts";
import { methodPath } from "../app/router.ts";
import { fromWireBinary, toWireBinary } from "../app/wire-decimals.ts";
import { txFromTxRaw } from "../client/tx/tx-raw.ts";
import { addressToBech32, ed25519KeyPairFromSeed } from "../crypto/index.ts";
import { MsgCreateValidatorSchema } from "../gen/chain/staking/v1beta1/tx_pb.js";
import { TxSchema } from "../gen/chain/tx/v1beta1/tx_pb.js";
import {
  type ExecTxResult,
  RequestFinalizeBlockSchema,
  RequestInitChainSchema,
  type ResponseFinalizeBlock,
} from "../gen/tendermint/abci/types_pb.js";
import { buildChainApp } from "../runtime/build-app.ts";
import { defineChain } from "../runtime/release.ts";
import type { GovKeeper } from "../x/gov/keeper.ts";
import type { StakingKeeper } from "../x/staking/keeper.ts";
import { ed25519PubKeyAny } from "../x/staking/validator.ts";
import { genesisFor, packAny, signTx, type TestApp, type TestKey, testKey } from "./app.ts";

/** A validator to create at genesis with a gentx. */
export interface GenesisValidator {
  key: TestKey;
  /** Self-delegation in stake. */
  selfDelegation: bigint;
  moniker?: string;
}

/** Options of createStakingTestChain. */
export interface StakingTestChainOptions {
  /** Genesis balances in stake, by key. */
  accounts: { key: TestKey; stake: bigint }[];
  validators: GenesisValidator[];
  /** gov params overrides (proto JSON field names), e.g. `{ voting_period: "20s" }`. */
  govParams?: Record<string, JsonValue>;
  /** Extra app_state entries. */
  appState?: Record<string, JsonValue>;
  /** A complete app_state to start from instead (e.g. an exported one); accounts and validators are then only used for signing. */
  fullAppState?: Record<string, JsonValue>;
  /** The app's logger (default: silent). */
  logger?: Logger;
}

/** The chain: the test app, the keepers, the genesis validator updates and tx helpers. */
export interface StakingTestChain extends TestApp {
  stakingKeeper: StakingKeeper;
  govKeeper: GovKeeper;
  /** The validator set InitChain returned. */
  genesisValidators: { pubKey: Uint8Array; power: bigint }[];
  /** Signs `messages` with `key` (its account number and sequence tracked here). */
  sign(key: TestKey, messages: Any[], options?: { gasLimit?: bigint; fee?: Coin[] }): Promise<Uint8Array>;
  /** Delivers one tx in a new block; returns its result and the block response. */
  deliver(
    key: TestKey,
    messages: Any[],
    options?: { gasLimit?: bigint; timeMs?: number },
  ): Promise<{ result: ExecTxResult; block: ResponseFinalizeBlock }>;
  /** Current block time in ms (the last block's). */
  timeMs(): number;
  /** Runs a query method (e.g. `Query.method.validators`) at the latest height, through the app's query router. */
  query<I extends DescMessage, O extends DescMessage>(
    method: DescMethod & { input: I; output: O },
    request: MessageInitShape<I>,
  ): Promise<MessageShape<O>>;
}

/** The ed25519 consensus key of a test validator (derived from its account key). */
export function consensusKeyOf(key: TestKey): Uint8Array {
  return ed25519KeyPairFromSeed(new Uint8Array(createHash("sha256").update(key.privateKey).digest())).publicKey;
}

/** A MsgCreateValidator for `key` self-delegating `amount` stake. */
export function createValidatorMsg(key: TestKey, amount: bigint, moniker = "validator"): Any {
  return packAny(
    MsgCreateValidatorSchema,
    create(MsgCreateValidatorSchema, {
      description: { moniker },
      commission: {
        rate: "0.100000000000000000",
        maxRate: "0.200000000000000000",
        maxChangeRate: "0.010000000000000000",
      },
      minSelfDelegation: "1",
      validatorAddress: addressToBech32(key.address, "val"),
      pubkey: ed25519PubKeyAny(consensusKeyOf(key)),
      value: { denom: "stake", amount: amount.toString() },
    }),
  );
}

/** The one-release chain the staking test chain runs (the standard modules only). */
const STAKING_TEST_CHAIN = defineChain({ name: "staking-test", releases: [{ name: "v1", version: "v1" }] });

/** A chain with the standard modules (auth, bank, staking, gov, genutil, upgrade) whose validators come from gentxs. */
export async function createStakingTestChain(options: StakingTestChainOptions): Promise<StakingTestChain> {
  const balances: Record<string, Coin[]> = {};
  for (const { key, stake } of options.accounts) balances[key.bech32] = [{ denom: "stake", amount: stake }];

  // The node's own builder over a memory store: the standard modules (auth, bank, staking, gov, genutil and upgrade)
  // wired and ordered as every chain built on the framework has them. The home is never written: no upgrade halts.
  const built = await buildChainApp({
    chain: STAKING_TEST_CHAIN,
    home: join(tmpdir(), "chaind-staking-test-chain"),
    chainId: "test-chain",
    logger: options.logger ?? pino({ level: "silent" }),
    backend: "memory",
  });
  const { stakingKeeper, govKeeper } = built;
  let time = 1_700_000_000_000;
  const chain: TestApp = {
    app: built.app,
    accountKeeper: built.accountKeeper,
    bankKeeper: built.bankKeeper,
    moduleManager: built.moduleManager,
    chainId: "test-chain",
    async nextBlock(txs = [], timeMs) {
      const height = built.app.lastBlockHeight() + 1n;
      time = timeMs ?? time + 1000;
      const response = await built.app.finalizeBlock(
        create(RequestFinalizeBlockSchema, { height, time: timestampFromMs(time), txs }),
      );
      await built.app.commit();
      return response;
    },
  };

  const accountNumbers = new Map<string, bigint>();
  for (const [index, { key }] of options.accounts.entries()) accountNumbers.set(key.bech32, BigInt(index));
  const sequences = new Map<string, bigint>();

  const genTxs: JsonValue[] = [];
  for (const validator of options.validators) {
    const bytes = signTx({
      key: validator.key,
      messages: [createValidatorMsg(validator.key, validator.selfDelegation, validator.moniker)],
      chainId: chain.chainId,
      accountNumber: 0n,
      sequence: 0n,
    });
    sequences.set(validator.key.bech32, 1n);
    const tx = txFromTxRaw(bytes);
    genTxs.push(toProtoJson(TxSchema, tx, chain.app.typeRegistry));
  }

  const defaultGov = built.moduleManager.defaultGenesis().gov as Record<string, JsonValue>;
  const appState: Record<string, JsonValue> = options.fullAppState ?? {
    ...genesisFor(balances),
    gov: {
      ...defaultGov,
      params: { ...(defaultGov.params as Record<string, JsonValue>), ...(options.govParams ?? {}) },
    },
    genutil: { gen_txs: genTxs },
    ...(options.appState ?? {}),
  };
  const init = await chain.app.initChain(
    create(RequestInitChainSchema, {
      chainId: chain.chainId,
      time: timestampFromMs(time),
      initialHeight: 1n,
      appStateBytes: new TextEncoder().encode(JSON.stringify(appState)),
    }),
  );
  const genesisValidators = init.validators.map((update) => ({
    pubKey: update.pubKey?.sum.value as Uint8Array,
    power: update.power,
  }));

  const sign = async (key: TestKey, messages: Any[], signOptions?: { gasLimit?: bigint; fee?: Coin[] }) => {
    const sequence = sequences.get(key.bech32) ?? 0n;
    sequences.set(key.bech32, sequence + 1n);
    const accountNumber = accountNumbers.get(key.bech32);
    if (accountNumber === undefined) throw new Error(`test key ${key.bech32} has no genesis account`);
    return signTx({
      key,
      messages,
      chainId: chain.chainId,
      accountNumber,
      sequence,
      gasLimit: signOptions?.gasLimit ?? 2_000_000n,
      fee: signOptions?.fee,
    });
  };

  return {
    ...chain,
    stakingKeeper,
    govKeeper,
    genesisValidators,
    sign,
    async nextBlock(txs = [], timeMs) {
      time = timeMs ?? time + 1000;
      return chain.nextBlock(txs, time);
    },
    async deliver(key, messages, deliverOptions) {
      const tx = await sign(key, messages, { gasLimit: deliverOptions?.gasLimit });
      time = deliverOptions?.timeMs ?? time + 1000;
      const block = await chain.nextBlock([tx], time);
      return { result: block.txResults[0], block };
    },
    timeMs: () => time,
    async query(method, request) {
      const ctx = await chain.app.createQueryContext();
      const bytes = await chain.app.queryRouter.queryBinary(
        methodPath(method),
        toWireBinary(method.input, create(method.input, request)),
        ctx,
      );
      return fromWireBinary(method.output, bytes);
    },
  };
}

/** A deterministic test key. */
export function key(seed: string): TestKey {
  return testKey(seed);
}
