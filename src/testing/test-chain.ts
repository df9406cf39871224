// Test support for the client commands: a node home with a funded test keyring and one genesis validator
// (made from a real gentx signed with the node's own consensus key), short gov periods, and a way to run
// the node in the test process (the embedded engine, its consensus RPC and the gRPC server, all on ports
// picked at run time). Used by the client commands' tests and the CLI end-to-end tests; not by the node.

import { create, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { pino } from "pino";
import { toProtoJson } from "../app/proto-json.ts";
import { openKeyring } from "../client/keyring/index.ts";
import { packAny, signTx } from "../client/tx/index.ts";
import { txFromTxRaw } from "../client/tx/tx-raw.ts";
import { initHome, loadAppConfig } from "../config/index.ts";
import { addressToBech32 } from "../crypto/index.ts";
import { type EmbeddedNode, startEmbeddedNode } from "../engine/embedded-node.ts";
import { MsgCreateValidatorSchema } from "../gen/chain/staking/v1beta1/tx_pb.js";
import { TxSchema } from "../gen/chain/tx/v1beta1/tx_pb.js";
import { buildChainApp, type ChainApp } from "../runtime/build-app.ts";
import { currentChain } from "../runtime/current-chain.ts";
import { appNodeHooks, appQueryBackend } from "../server/app-backend.ts";
import { type RunningServers, startServers } from "../server/servers.ts";
import { ed25519PubKeyAny } from "../x/staking/validator.ts";
import { genesisFor } from "./app.ts";

/** Mnemonics of the test keys (fixed so failures are reproducible). */
export const TEST_MNEMONICS = {
  validator:
    "economy stock theory fatal elder harbor betray wasp final emotion task crumble siren bottom lizard educate guess current outdoor pair theory focus wife stone",
  alice:
    "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon art",
  bob: "legal winner thank year wave sausage worth useful legal winner thank year wave sausage worth useful legal winner thank year wave sausage worth title",
} as const;

/** The name of a test key. */
export type TestKeyName = keyof typeof TEST_MNEMONICS;

/** Genesis balance of every test account, in stake. */
export const TEST_ACCOUNT_STAKE = 1_000_000_000_000n;
/** What the validator bonds at genesis, in stake. */
export const TEST_VALIDATOR_BOND = 100_000_000n;

/** A prepared home. */
export interface TestChainHome {
  home: string;
  chainId: string;
  /** Bech32 account addresses of the test keys (in the home's `test` keyring). */
  addresses: Record<TestKeyName, string>;
  /** The validator's operator address (chainvaloper…). */
  validatorOperator: string;
}

/** Options of {@link prepareTestChainHome}. */
export interface PrepareTestChainHomeOptions {
  home: string;
  chainId?: string;
  /** gov voting_period and max_deposit_period (Go durations); default 3s. */
  govPeriod?: string;
  /** consensus.timeout_commit; default 150ms. */
  timeoutCommit?: string;
  /** app.toml minimum-gas-prices; default 0stake. */
  minimumGasPrices?: string;
  /** Serve gRPC (on a port picked at start); default true. */
  grpc?: boolean;
}

/**
 * Writes a home: config (RPC on 127.0.0.1 port 0, REST off), the test keys in the `test` keyring, and a
 * genesis funding every key with a validator bonded from a gentx of the node's consensus key.
 */
export async function prepareTestChainHome(options: PrepareTestChainHomeOptions): Promise<TestChainHome> {
  const chainId = options.chainId ?? "chaind-test";
  const keyring = openKeyring({ home: options.home, backend: "test" });
  const addresses = {} as Record<TestKeyName, string>;
  const keys = {} as Record<TestKeyName, Awaited<ReturnType<typeof keyring.recover>>>;
  for (const name of Object.keys(TEST_MNEMONICS) as TestKeyName[]) {
    keys[name] = await keyring.recover(name, TEST_MNEMONICS[name]);
    addresses[name] = addressToBech32(keys[name].address);
  }

  const init = await initHome({
    home: options.home,
    moniker: "test-node",
    chainId,
    configToml: {
      "rpc.laddr": "tcp://127.0.0.1:0",
      "consensus.timeout_commit": options.timeoutCommit ?? "150ms",
    },
    appToml: {
      "minimum-gas-prices": options.minimumGasPrices ?? "0stake",
      "api.enable": false,
      "grpc.enable": options.grpc ?? true,
      "grpc.address": "127.0.0.1:0",
    },
  });

  const offline = await offlineApp(options.home, chainId);
  const defaults = offline.moduleManager.defaultGenesis() as JsonObject;
  const balances = Object.fromEntries(
    Object.values(addresses).map((address) => [address, [{ denom: "stake", amount: TEST_ACCOUNT_STAKE }]]),
  );
  const funded = genesisFor(balances);
  const validatorOperator = addressToBech32(keys.validator.address, "val");
  const createValidator = create(MsgCreateValidatorSchema, {
    description: { moniker: "test-validator" },
    commission: {
      rate: "0.100000000000000000",
      maxRate: "0.200000000000000000",
      maxChangeRate: "0.010000000000000000",
    },
    minSelfDelegation: "1",
    validatorAddress: validatorOperator,
    pubkey: ed25519PubKeyAny(init.validatorKey.publicKey),
    value: { denom: "stake", amount: TEST_VALIDATOR_BOND.toString() },
  });
  const gentx = await signTx({
    messages: [packAny(MsgCreateValidatorSchema, createValidator)],
    fee: { amount: [], gasLimit: 400_000n },
    chainId,
    accountNumber: 0n,
    sequence: 0n,
    signer: await keyring.signer("validator"),
  });
  const gentxJson = toProtoJson(TxSchema, txFromTxRaw(gentx.txBytes), offline.app.typeRegistry);
  const period = options.govPeriod ?? "3s";
  const gov = defaults.gov as JsonObject;
  const appState: JsonObject = {
    ...defaults,
    auth: { ...(defaults.auth as JsonObject), accounts: (funded.auth as JsonObject).accounts as JsonValue },
    bank: { ...(defaults.bank as JsonObject), balances: (funded.bank as JsonObject).balances as JsonValue },
    gov: {
      ...gov,
      params: {
        ...(gov.params as JsonObject),
        voting_period: period,
        max_deposit_period: period,
        expedited_voting_period: "1s",
      },
    },
    genutil: { gen_txs: [gentxJson] },
  };
  await initHome({
    home: options.home,
    moniker: "test-node",
    chainId,
    appState,
    overwrite: true,
    configToml: { "rpc.laddr": "tcp://127.0.0.1:0", "consensus.timeout_commit": options.timeoutCommit ?? "150ms" },
  });
  return { home: options.home, chainId, addresses, validatorOperator };
}

/** A node running in the test process. */
export interface InProcessNode {
  chain: ChainApp;
  embedded: EmbeddedNode;
  /** `tcp://127.0.0.1:<port>` of the consensus RPC (what `--node` takes). */
  node: string;
  /** `127.0.0.1:<port>` of the gRPC server, when enabled. */
  grpcAddr?: string;
  /** Resolves once a block at `height` or above is committed. */
  waitForHeight(height: bigint): Promise<void>;
  /** Stops block production and closes everything. */
  stop(): Promise<void>;
}

/** Starts the node of a prepared home in this process (embedded engine, RPC and gRPC on their ports). */
export async function startInProcessNode(home: string, chainId: string): Promise<InProcessNode> {
  const logger = pino({ level: "silent" });
  const chain = await buildChainApp({ chain: currentChain(), home, chainId, logger, minimumGasPrices: "0stake" });
  const embedded = await startEmbeddedNode({ home, app: chain.app });
  let servers: RunningServers | undefined;
  try {
    servers = await startServers({
      backend: appQueryBackend(chain.app),
      hooks: appNodeHooks(chain.app),
      config: await loadAppConfig(home),
      logger,
      version: chain.release.version,
    });
  } catch (err) {
    await embedded.stop();
    await embedded.run().catch(() => undefined);
    await chain.app.close();
    throw err;
  }
  const running = embedded.run();
  const url = new URL(embedded.rpc.url);
  return {
    chain,
    embedded,
    node: `tcp://${url.hostname}:${url.port}`,
    grpcAddr: servers.grpc?.address,
    async waitForHeight(height) {
      while (embedded.engine.store.height < height) await new Promise((resolve) => setTimeout(resolve, 50));
    },
    async stop() {
      await servers?.stop();
      await embedded.stop();
      await running.catch(() => undefined);
      await chain.app.close();
    },
  };
}

async function offlineApp(home: string, chainId: string): Promise<ChainApp> {
  return buildChainApp({
    chain: currentChain(),
    home,
    chainId,
    logger: pino({ level: "silent" }),
    backend: "memory",
    deferLoad: true,
  });
}
