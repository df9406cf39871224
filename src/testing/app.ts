// Test wiring: an app with auth and bank (plus any extra modules) over an in-memory store, funded
// genesis accounts, and a minimal SIGN_MODE_DIRECT signer, so tests and benchmarks can drive blocks
// directly without a consensus engine. Not used by the node itself.

import { createHash } from "node:crypto";
import { create, type JsonValue, toBinary } from "@bufbuild/protobuf";
import { type Any, AnySchema, timestampFromMs } from "@bufbuild/protobuf/wkt";
import pino, { type Logger } from "pino";
import { type App, type AppOptions, createApp } from "../app/base-app.ts";
import { type Coin, coinsToProto } from "../app/coins.ts";
import { parseDecCoins } from "../app/dec-coins.ts";
import type { AppModule } from "../app/module.ts";
import { ModuleManager } from "../app/module-manager.ts";
import type { StoreOpener } from "../app/store-loader.ts";
import { toWireBinary } from "../app/wire-decimals.ts";
import {
  accAddressFromPubKey,
  addressToBech32,
  privateKeyFromMnemonic,
  secp256k1PublicKey,
  signSecp256k1,
} from "../crypto/index.ts";
import { PubKeySchema } from "../gen/chain/crypto/secp256k1/keys_pb.js";
import { SignMode } from "../gen/chain/tx/signing/v1beta1/signing_pb.js";
import { AuthInfoSchema, SignDocSchema, TxBodySchema, TxRawSchema } from "../gen/chain/tx/v1beta1/tx_pb.js";
import {
  RequestFinalizeBlockSchema,
  RequestInitChainSchema,
  type ResponseFinalizeBlock,
} from "../gen/tendermint/abci/types_pb.js";
import { openMultiStore } from "../store/index.ts";
import { createAnteHandler } from "../x/auth/ante.ts";
import { AccountKeeper, type AccountKeeperOptions } from "../x/auth/keeper.ts";
import { authModule } from "../x/auth/module.ts";
import { BankKeeper } from "../x/bank/keeper.ts";
import { bankModule } from "../x/bank/module.ts";

/** A test key: private key, compressed public key, address bytes and bech32. */
export interface TestKey {
  privateKey: Uint8Array;
  publicKey: Uint8Array;
  address: Uint8Array;
  bech32: string;
}

/** A key from a mnemonic (m/44'/118'/0'/0/0) or from a seed string hashed into a private key. */
export function testKey(mnemonicOrSeed: string): TestKey {
  const privateKey = mnemonicOrSeed.includes(" ")
    ? privateKeyFromMnemonic(mnemonicOrSeed)
    : new Uint8Array(createHash("sha256").update(mnemonicOrSeed).digest());
  const publicKey = secp256k1PublicKey(privateKey);
  const address = accAddressFromPubKey(publicKey);
  // Read when asked, not when made: the kit's keys are made as it loads, before a chain with its own prefix may have
  // been set (useChain), and must print that chain's addresses.
  return {
    privateKey,
    publicKey,
    address,
    get bech32() {
      return addressToBech32(address);
    },
  };
}

/** Options of createTestApp. */
export interface TestAppOptions {
  chainId?: string;
  /** Genesis balances: bech32 address → coins (each also becomes a BaseAccount). */
  balances?: Record<string, Coin[]>;
  /** Extra app_state entries (module name → genesis JSON), merged over the generated ones. */
  appState?: Record<string, JsonValue>;
  /** Extra modules, built from the auth and bank keepers. */
  extraModules?: (keepers: { accountKeeper: AccountKeeper; bankKeeper: BankKeeper }) => AppModule[];
  /** Module account permissions for the account keeper. */
  moduleAccountPermissions?: AccountKeeperOptions["moduleAccountPermissions"];
  /** minimum-gas-prices, e.g. "0.025stake". */
  minGasPrices?: string;
  /** Custom store opener (default: in-memory). */
  openStore?: StoreOpener;
  /** Reads the committed height without opening (for store loaders on LevelDB). */
  readCommittedHeight?: () => Promise<bigint>;
  logger?: Logger;
  /** Skip InitChain (e.g. to test it yourself). */
  skipInitChain?: boolean;
  /** Do not call `app.load()` (to set a store loader first); implies skipInitChain. */
  deferLoad?: boolean;
  /** Garbage collection after commits (AppOptions.idleCollection): on by default. */
  idleCollection?: AppOptions["idleCollection"];
}

/** What createTestApp returns. */
export interface TestApp {
  app: App;
  accountKeeper: AccountKeeper;
  bankKeeper: BankKeeper;
  moduleManager: ModuleManager;
  chainId: string;
  /** Runs FinalizeBlock(next height) with `txs` and commits; returns the FinalizeBlock response. */
  nextBlock(txs?: Uint8Array[], timeMs?: number): Promise<ResponseFinalizeBlock>;
}

/** An app with auth + bank (+ extras) over a memory store, InitChain done with the given balances. */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const chainId = options.chainId ?? "test-chain";
  const logger = options.logger ?? pino({ level: "silent" });
  const accountKeeper = new AccountKeeper({ moduleAccountPermissions: options.moduleAccountPermissions });
  const bankKeeper = new BankKeeper({ accountKeeper });
  const modules = [
    authModule(accountKeeper),
    bankModule(bankKeeper),
    ...(options.extraModules?.({ accountKeeper, bankKeeper }) ?? []),
  ];
  const moduleManager = new ModuleManager(modules);
  const app = createApp({
    chainId,
    moduleManager,
    anteHandler: createAnteHandler({ accountKeeper, bankKeeper }),
    openStore:
      options.openStore ??
      ((o) => openMultiStore({ backend: "memory", storeNames: o.storeNames, upgrades: o.upgrades })),
    logger,
    readCommittedHeight: options.readCommittedHeight,
    minGasPrices: parseDecCoins(options.minGasPrices ?? ""),
    idleCollection: options.idleCollection,
  });
  let time = 1_700_000_000_000;
  if (!options.deferLoad) await app.load();
  if (!options.skipInitChain && !options.deferLoad) {
    const appState = { ...genesisFor(options.balances ?? {}), ...(options.appState ?? {}) };
    await app.initChain(
      create(RequestInitChainSchema, {
        chainId,
        time: timestampFromMs(time),
        initialHeight: 1n,
        appStateBytes: new TextEncoder().encode(JSON.stringify(appState)),
      }),
    );
  }
  return {
    app,
    accountKeeper,
    bankKeeper,
    moduleManager,
    chainId,
    async nextBlock(txs = [], timeMs) {
      const height = app.lastBlockHeight() + 1n;
      time = timeMs ?? time + 1000;
      const response = await app.finalizeBlock(
        create(RequestFinalizeBlockSchema, { height, time: timestampFromMs(time), txs }),
      );
      await app.commit();
      return response;
    },
  };
}

/** Auth and bank genesis JSON for the given balances (accounts numbered in order). */
export function genesisFor(balances: Record<string, Coin[]>): Record<string, JsonValue> {
  const entries = Object.entries(balances);
  return {
    auth: {
      params: {
        max_memo_characters: "256",
        tx_sig_limit: "7",
        tx_size_cost_per_byte: "10",
        sig_verify_cost_ed25519: "590",
        sig_verify_cost_secp256k1: "1000",
      },
      accounts: entries.map(([address], i) => ({
        "@type": "/chain.auth.v1beta1.BaseAccount",
        address,
        pub_key: null,
        account_number: String(i),
        sequence: "0",
      })),
    },
    bank: {
      params: { send_enabled: [], default_send_enabled: true },
      balances: entries.map(([address, coins]) => ({
        address,
        coins: coinsToProto(coins).map((c) => ({ denom: c.denom, amount: c.amount })),
      })),
      supply: [],
      denom_metadata: [],
      send_enabled: [],
    },
  };
}

/** Parameters of signTx. */
export interface SignTxParameters {
  key: TestKey;
  messages: Any[];
  chainId: string;
  accountNumber: bigint;
  sequence: bigint;
  fee?: Coin[];
  gasLimit?: bigint;
  memo?: string;
  timeoutHeight?: bigint;
  /** TxBody extension_options (critical; the default ante handler rejects any). */
  extensionOptions?: Any[];
  /** Leave the pubkey out of SignerInfo (for accounts that already have one). */
  omitPubKey?: boolean;
  /** Type URL to put the pubkey under (default the chain's). */
  pubKeyTypeUrl?: string;
}

/** A SIGN_MODE_DIRECT signed TxRaw (single signer). */
export function signTx(parameters: SignTxParameters): Uint8Array {
  const bodyBytes = toBinary(
    TxBodySchema,
    create(TxBodySchema, {
      messages: parameters.messages,
      memo: parameters.memo ?? "",
      timeoutHeight: parameters.timeoutHeight ?? 0n,
      extensionOptions: parameters.extensionOptions ?? [],
    }),
  );
  const authInfoBytes = toBinary(
    AuthInfoSchema,
    create(AuthInfoSchema, {
      signerInfos: [
        {
          publicKey: parameters.omitPubKey
            ? undefined
            : create(AnySchema, {
                typeUrl: parameters.pubKeyTypeUrl ?? "/chain.crypto.secp256k1.PubKey",
                value: toBinary(PubKeySchema, create(PubKeySchema, { key: parameters.key.publicKey })),
              }),
          modeInfo: { sum: { case: "single", value: { mode: SignMode.DIRECT } } },
          sequence: parameters.sequence,
        },
      ],
      fee: { amount: coinsToProto(parameters.fee ?? []), gasLimit: parameters.gasLimit ?? 200_000n },
    }),
  );
  const signBytes = toBinary(
    SignDocSchema,
    create(SignDocSchema, {
      bodyBytes,
      authInfoBytes,
      chainId: parameters.chainId,
      accountNumber: parameters.accountNumber,
    }),
  );
  const signature = signSecp256k1(parameters.key.privateKey, signBytes);
  return toBinary(TxRawSchema, create(TxRawSchema, { bodyBytes, authInfoBytes, signatures: [signature] }));
}

/** Packs a message into an Any. */
export function packAny<T extends Parameters<typeof toBinary>[0]>(
  schema: T,
  message: Parameters<typeof toBinary<T>>[1],
): Any {
  return create(AnySchema, { typeUrl: `/${schema.typeName}`, value: toWireBinary(schema, message) });
}
