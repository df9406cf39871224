// Shared setup for engine tests: a temp directory, a genesis document naming one ed25519 validator, its
// PrivValidator, and helpers to open the store and wait for heights.
import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { emptyCommit, genesisState, makeBlock, nextState } from "../../../src/engine/block-execution.ts";
import { BlockStore } from "../../../src/engine/block-store.ts";
import type { Engine } from "../../../src/engine/engine.ts";
import { type EngineGenesis, parseEngineGenesis } from "../../../src/engine/genesis.ts";
import { PrivValidator } from "../../../src/engine/priv-validator.ts";
import type { EngineState } from "../../../src/engine/state.ts";
import { BlockIdFlag, type Commit } from "../../../src/engine/types.ts";
import { type ResponseFinalizeBlock, ResponseInitChainSchema } from "../../../src/gen/tendermint/abci/types_pb.js";

/** A deterministic 32-byte seed from a label. */
export function seedOf(label: string): Uint8Array {
  return new Uint8Array(createHash("sha256").update(label).digest());
}

/** What a test needs to run an engine on disk. */
export interface TestChain {
  dir: string;
  genesisJson: string;
  genesis: EngineGenesis;
  seed: Uint8Array;
  blocksDb: string;
  appFile: string;
  statePath: string;
  /** A fresh PrivValidator reading the guard state from disk. */
  privValidator(): Promise<PrivValidator>;
  openStore(): Promise<BlockStore>;
  cleanup(): Promise<void>;
}

/** Creates a temp chain home with a one-validator genesis (time one second ago unless given). */
export async function makeTestChain(
  options: {
    chainId?: string;
    appState?: Record<string, string>;
    genesisTime?: string;
    extra?: Record<string, unknown>;
  } = {},
): Promise<TestChain> {
  const dir = await mkdtemp(join(tmpdir(), "chaind-engine-"));
  const seed = seedOf("engine-test-validator");
  const statePath = join(dir, "priv_validator_state.json");
  const pv = PrivValidator.fromSeed(seed);
  const doc = {
    genesis_time: options.genesisTime ?? new Date(Date.now() - 1000).toISOString(),
    chain_id: options.chainId ?? "test-chain",
    initial_height: "1",
    validators: [
      {
        address: Buffer.from(pv.address).toString("hex").toUpperCase(),
        pub_key: { type: "tendermint/PubKeyEd25519", value: Buffer.from(pv.pubKey).toString("base64") },
        power: "10",
        name: "v0",
      },
    ],
    app_hash: "",
    app_state: options.appState ?? {},
    ...options.extra,
  };
  const genesisJson = JSON.stringify(doc);
  return {
    dir,
    genesisJson,
    genesis: parseEngineGenesis(genesisJson),
    seed,
    blocksDb: join(dir, "blocks.db"),
    appFile: join(dir, "app.json"),
    statePath,
    privValidator: () => PrivValidator.withStateFile(seed, statePath),
    openStore: () => BlockStore.open(join(dir, "blocks.db")),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** Resolves once the engine has committed `height` (immediately if it already has). */
export function waitForHeight(engine: Engine, height: bigint): Promise<void> {
  if (engine.store.height >= height) return Promise.resolve();
  return new Promise((resolve) => {
    const off = engine.onNewBlock((e) => {
      if (e.block.header.height >= height) {
        off();
        resolve();
      }
    });
  });
}

/** Options of {@link saveTestBlocks}. */
export interface TestBlocksOptions {
  /** The nanoseconds of every block's time (each block a second after the last); default 0. */
  nanos?: number;
  /** The byte the validator's commit signature is filled with (the store never checks it); default 0. */
  signatureFill?: number;
}

/**
 * Saves heights 1..blocks.length into `store`, block i carrying `blocks[i]` as its txs and `resultsOf` its results,
 * each committed by the chain's one validator; returns the state after the last.
 */
export async function saveTestBlocks(
  store: BlockStore,
  chain: TestChain,
  blocks: readonly Uint8Array[][],
  resultsOf: (txs: Uint8Array[], height: bigint) => ResponseFinalizeBlock,
  options: TestBlocksOptions = {},
): Promise<EngineState> {
  const pv = PrivValidator.fromSeed(chain.seed);
  let state = genesisState(chain.genesis, create(ResponseInitChainSchema, {}), 0n);
  let last: Commit = emptyCommit();
  for (const txs of blocks) {
    const time = { seconds: state.lastBlockTime.seconds + 1n, nanos: options.nanos ?? 0 };
    const { block, blockId, blockBytes } = makeBlock(state, txs, last, time, pv.address);
    const height = block.header.height;
    const results = resultsOf(txs, height);
    const after = nextState(state, block, blockId, results);
    const seenCommit: Commit = {
      height,
      round: 0,
      blockId,
      signatures: [
        {
          blockIdFlag: BlockIdFlag.commit,
          validatorAddress: pv.address,
          timestamp: time,
          signature: new Uint8Array(64).fill(options.signatureFill ?? 0),
        },
      ],
    };
    await store.saveHeight({
      block,
      blockBytes,
      blockId,
      seenCommit,
      results,
      validators: state.validators,
      state: after,
    });
    state = after;
    last = seenCommit;
  }
  return state;
}
