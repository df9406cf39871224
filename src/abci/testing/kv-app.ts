// A small key/value application implementing the engine's AbciApp interface, for the ABCI server's tests.
// Txs are UTF-8 "key=value"; the app hash is sha256 over the sorted "key=value\n" lines, so any two runs over
// the same txs agree. Commit persists {height, appHash, state} atomically to one JSON file (when given),
// which is what makes crash recovery through CometBFT's handshake testable.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { create } from "@bufbuild/protobuf";
import { writeFileAtomic } from "../../config/atomic-file.ts";
import type { AbciApp } from "../../engine/abci-app.ts";
import {
  EventSchema,
  type ExecTxResult,
  ExecTxResultSchema,
  type RequestCheckTx,
  type RequestCommit,
  type RequestFinalizeBlock,
  type RequestInfo,
  type RequestInitChain,
  type RequestPrepareProposal,
  type RequestProcessProposal,
  type RequestQuery,
  type ResponseCheckTx,
  ResponseCheckTxSchema,
  type ResponseCommit,
  ResponseCommitSchema,
  type ResponseFinalizeBlock,
  ResponseFinalizeBlockSchema,
  type ResponseInfo,
  ResponseInfoSchema,
  type ResponseInitChain,
  ResponseInitChainSchema,
  type ResponsePrepareProposal,
  ResponsePrepareProposalSchema,
  type ResponseProcessProposal,
  ResponseProcessProposal_ProposalStatus,
  ResponseProcessProposalSchema,
  type ResponseQuery,
  ResponseQuerySchema,
} from "../../gen/tendermint/abci/types_pb.js";

/** The halt the KV app throws at its configured height: duck-typed `exitCode`, as the real App's halts. */
export class KvHaltError extends Error {
  override name = "KvHaltError";
  readonly exitCode: number;
  constructor(height: bigint, exitCode: number) {
    super(`KV app halts at height ${height}`);
    this.exitCode = exitCode;
  }
}

/** Options of {@link KvApp}. */
export interface KvAppOptions {
  /** Where Commit persists the state; undefined keeps it in memory only. */
  stateFile?: string;
  /** FinalizeBlock at this height throws a {@link KvHaltError} instead of executing. */
  haltAtHeight?: bigint;
  /** The halt's exit code (default 3). */
  haltExitCode?: number;
  /** Called inside Commit before anything is persisted (tests crash the process here). */
  beforePersist?: (height: bigint) => void;
}

interface PersistedState {
  height: string;
  appHash: string;
  state: Record<string, string>;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });
const encode = (text: string) => new TextEncoder().encode(text);

/** Splits a "key=value" tx; undefined when it is not one. */
export function parseKvTx(tx: Uint8Array): [string, string] | undefined {
  let text: string;
  try {
    text = utf8.decode(tx);
  } catch {
    return undefined;
  }
  const eq = text.indexOf("=");
  return eq <= 0 ? undefined : [text.slice(0, eq), text.slice(eq + 1)];
}

/** The KV app hash of a state: sha256 over its sorted "key=value\n" lines. */
export function kvAppHash(state: Record<string, string>): Uint8Array {
  const hash = createHash("sha256");
  for (const key of Object.keys(state).sort()) hash.update(`${key}=${state[key]}\n`);
  return new Uint8Array(hash.digest());
}

// Protobuf size of Data{txs} for one tx, as CometBFT measures max_tx_bytes: tag, length varint, bytes.
function txProtoSize(tx: Uint8Array): number {
  let lengthBytes = 1;
  for (let n = tx.length; n >= 0x80; n = Math.floor(n / 0x80)) lengthBytes++;
  return 1 + lengthBytes + tx.length;
}

/** The test application. */
export class KvApp implements AbciApp {
  /** The last committed height and its state. */
  height = 0n;
  state: Record<string, string> = {};
  appHash: Uint8Array = kvAppHash({});
  private readonly options: KvAppOptions;
  // InitChain's state: block initial_height builds on it (nothing is committed before the first Commit).
  private genesis: Record<string, string> | undefined;
  private pending: { height: bigint; state: Record<string, string>; appHash: Uint8Array } | undefined;

  constructor(options: KvAppOptions = {}) {
    this.options = options;
    if (options.stateFile === undefined) return;
    let text: string;
    try {
      text = readFileSync(options.stateFile, "utf8");
    } catch {
      return;
    }
    const saved = JSON.parse(text) as PersistedState;
    this.height = BigInt(saved.height);
    this.state = saved.state;
    this.appHash = new Uint8Array(Buffer.from(saved.appHash, "hex"));
  }

  async info(_request?: RequestInfo): Promise<ResponseInfo> {
    return create(ResponseInfoSchema, {
      data: "kv",
      version: "kv-1",
      appVersion: 1n,
      lastBlockHeight: this.height,
      lastBlockAppHash: this.height === 0n ? new Uint8Array(0) : this.appHash,
    });
  }

  async initChain(request: RequestInitChain): Promise<ResponseInitChain> {
    const text = request.appStateBytes.length > 0 ? utf8.decode(request.appStateBytes) : "{}";
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new Error(`KV app_state must be a JSON object of strings, got ${text}`);
    }
    this.genesis = Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)]));
    return create(ResponseInitChainSchema, { appHash: kvAppHash(this.genesis) });
  }

  async checkTx(request: RequestCheckTx): Promise<ResponseCheckTx> {
    if (parseKvTx(request.tx) === undefined) {
      return create(ResponseCheckTxSchema, { code: 1, codespace: "kv", log: 'invalid tx: expected "key=value"' });
    }
    return create(ResponseCheckTxSchema, { code: 0, gasWanted: 1n });
  }

  async prepareProposal(request: RequestPrepareProposal): Promise<ResponsePrepareProposal> {
    const txs: Uint8Array[] = [];
    let size = 0;
    for (const tx of request.txs) {
      size += txProtoSize(tx);
      if (size > request.maxTxBytes) break;
      txs.push(tx);
    }
    return create(ResponsePrepareProposalSchema, { txs });
  }

  async processProposal(_request?: RequestProcessProposal): Promise<ResponseProcessProposal> {
    return create(ResponseProcessProposalSchema, { status: ResponseProcessProposal_ProposalStatus.ACCEPT });
  }

  async finalizeBlock(request: RequestFinalizeBlock): Promise<ResponseFinalizeBlock> {
    if (this.height > 0n && request.height !== this.height + 1n) {
      throw new Error(`FinalizeBlock for height ${request.height}, expected ${this.height + 1n}`);
    }
    if (this.options.haltAtHeight !== undefined && request.height === this.options.haltAtHeight) {
      throw new KvHaltError(request.height, this.options.haltExitCode ?? 3);
    }
    // Always from the committed (or genesis) state: a repeated FinalizeBlock of one height replaces the first.
    const state = { ...(this.height === 0n ? (this.genesis ?? {}) : this.state) };
    const txResults: ExecTxResult[] = request.txs.map((tx) => {
      const kv = parseKvTx(tx);
      if (kv === undefined) return create(ExecTxResultSchema, { code: 1, codespace: "kv", log: "invalid tx" });
      state[kv[0]] = kv[1];
      return create(ExecTxResultSchema, {
        code: 0,
        data: encode(kv[1]),
        gasWanted: 1n,
        gasUsed: 1n,
        events: [create(EventSchema, { type: "kv", attributes: [{ key: "key", value: kv[0], index: true }] })],
      });
    });
    const appHash = kvAppHash(state);
    this.pending = { height: request.height, state, appHash };
    return create(ResponseFinalizeBlockSchema, { txResults, appHash });
  }

  async commit(_request?: RequestCommit): Promise<ResponseCommit> {
    const pending = this.pending;
    if (pending === undefined) throw new Error("Commit without a FinalizeBlock");
    this.options.beforePersist?.(pending.height);
    if (this.options.stateFile !== undefined) {
      const saved: PersistedState = {
        height: pending.height.toString(),
        appHash: Buffer.from(pending.appHash).toString("hex"),
        state: pending.state,
      };
      await writeFileAtomic(this.options.stateFile, JSON.stringify(saved));
    }
    this.height = pending.height;
    this.state = pending.state;
    this.appHash = pending.appHash;
    this.pending = undefined;
    this.genesis = undefined;
    return create(ResponseCommitSchema, {});
  }

  async query(request: RequestQuery): Promise<ResponseQuery> {
    const key = utf8.decode(request.data);
    const value = this.state[key];
    if (value === undefined) {
      return create(ResponseQuerySchema, {
        code: 2,
        codespace: "kv",
        log: `key "${key}" not found`,
        height: this.height,
      });
    }
    return create(ResponseQuerySchema, { key: encode(key), value: encode(value), height: this.height });
  }
}
