// Conversions between the framework's plain records and the generated tendermint.abci messages.
import { create } from "@bufbuild/protobuf";
import {
  type ValidatorUpdate as AbciValidatorUpdate,
  type Event,
  type EventAttribute,
  type ExecTxResult,
  ValidatorUpdateSchema,
} from "../gen/tendermint/abci/types_pb.js";
import { PublicKeySchema } from "../gen/tendermint/crypto/keys_pb.js";
import type { AbciEvent } from "./events.ts";
import type { ValidatorUpdate } from "./module.ts";
import type { TxResult } from "./tx-runner.ts";

/**
 * ABCI events from framework events. Built as literal messages (every field set, as `create` would
 * leave them): each tx's ~15 events and ~30 attributes are converted in CheckTx and again in
 * FinalizeBlock, and the schema-driven `create` cost several times more per attribute on the node's
 * main thread.
 */
export function toAbciEvents(events: readonly AbciEvent[]): Event[] {
  const out: Event[] = new Array(events.length);
  for (let i = 0; i < events.length; i++) {
    const event = events[i];
    const source = event.attributes;
    const attributes: EventAttribute[] = new Array(source.length);
    for (let j = 0; j < source.length; j++) {
      const a = source[j];
      attributes[j] = { $typeName: "tendermint.abci.EventAttribute", key: a.key, value: a.value, index: a.index };
    }
    out[i] = { $typeName: "tendermint.abci.Event", type: event.type, attributes };
  }
  return out;
}

/** Framework events from ABCI events. */
export function fromAbciEvents(events: readonly Event[]): AbciEvent[] {
  return events.map((event) => ({
    type: event.type,
    attributes: event.attributes.map((a) => ({ key: a.key, value: a.value, index: a.index })),
  }));
}

/** An ExecTxResult from a tx result (a literal message, for the reason given at {@link toAbciEvents}). */
export function toExecTxResult(result: TxResult): ExecTxResult {
  return {
    $typeName: "tendermint.abci.ExecTxResult",
    code: result.code,
    data: result.data,
    log: result.log,
    info: "",
    gasWanted: result.gasWanted,
    gasUsed: result.gasUsed,
    events: toAbciEvents(result.events),
    codespace: result.codespace,
  };
}

/** ABCI validator updates from the framework's. */
export function toAbciValidatorUpdates(updates: readonly ValidatorUpdate[]): AbciValidatorUpdate[] {
  return updates.map((update) =>
    create(ValidatorUpdateSchema, {
      pubKey: create(PublicKeySchema, { sum: { case: update.pubKey.type, value: update.pubKey.key } }),
      power: update.power,
    }),
  );
}

/** The framework's validator updates from ABCI ones (keys without a type are skipped). */
export function fromAbciValidatorUpdates(updates: readonly AbciValidatorUpdate[]): ValidatorUpdate[] {
  const out: ValidatorUpdate[] = [];
  for (const update of updates) {
    const sum = update.pubKey?.sum;
    if (sum === undefined || sum.case === undefined) continue;
    out.push({ pubKey: { type: sum.case, key: sum.value }, power: update.power });
  }
  return out;
}
