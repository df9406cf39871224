// Genesis transactions (upstream x/genutil's InitGenesis): the `genutil` module's genesis holds
// signed txs (`gen_txs`, tx JSON) that each carry one MsgCreateValidator. At InitChain, after
// staking's own genesis, every gentx runs through the app's normal deliver path (height 0: no gas
// limit, no fee floor, account number 0 in the sign bytes), then staking computes the validator set.
import { create, type JsonObject, type JsonValue, type Registry, toBinary } from "@bufbuild/protobuf";
import type { Context } from "../../app/context.ts";
import type { AppModule, ValidatorUpdate } from "../../app/module.ts";
import { fromProtoJson } from "../../app/proto-json.ts";
import { fromWireBinary } from "../../app/wire-decimals.ts";
import { UserError } from "../../errors/user-error.ts";
import { type MsgCreateValidator, MsgCreateValidatorSchema } from "../../gen/chain/staking/v1beta1/tx_pb.js";
import { AuthInfoSchema, TxBodySchema, TxRawSchema, TxSchema } from "../../gen/chain/tx/v1beta1/tx_pb.js";
import type { StakingKeeper } from "./keeper.ts";
import { validateCreateValidator } from "./msg-server.ts";

/** The module name and genesis key of genesis transactions. */
export const GENUTIL_MODULE_NAME = "genutil";

/** The outcome of delivering one gentx (the fields of a tx result genutil looks at). */
export interface GenTxResult {
  code: number;
  log: string;
}

/** Runs one encoded tx (TxRaw bytes) in `ctx` through the app's deliver path. */
export type DeliverGenTx = (ctx: Context, txBytes: Uint8Array) => Promise<GenTxResult>;

/** What delivering gentxs needs from the app. */
export interface GenTxDeliveryOptions {
  stakingKeeper: StakingKeeper;
  /** The app's deliver path (e.g. `(ctx, bytes) => app.txRunner.run(ctx, bytes)`; ctx.mode is "genesis"). */
  deliverTx: DeliverGenTx;
  /** The app's type registry (resolves the Msgs inside the gentx JSON). */
  typeRegistry: Registry;
}

/** The part of the App genutil binds to: its tx runner and type registry. */
export interface GenTxApp {
  txRunner: { run(ctx: Context, txBytes: Uint8Array): Promise<GenTxResult> };
  typeRegistry: Registry;
}

/** The genutil module; `bind(app)` after createApp gives it the deliver path. */
export interface GenutilModule extends AppModule {
  bind(app: GenTxApp): void;
}

/** Thrown when a gentx cannot be decoded or fails; the message names the gentx. */
export class GenTxError extends UserError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "GenTxError";
  }
}

const CREATE_VALIDATOR_SUFFIX = ".staking.v1beta1.MsgCreateValidator";

/**
 * Encodes a gentx from its JSON form into TxRaw bytes. The body and auth info are re-encoded from
 * the JSON, which gives the signed bytes back because our encoder is deterministic.
 */
export function genTxToBytes(genTx: JsonValue, registry: Registry): Uint8Array {
  const tx = fromProtoJson(TxSchema, genTx, registry);
  return toBinary(
    TxRawSchema,
    create(TxRawSchema, {
      bodyBytes: toBinary(TxBodySchema, tx.body ?? create(TxBodySchema)),
      authInfoBytes: toBinary(AuthInfoSchema, tx.authInfo ?? create(AuthInfoSchema)),
      signatures: tx.signatures,
    }),
  );
}

/**
 * Checks that every gentx carries exactly one MsgCreateValidator (upstream ValidateGenesis texts). With the app's
 * type registry it also decodes each gentx and runs the message's stateless checks (upstream's
 * DefaultMessageValidator: amount, description, commission, min self-delegation), so `genesis validate` and
 * `collect-gentxs` name a bad gentx instead of InitChain failing on it later.
 */
export function validateGenTxs(genTxs: readonly JsonValue[], registry?: Registry): void {
  genTxs.forEach((genTx, index) => {
    const messages = ((genTx as JsonObject | null)?.body as JsonObject | undefined)?.messages;
    if (!Array.isArray(messages)) throw new GenTxError(`failed to decode gentx ${index}: body.messages is missing`);
    if (messages.length !== 1) throw new GenTxError("genesis transactions must be single-message");
    const typeUrl = (messages[0] as JsonObject | null)?.["@type"];
    if (typeof typeUrl !== "string" || !typeUrl.endsWith(CREATE_VALIDATOR_SUFFIX)) {
      throw new GenTxError(`genesis transaction ${index} does not contain a MsgCreateValidator`);
    }
    if (registry !== undefined) validateGenTxMessage(genTx, index, registry);
  });
}

function validateGenTxMessage(genTx: JsonValue, index: number, registry: Registry): void {
  let msg: MsgCreateValidator;
  try {
    const tx = fromProtoJson(TxSchema, genTx, registry);
    msg = fromWireBinary(MsgCreateValidatorSchema, tx.body?.messages[0]?.value ?? new Uint8Array());
  } catch (err) {
    throw new GenTxError(`failed to decode gentx ${index}: ${(err as Error).message}`, { cause: err });
  }
  try {
    validateCreateValidator(msg);
  } catch (err) {
    throw new GenTxError(`invalid gentx ${index} (${msg.validatorAddress}): ${(err as Error).message}`, {
      cause: err,
    });
  }
}

/**
 * Delivers every gentx in order (upstream DeliverGenTxs) and returns staking's validator set. A
 * gentx that fails aborts InitChain with `failed to execute DeliverTx for '<gentx>': <log>`.
 */
export async function deliverGenTxs(
  ctx: Context,
  genTxs: readonly JsonValue[],
  options: GenTxDeliveryOptions,
): Promise<ValidatorUpdate[]> {
  for (const genTx of genTxs) {
    let bytes: Uint8Array;
    try {
      bytes = genTxToBytes(genTx, options.typeRegistry);
    } catch (err) {
      throw new GenTxError(`failed to decode GenTx '${JSON.stringify(genTx)}': ${(err as Error).message}`, {
        cause: err,
      });
    }
    const result = await options.deliverTx(ctx, bytes);
    if (result.code !== 0) {
      throw new GenTxError(`failed to execute DeliverTx for '${JSON.stringify(genTx)}': ${result.log}`);
    }
  }
  return options.stakingKeeper.applyAndReturnValidatorSetUpdates(ctx);
}

/** The `gen_txs` list of a genutil genesis (absent → empty). */
export function genTxsOf(genesis: JsonValue): JsonValue[] {
  if (genesis === null || typeof genesis !== "object" || Array.isArray(genesis)) {
    throw new GenTxError("genutil genesis must be a JSON object with a gen_txs list");
  }
  const list = (genesis as JsonObject).gen_txs ?? (genesis as JsonObject).genTxs ?? [];
  if (!Array.isArray(list)) throw new GenTxError("genutil gen_txs must be a list of transactions");
  return list;
}

/**
 * The `genutil` module: no store, no services; its InitGenesis delivers the gentxs. Put it after
 * staking (and every module a gentx touches) in the InitGenesis order, and call `bind(app)` once
 * the App exists (the App needs the module list first, the module needs the App's tx runner).
 *
 * @example
 * const genutil = genutilModule({ stakingKeeper });
 * const app = createApp({ moduleManager: new ModuleManager([auth, bank, staking, gov, genutil]), ... });
 * genutil.bind(app);
 */
export function genutilModule(options: { stakingKeeper: StakingKeeper } & Partial<GenTxApp>): GenutilModule {
  let app: GenTxApp | undefined =
    options.txRunner !== undefined && options.typeRegistry !== undefined
      ? { txRunner: options.txRunner, typeRegistry: options.typeRegistry }
      : undefined;
  return {
    bind(bound: GenTxApp): void {
      app = bound;
    },
    name: GENUTIL_MODULE_NAME,
    consensusVersion: 1n,
    storeKeys: [],
    defaultGenesis: () => ({ gen_txs: [] }),
    validateGenesis: (genesis) => validateGenTxs(genTxsOf(genesis), app?.typeRegistry),
    async initGenesis(ctx, genesis) {
      const genTxs = genTxsOf(genesis);
      if (genTxs.length === 0) return undefined;
      if (app === undefined) throw new GenTxError("genutil module is not bound to an app: call genutil.bind(app)");
      const bound = app;
      return deliverGenTxs(ctx, genTxs, {
        stakingKeeper: options.stakingKeeper,
        deliverTx: (txCtx, bytes) => bound.txRunner.run(txCtx, bytes),
        typeRegistry: bound.typeRegistry,
      });
    },
    // Gentxs only matter at InitChain; an exported genesis already holds their effects.
    exportGenesis: async () => ({ gen_txs: [] }),
    registerServices: () => {},
  };
}
