// A small persistent key/value application implementing AbciApp, shared by the engine's tests and the ABCI
// server's tests (src/abci: in process, and as the kv-server.ts child process behind a real CometBFT).
// Txs are "key=value" (UTF-8); "fail=<x>" passes CheckTx but fails in FinalizeBlock with code 2;
// "once:<k>=<v>" is refused by CheckTx once <k> is committed; "val:<hex ed25519 key>=<power>" is a validator
// update. The app hash is sha256 over the sorted "key=value\n" lines, so any two runs over the same txs agree.
// Commit persists {height, appHash, appVersion, state} atomically to one JSON file (when given), which is what
// makes crash recovery (the engine's replay, CometBFT's handshake) testable.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { create } from "@bufbuild/protobuf";
import { writeFileAtomic } from "../../../src/config/atomic-file.ts";
import type { AbciApp } from "../../../src/engine/abci-app.ts";
import { txProtoSize } from "../../../src/engine/mempool.ts";
import {
  CheckTxType,
  EventSchema,
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
  type ValidatorUpdate,
  ValidatorUpdateSchema,
} from "../../../src/gen/tendermint/abci/types_pb.js";

/** The error the KV app throws to halt: duck-typed `exitCode`, as the real App's halt errors. */
export class KvHaltError extends Error {
  override name = "KvHaltError";
  readonly exitCode: number;
  constructor(height: bigint, exitCode: number) {
    super(`KV app halts at height ${height}`);
    this.exitCode = exitCode;
  }
}

/** Options of the test app. */
export interface KvAppOptions {
  /** Where Commit persists; undefined keeps everything in memory. */
  file?: string;
  /** FinalizeBlock at this height throws a {@link KvHaltError} instead of executing. */
  haltAtHeight?: bigint;
  /** The halt's exit code (default 3). */
  haltExitCode?: number;
  /** PrepareProposal keeps at most this many txs (the rest stay in the mempool). */
  maxTxsPerBlock?: number;
  /** Reported as Info.app_version and persisted (default 0). */
  appVersion?: bigint;
  /** Called inside Commit before anything is persisted (tests crash the process here). */
  beforePersist?: (height: bigint) => void;
  /** Commit answers retain_height = height − this (as min-retain-blocks does); absent: 0, keep every block. */
  retainBlocks?: bigint;
  /** Every block writes its height under "block" (the app hash changes each block, as with vote extensions on). */
  writeEveryBlock?: boolean;
}

interface Persisted {
  height: string;
  appHash: string;
  appVersion: string;
  state: Record<string, string>;
}

const decoder = new TextDecoder("utf-8", { fatal: true });
const encode = (text: string) => new TextEncoder().encode(text);

function parseTx(tx: Uint8Array): [string, string] | undefined {
  let text: string;
  try {
    text = decoder.decode(tx);
  } catch {
    return undefined;
  }
  const eq = text.indexOf("=");
  if (eq <= 0) return undefined;
  return [text.slice(0, eq), text.slice(eq + 1)];
}

/** sha256 over the sorted "key=value\n" lines. */
export function kvAppHash(state: Record<string, string>): Uint8Array {
  const h = createHash("sha256");
  for (const k of Object.keys(state).sort()) h.update(`${k}=${state[k]}\n`);
  return new Uint8Array(h.digest());
}

/** The test application. */
export class KvApp implements AbciApp {
  /** The last committed height and its state. */
  committed: Record<string, string> = {};
  height = 0n;
  appHash: Uint8Array = kvAppHash({});
  /** Every method call, for assertions on call order. */
  readonly calls: string[] = [];
  private readonly options: KvAppOptions;
  // InitChain's state: the block at initial_height builds on it (nothing is committed before the first Commit).
  private genesis: Record<string, string> | undefined;
  private pending: { height: bigint; state: Record<string, string>; appHash: Uint8Array } | undefined;

  constructor(options: KvAppOptions = {}) {
    this.options = options;
    if (options.file === undefined) return;
    let text: string;
    try {
      text = readFileSync(options.file, "utf8");
    } catch {
      return;
    }
    const p = JSON.parse(text) as Persisted;
    this.height = BigInt(p.height);
    this.appHash = new Uint8Array(Buffer.from(p.appHash, "hex"));
    this.committed = p.state;
  }

  async info(_request?: RequestInfo): Promise<ResponseInfo> {
    this.calls.push("info");
    return create(ResponseInfoSchema, {
      data: "kv",
      version: "1.0.0",
      appVersion: this.options.appVersion ?? 0n,
      lastBlockHeight: this.height,
      lastBlockAppHash: this.height === 0n ? new Uint8Array(0) : this.appHash,
    });
  }

  async initChain(req: RequestInitChain): Promise<ResponseInitChain> {
    this.calls.push("initChain");
    const text = req.appStateBytes.length > 0 ? decoder.decode(req.appStateBytes) : "{}";
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new Error(`KV app_state must be a JSON object of strings, got ${text}`);
    }
    this.genesis = Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)]));
    return create(ResponseInitChainSchema, { appHash: kvAppHash(this.genesis) });
  }

  async checkTx(req: RequestCheckTx): Promise<ResponseCheckTx> {
    this.calls.push(req.type === CheckTxType.RECHECK ? "recheckTx" : "checkTx");
    const kv = parseTx(req.tx);
    if (kv === undefined)
      return create(ResponseCheckTxSchema, { code: 1, log: "invalid tx format: expected key=value", codespace: "kv" });
    if (kv[0].startsWith("once:") && this.committed[kv[0]] !== undefined) {
      return create(ResponseCheckTxSchema, { code: 3, log: "already set", codespace: "kv" });
    }
    return create(ResponseCheckTxSchema, { code: 0, gasWanted: BigInt(req.tx.length) });
  }

  // Keeps txs in order while they fit max_tx_bytes (as CometBFT measures it) and `maxTxsPerBlock`.
  async prepareProposal(req: RequestPrepareProposal): Promise<ResponsePrepareProposal> {
    this.calls.push("prepareProposal");
    const limit = this.options.maxTxsPerBlock ?? req.txs.length;
    const txs: Uint8Array[] = [];
    let size = 0n;
    for (const tx of req.txs) {
      size += BigInt(txProtoSize(tx));
      if (txs.length >= limit || size > req.maxTxBytes) break;
      txs.push(tx);
    }
    return create(ResponsePrepareProposalSchema, { txs });
  }

  async processProposal(_request?: RequestProcessProposal): Promise<ResponseProcessProposal> {
    this.calls.push("processProposal");
    return create(ResponseProcessProposalSchema, { status: ResponseProcessProposal_ProposalStatus.ACCEPT });
  }

  async finalizeBlock(req: RequestFinalizeBlock): Promise<ResponseFinalizeBlock> {
    this.calls.push("finalizeBlock");
    if (this.height > 0n && req.height !== this.height + 1n) {
      throw new Error(`FinalizeBlock for height ${req.height}, expected ${this.height + 1n}`);
    }
    if (this.options.haltAtHeight !== undefined && req.height === this.options.haltAtHeight) {
      throw new KvHaltError(req.height, this.options.haltExitCode ?? 3);
    }
    // Always from the committed (or genesis) state: a repeated FinalizeBlock of one height replaces the first.
    const state = { ...(this.height === 0n ? (this.genesis ?? {}) : this.committed) };
    if (this.options.writeEveryBlock === true) state.block = String(req.height);
    const validatorUpdates: ValidatorUpdate[] = [];
    const txResults = req.txs.map((tx) => {
      const kv = parseTx(tx);
      if (kv === undefined) return create(ExecTxResultSchema, { code: 1, log: "invalid tx format", codespace: "kv" });
      const [key, value] = kv;
      if (key === "fail")
        return create(ExecTxResultSchema, {
          code: 2,
          log: "failed on purpose",
          codespace: "kv",
          gasWanted: 7n,
          gasUsed: 3n,
        });
      if (key.startsWith("val:")) {
        validatorUpdates.push(
          create(ValidatorUpdateSchema, {
            pubKey: { sum: { case: "ed25519", value: new Uint8Array(Buffer.from(key.slice(4), "hex")) } },
            power: BigInt(value),
          }),
        );
      }
      state[key] = value;
      return create(ExecTxResultSchema, {
        code: 0,
        data: encode(value),
        gasWanted: BigInt(tx.length),
        gasUsed: BigInt(tx.length),
        events: [
          create(EventSchema, {
            type: "kv",
            attributes: [
              { key: "key", value: key, index: true },
              { key: "value", value, index: true },
              { key: "secret", value, index: false },
            ],
          }),
          create(EventSchema, {
            type: "message",
            attributes: [{ key: "sender", value: `sender-${key}`, index: true }],
          }),
        ],
      });
    });
    const appHash = kvAppHash(state);
    this.pending = { height: req.height, state, appHash };
    return create(ResponseFinalizeBlockSchema, {
      events: [
        create(EventSchema, {
          type: "block",
          attributes: [{ key: "height", value: req.height.toString(), index: true }],
        }),
      ],
      txResults,
      validatorUpdates,
      appHash,
    });
  }

  async commit(_request?: RequestCommit): Promise<ResponseCommit> {
    this.calls.push("commit");
    const pending = this.pending;
    if (pending === undefined) throw new Error("commit without finalizeBlock");
    this.options.beforePersist?.(pending.height);
    if (this.options.file !== undefined) {
      const p: Persisted = {
        height: pending.height.toString(),
        appHash: Buffer.from(pending.appHash).toString("hex"),
        appVersion: String(this.options.appVersion ?? 0n),
        state: pending.state,
      };
      await writeFileAtomic(this.options.file, JSON.stringify(p));
    }
    this.height = pending.height;
    this.committed = pending.state;
    this.appHash = pending.appHash;
    this.pending = undefined;
    this.genesis = undefined;
    const keep = this.options.retainBlocks;
    const retainHeight = keep !== undefined && pending.height > keep ? pending.height - keep : 0n;
    return create(ResponseCommitSchema, { retainHeight });
  }

  async query(req: RequestQuery): Promise<ResponseQuery> {
    this.calls.push("query");
    const key = decoder.decode(req.data);
    const value = this.committed[key];
    if (value === undefined)
      return create(ResponseQuerySchema, {
        code: 22,
        log: `key ${key} not found`,
        codespace: "kv",
        height: this.height,
      });
    return create(ResponseQuerySchema, {
      code: 0,
      key: req.data,
      value: encode(value),
      height: this.height,
    });
  }
}
