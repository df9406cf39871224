// A small persistent key/value application for engine tests. Txs are "key=value" (UTF-8); "fail=<x>" passes
// CheckTx but fails in FinalizeBlock with code 2; "val:<hex ed25519 key>=<power>" is a validator update.
// The app hash is sha256 of the sorted state; Commit persists {height, appHash, state} atomically to one file.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { create } from "@bufbuild/protobuf";
import { writeFileAtomic } from "../../config/atomic-file.ts";
import {
  EventSchema,
  ExecTxResultSchema,
  type RequestCheckTx,
  type RequestFinalizeBlock,
  type RequestInitChain,
  type RequestPrepareProposal,
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
} from "../../gen/tendermint/abci/types_pb.js";
import type { AbciApp } from "../abci-app.ts";

/** The error the KV app throws to halt: duck-typed `exitCode`, as the real App's halt errors. */
export class KvHaltError extends Error {
  override name = "KvHaltError";
  readonly exitCode: number;
  constructor(height: bigint, exitCode: number) {
    super(`KV app halts at height ${height}`);
    this.exitCode = exitCode;
  }
}

interface Persisted {
  height: string;
  appHash: string;
  appVersion: string;
  state: Record<string, string>;
}

const decoder = new TextDecoder("utf-8", { fatal: true });

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

/** Options of the test app. */
export interface KvAppOptions {
  /** Where Commit persists; undefined keeps everything in memory. */
  file?: string;
  /** FinalizeBlock at this height throws a {@link KvHaltError}. */
  haltAtHeight?: bigint;
  haltExitCode?: number;
  /** PrepareProposal keeps at most this many txs (the rest stay in the mempool). */
  maxTxsPerBlock?: number;
  /** Reported as Info.app_version and in consensus params. */
  appVersion?: bigint;
}

/** The test application. */
export class KvApp implements AbciApp {
  committed: Record<string, string> = {};
  height = 0n;
  appHash: Uint8Array = kvAppHash({});
  private pending: Record<string, string> | undefined;
  private pendingHash: Uint8Array | undefined;
  private readonly options: KvAppOptions;
  /** Every method call, for assertions on call order. */
  readonly calls: string[] = [];

  constructor(options: KvAppOptions = {}) {
    this.options = options;
    if (options.file !== undefined) {
      let text: string | undefined;
      try {
        text = readFileSync(options.file, "utf8");
      } catch {
        text = undefined;
      }
      if (text !== undefined) {
        const p = JSON.parse(text) as Persisted;
        this.height = BigInt(p.height);
        this.appHash = new Uint8Array(Buffer.from(p.appHash, "hex"));
        this.committed = p.state;
      }
    }
  }

  async info(): Promise<ResponseInfo> {
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
    const initial =
      req.appStateBytes.length > 0 ? (JSON.parse(decoder.decode(req.appStateBytes)) as Record<string, string>) : {};
    this.pending = { ...initial };
    this.pendingHash = kvAppHash(this.pending);
    return create(ResponseInitChainSchema, { appHash: this.pendingHash });
  }

  async checkTx(req: RequestCheckTx): Promise<ResponseCheckTx> {
    this.calls.push(req.type === 1 ? "recheckTx" : "checkTx");
    const kv = parseTx(req.tx);
    if (kv === undefined)
      return create(ResponseCheckTxSchema, { code: 1, log: "invalid tx format: expected key=value", codespace: "kv" });
    if (kv[0].startsWith("once:") && this.committed[kv[0]] !== undefined) {
      return create(ResponseCheckTxSchema, { code: 3, log: "already set", codespace: "kv" });
    }
    return create(ResponseCheckTxSchema, { code: 0, gasWanted: BigInt(req.tx.length) });
  }

  async prepareProposal(req: RequestPrepareProposal): Promise<ResponsePrepareProposal> {
    this.calls.push("prepareProposal");
    return create(ResponsePrepareProposalSchema, {
      txs: req.txs.slice(0, this.options.maxTxsPerBlock ?? req.txs.length),
    });
  }

  async processProposal(): Promise<ResponseProcessProposal> {
    this.calls.push("processProposal");
    return create(ResponseProcessProposalSchema, { status: ResponseProcessProposal_ProposalStatus.ACCEPT });
  }

  async finalizeBlock(req: RequestFinalizeBlock): Promise<ResponseFinalizeBlock> {
    this.calls.push("finalizeBlock");
    if (this.options.haltAtHeight !== undefined && req.height === this.options.haltAtHeight) {
      throw new KvHaltError(req.height, this.options.haltExitCode ?? 3);
    }
    const state = { ...(this.pending ?? this.committed) };
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
        data: new TextEncoder().encode(value),
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
    this.pending = state;
    this.pendingHash = kvAppHash(state);
    return create(ResponseFinalizeBlockSchema, {
      events: [
        create(EventSchema, {
          type: "block",
          attributes: [{ key: "height", value: req.height.toString(), index: true }],
        }),
      ],
      txResults,
      validatorUpdates,
      appHash: this.pendingHash,
    });
  }

  async commit(): Promise<ResponseCommit> {
    this.calls.push("commit");
    if (this.pending === undefined || this.pendingHash === undefined) throw new Error("commit without finalizeBlock");
    this.committed = this.pending;
    this.appHash = this.pendingHash;
    this.height += 1n;
    this.pending = undefined;
    if (this.options.file !== undefined) {
      const p: Persisted = {
        height: this.height.toString(),
        appHash: Buffer.from(this.appHash).toString("hex"),
        appVersion: String(this.options.appVersion ?? 0n),
        state: this.committed,
      };
      await writeFileAtomic(this.options.file, JSON.stringify(p));
    }
    return create(ResponseCommitSchema, {});
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
      value: new TextEncoder().encode(value),
      height: this.height,
    });
  }
}
