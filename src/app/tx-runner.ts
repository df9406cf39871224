// Running one tx (upstream baseapp runTx/runMsgs): decode, message checks, the ante handler on its
// own branch (its writes — fees, sequences, pubkeys — stick even when the messages fail), then, in
// FinalizeBlock/simulation/genesis, the messages in order on a further branch, all or nothing.

import { create, type Registry } from "@bufbuild/protobuf";
import { type Any, AnySchema } from "@bufbuild/protobuf/wkt";
import { accountBech32 } from "./address-cache.ts";
import type { AnteHandler } from "./ante.ts";
import type { Context } from "./context.ts";
import { abciInfo, ErrInvalidRequest, ErrOutOfGas, ErrTxDecode, ErrUnknownRequest, wrap } from "./errors.ts";
import { type AbciEvent, appendAttributes, DISCARDED_EVENTS, EventManager, newEvent } from "./events.ts";
import { GasOverflowError, newGasMeter, newInfiniteGasMeter, OutOfGasError } from "./gas.ts";
import { type MsgRouter, typeUrlOf } from "./router.ts";
import { decodeSignerAddress } from "./signers.ts";
import { type DecodedTx, decodeTx } from "./tx-decode.ts";
import { encodeTxMsgData } from "./tx-msg-data-encoding.ts";
import { toWireBinary } from "./wire-decimals.ts";

/** The outcome of one tx, in the shape of ABCI's ExecTxResult / ResponseCheckTx. */
export interface TxResult {
  /** 0 on success. */
  code: number;
  codespace: string;
  /** Error text on failure ("" on success, as upstream v0.50). */
  log: string;
  /** Serialized TxMsgData{msg_responses} on success. */
  data: Uint8Array;
  gasWanted: bigint;
  gasUsed: bigint;
  events: AbciEvent[];
  /** The message responses packed as Any (also inside `data`). */
  msgResponses: Any[];
  /** The error behind a failure (for callers that rethrow it, e.g. simulation over gRPC). */
  error?: unknown;
}

/** Dependencies of the tx runner. */
export interface TxRunnerOptions {
  typeRegistry: Registry;
  msgRouter: MsgRouter;
  anteHandler: AnteHandler;
}

/**
 * Runs txs against a context's branch. `ctx.mode` selects the behaviour: `check`/`recheck` stop after
 * the ante handler; `finalize`, `genesis` and `simulate` also run the messages. On success (or when
 * only the messages fail) the ante writes are applied to `ctx.multiStore`; the message writes only
 * when every message succeeds.
 */
export class TxRunner {
  private readonly options: TxRunnerOptions;
  // Txs decoded by `precheck` before they reached the app's lock, so CheckTx, the rechecks of the
  // same bytes object after each block and the block that includes it skip a second decode (decoding
  // is a pure function of the bytes). Keyed by the bytes object itself: a
  // weak map holds nothing the mempool has dropped.
  private readonly predecoded = new WeakMap<Uint8Array, DecodedTx>();

  constructor(options: TxRunnerOptions) {
    this.options = options;
  }

  /** Decodes `txBytes` (sdk 2 on failure). */
  decode(txBytes: Uint8Array): DecodedTx {
    return decodeTx(txBytes, this.options.typeRegistry, this.options.msgRouter);
  }

  /** Runs one tx in `ctx` (see the class comment). Never throws: failures become a result code. */
  async run(ctx: Context, txBytes: Uint8Array): Promise<TxResult> {
    const known = ctx.isCheckTx ? this.predecoded.get(txBytes) : undefined;
    const decoded = known ?? this.decodeOrFailure(txBytes);
    return "code" in decoded ? decoded : this.runDecoded(ctx, decoded);
  }

  /**
   * The checks of a tx that need no state: decoding and the message checks. Returns the failure
   * CheckTx would return for them, or undefined when the tx may go on to the ante handler (it is
   * then remembered, decoded, for CheckTx). Safe to call without the app's lock.
   */
  precheck(txBytes: Uint8Array): TxResult | undefined {
    const decoded = this.decodeOrFailure(txBytes);
    if ("code" in decoded) return decoded;
    try {
      checkMessages(decoded);
    } catch (err) {
      return failure(err, 0n, 0n, []);
    }
    this.predecoded.set(txBytes, decoded);
    return undefined;
  }

  /** Whether {@link prepareCheck} would do anything now (the ante handler has a preparation and wants it). */
  preparesCheck(): boolean {
    const ante = this.options.anteHandler;
    return ante.prepareCheck !== undefined && (ante.preparesCheck?.() ?? true);
  }

  /**
   * The ante handler's read-only preparation of one prechecked tx for CheckTx (see
   * `AnteHandler.prepareCheck`), against `ctx`'s state. A tx that did not pass `precheck` (or an ante
   * handler without the hook) is left alone. Never rejects: a failed preparation only means CheckTx
   * does the work itself.
   */
  async prepareCheck(ctx: Context, txBytes: Uint8Array): Promise<void> {
    const prepare = this.options.anteHandler.prepareCheck;
    const decoded = this.predecoded.get(txBytes);
    if (prepare === undefined || decoded === undefined) return;
    try {
      // Read only, and nobody reads its events.
      await prepare(ctx.with({ gasMeter: newInfiniteGasMeter(), events: DISCARDED_EVENTS }), decoded);
    } catch {
      // Nothing to report: CheckTx runs every check again and answers for the tx.
    }
  }

  /**
   * Runs a block's txs in order on `ctx`'s branch, each with its own event manager, after giving
   * the ante handler a look at all of them (parallel signature checks). One result per tx: what `convert`
   * makes of it as soon as its tx has run, so a result's own records (its events, message responses) die
   * young instead of living, with the whole block's, until the last tx has run — past two scavenges, into
   * V8's old generation.
   */
  async runBlock<R>(ctx: Context, txs: readonly Uint8Array[], convert: (result: TxResult) => R): Promise<R[]> {
    // A block built by the embedded engine carries the very bytes objects its mempool prechecked.
    const decoded = txs.map((tx) => this.predecoded.get(tx) ?? this.decodeOrFailure(tx));
    const prepare = this.options.anteHandler.prepareBlock;
    if (prepare !== undefined) {
      const ready = decoded.filter((d): d is DecodedTx => !("code" in d));
      if (ready.length > 0)
        await prepare(ctx.with({ gasMeter: newInfiniteGasMeter(), events: DISCARDED_EVENTS }), ready);
    }
    const results: R[] = [];
    for (const tx of decoded) {
      results.push(convert("code" in tx ? tx : await this.runDecoded(ctx.with({ events: new EventManager() }), tx)));
    }
    return results;
  }

  private decodeOrFailure(txBytes: Uint8Array): DecodedTx | TxResult {
    try {
      return this.decode(txBytes);
    } catch (err) {
      // Upstream's runTx wraps the decoder's error once more, so the text ends in "tx parse error" twice.
      const error = ErrTxDecode.is(err) ? ErrTxDecode.wrap((err as Error).message, { cause: err }) : err;
      return failure(error, 0n, 0n, []);
    }
  }

  /** Runs an already decoded tx (the decode step is skipped; message checks are not). */
  async runDecoded(ctx: Context, tx: DecodedTx): Promise<TxResult> {
    try {
      checkMessages(tx);
    } catch (err) {
      return failure(err, 0n, 0n, []);
    }
    const gasWanted = tx.gasLimit;
    // Genesis txs and simulations are not limited (upstream SetUpContextDecorator).
    const gasMeter = ctx.isSimulate || ctx.blockHeight === 0n ? newInfiniteGasMeter() : newGasMeter(gasWanted);
    const anteBranch = ctx.multiStore.branch();
    // `fresh()`: a CheckTx whose caller reads no events runs with a manager that discards them.
    const anteCtx = ctx.with({ multiStore: anteBranch, gasMeter, events: ctx.events.fresh(), txBytes: tx.txBytes });
    try {
      await this.options.anteHandler(anteCtx, tx);
    } catch (err) {
      return failure(asTxError(err, gasWanted, gasMeter.consumed()), gasWanted, gasMeter.consumed(), []);
    }
    anteBranch.write();
    const anteEvents = anteCtx.events.events();
    if (ctx.isCheckTx) return success(new Uint8Array(), gasWanted, gasMeter.consumed(), anteEvents, []);

    const msgBranch = ctx.multiStore.branch();
    const msgCtx = ctx.with({ multiStore: msgBranch, gasMeter, events: new EventManager(), txBytes: tx.txBytes });
    const events: AbciEvent[] = [];
    const responses: Any[] = [];
    for (let i = 0; i < tx.msgs.length; i++) {
      const decoded = tx.msgs[i];
      const route = decoded.route!;
      const handlerEvents = new EventManager();
      let response: Any;
      try {
        const result = await route.handler(decoded.msg, msgCtx.with({ events: handlerEvents }));
        response = create(AnySchema, { typeUrl: typeUrlOf(route.output), value: toWireBinary(route.output, result) });
      } catch (err) {
        const error = isOutOfGas(err)
          ? asTxError(err, gasWanted, gasMeter.consumed())
          : wrap(err, `failed to execute message; message index: ${i}`);
        if (!isKnownError(err)) ctx.logger.debug({ err, msgIndex: i, typeUrl: decoded.typeUrl }, "message failed");
        return failure(error, gasWanted, gasMeter.consumed(), anteEvents);
      }
      responses.push(response);
      for (const event of messageEvents(decoded.typeUrl, decoded.signers[0], handlerEvents.events())) {
        events.push(appendAttributes(event, { msg_index: String(i) }));
      }
    }
    msgBranch.write();
    const data = encodeTxMsgData(responses);
    return success(data, gasWanted, gasMeter.consumed(), [...anteEvents, ...events], responses);
  }
}

// Before the ante handler: at least one message, and a handler for each (upstream validateBasicTxMsgs).
function checkMessages(tx: DecodedTx): void {
  if (tx.msgs.length === 0) throw ErrInvalidRequest.wrap("must contain at least one message");
  for (const msg of tx.msgs) {
    if (msg.route === undefined) throw ErrUnknownRequest.wrap(`no message handler found for ${msg.typeUrl}`);
  }
}

// Each message's events are led by `message{action, sender, module}` (module only when the handler
// emitted none), as upstream's createEvents does.
function messageEvents(typeUrl: string, firstSigner: string | undefined, handlerEvents: AbciEvent[]): AbciEvent[] {
  const attributes: Record<string, string> = { action: typeUrl };
  if (firstSigner !== undefined) attributes.sender = toAccountAddress(firstSigner);
  const hasModule = handlerEvents.some((event) => event.attributes.some((attribute) => attribute.key === "module"));
  const moduleName = typeUrl.split(".")[1];
  if (!hasModule && moduleName !== undefined && moduleName !== "") attributes.module = moduleName;
  return [newEvent("message", attributes), ...handlerEvents];
}

function toAccountAddress(address: string): string {
  try {
    return accountBech32(decodeSignerAddress(address));
  } catch {
    return address;
  }
}

function isOutOfGas(err: unknown): boolean {
  let current: unknown = err;
  for (let depth = 0; depth < 16 && current instanceof Error; depth++) {
    if (current instanceof OutOfGasError || current instanceof GasOverflowError) return true;
    current = current.cause;
  }
  return false;
}

function isKnownError(err: unknown): boolean {
  return abciInfo(err).code !== 1;
}

// Out of gas anywhere becomes sdk 11 with upstream's text; everything else keeps its own identity.
function asTxError(err: unknown, gasWanted: bigint, gasUsed: bigint): unknown {
  let current: unknown = err;
  for (let depth = 0; depth < 16 && current instanceof Error; depth++) {
    if (current instanceof OutOfGasError) {
      return ErrOutOfGas.wrap(
        `out of gas in location: ${current.descriptor}; gasWanted: ${gasWanted}, gasUsed: ${gasUsed}`,
      );
    }
    if (current instanceof GasOverflowError) return ErrOutOfGas.wrap(`gas overflow in location: ${current.descriptor}`);
    current = current.cause;
  }
  return err;
}

function failure(err: unknown, gasWanted: bigint, gasUsed: bigint, events: AbciEvent[]): TxResult {
  const info = abciInfo(err);
  return {
    code: info.code,
    codespace: info.codespace,
    log: info.log,
    data: new Uint8Array(),
    gasWanted,
    gasUsed,
    events,
    msgResponses: [],
    error: err,
  };
}

function success(
  data: Uint8Array,
  gasWanted: bigint,
  gasUsed: bigint,
  events: AbciEvent[],
  responses: Any[],
): TxResult {
  return { code: 0, codespace: "", log: "", data, gasWanted, gasUsed, events, msgResponses: responses };
}
