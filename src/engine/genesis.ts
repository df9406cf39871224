// The engine's view of genesis.json. Reading and checking the file is src/config's job (one parser, one set of
// errors: ConfigError naming the file and the field); this module only reshapes the checked document into the
// engine's plain tendermint forms (PublicKey {type, key}, the evidence duration as {seconds, nanos}) and the
// app_state bytes InitChain carries.
import {
  type GenesisDoc as ConfigGenesisDoc,
  loadGenesis as loadConfigGenesis,
  parseGenesis as parseConfigGenesis,
} from "../config/genesis.ts";
import type { JsonObject } from "../config/json-reader.ts";
import type { ConsensusParams, PublicKey, Timestamp } from "./types.ts";

/** A genesis validator. */
export interface GenesisValidator {
  address: Uint8Array;
  pubKey: PublicKey;
  power: bigint;
  name: string;
}

/** The genesis document as the engine uses it. */
export interface EngineGenesis {
  genesisTime: Timestamp;
  chainId: string;
  initialHeight: bigint;
  consensusParams: ConsensusParams;
  validators: GenesisValidator[];
  appHash: Uint8Array;
  /** The raw JSON of app_state (empty when absent), as CometBFT passes it to InitChain. */
  appStateBytes: Uint8Array;
  /** app_state itself, for the `/genesis` RPC; undefined when the file has none. */
  appState: JsonObject | undefined;
}

const NANOS_PER_SECOND = 1_000_000_000n;

/** Reshapes a document checked by src/config into the engine's view. */
export function engineGenesisOf(doc: ConfigGenesisDoc): EngineGenesis {
  const params = doc.consensusParams;
  const maxAge = params.evidence.maxAgeDuration;
  return {
    genesisTime: doc.genesisTime,
    chainId: doc.chainId,
    initialHeight: doc.initialHeight,
    consensusParams: {
      block: { ...params.block },
      evidence: {
        maxAgeNumBlocks: params.evidence.maxAgeNumBlocks,
        maxAgeDuration: { seconds: maxAge / NANOS_PER_SECOND, nanos: Number(maxAge % NANOS_PER_SECOND) },
        maxBytes: params.evidence.maxBytes,
      },
      validator: { pubKeyTypes: [...params.validator.pubKeyTypes] },
      version: { ...params.version },
      abci: { ...params.abci },
    },
    validators: doc.validators.map((v) => ({
      address: v.address,
      pubKey: { type: v.pubKey.type, key: v.pubKey.value },
      power: v.power,
      name: v.name,
    })),
    appHash: doc.appHash,
    appStateBytes:
      doc.appState === undefined ? new Uint8Array(0) : new TextEncoder().encode(JSON.stringify(doc.appState)),
    appState: doc.appState,
  };
}

/** Parses and checks genesis JSON text (src/config's rules); `file` names the source in error messages. */
export function parseEngineGenesis(text: string, file = "genesis.json"): EngineGenesis {
  return engineGenesisOf(parseConfigGenesis(text, file));
}

/** Reads and checks a genesis file (src/config's rules and errors). */
export async function loadEngineGenesis(path: string): Promise<EngineGenesis> {
  return engineGenesisOf(await loadConfigGenesis(path));
}
