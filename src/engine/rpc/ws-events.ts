// The events CometBFT v0.38's event bus publishes for a committed block, in its JSON shapes: each carries the
// payload (`{type: "tendermint/event/<Name>", value}`) and the composite-key map a subscription query is matched
// against (`tm.event`, for Tx also `tx.hash` and `tx.height`, plus `<event type>.<attribute key>` for every
// attribute of the block's or the tx's ABCI events, indexed or not, as the event bus flattens them).
import { isExtendedCommitTx } from "../../app/extended-commit.ts";
import type { Event } from "../../gen/tendermint/abci/types_pb.js";
import type { NewBlockEvent } from "../engine.ts";
import { txHash } from "../hashing/hashes.ts";
import { addressOf, publicKeyFromProto } from "../validator-set.ts";
import {
  b64,
  blockIdJson,
  blockJson,
  blockResultsJson,
  eventCmtjson,
  execTxResultCmtjson,
  headerJson,
  hexUpper,
  type Json,
  pubKeyJson,
} from "./json-shapes.ts";

/** Composite key → values, e.g. `{"tm.event": ["Tx"], "transfer.recipient": ["chain1…"]}`. */
export type EventMap = Record<string, string[]>;

/** One published event. */
export interface PublishedEvent {
  data: { type: string; value: Json };
  events: EventMap;
}

function addTo(map: EventMap, key: string, value: string): void {
  const list = map[key];
  if (list === undefined) map[key] = [value];
  else list.push(value);
}

/** Flattens ABCI events into the composite-key map (empty types and keys are skipped, as CometBFT does). */
export function flattenEvents(events: readonly Event[], base: EventMap = {}): EventMap {
  const map: EventMap = base;
  for (const e of events) {
    if (e.type === "") continue;
    for (const a of e.attributes) {
      if (a.key === "") continue;
      addTo(map, `${e.type}.${a.key}`, a.value);
    }
  }
  return map;
}

/** `result_finalize_block` as cmtjson writes it (omitempty fields left out). */
function finalizeBlockJson(height: bigint, ev: NewBlockEvent): Json {
  const full = blockResultsJson(height, ev.results) as { [k: string]: Json };
  const out: { [k: string]: Json } = {};
  if (ev.results.events.length > 0) out.events = ev.results.events.map(eventCmtjson);
  if (ev.results.txResults.length > 0) out.tx_results = full.txs_results;
  // Not omitempty (a non-nullable repeated field): CometBFT writes `"validator_updates": null` when there are none.
  out.validator_updates = ev.results.validatorUpdates.length > 0 ? full.validator_updates : null;
  if (ev.results.consensusParamUpdates !== undefined) out.consensus_param_updates = full.consensus_param_updates;
  if (ev.results.appHash.length > 0) out.app_hash = b64(ev.results.appHash);
  return out;
}

/** Every event of one committed block, in the order CometBFT fires them. */
export function eventsOfBlock(ev: NewBlockEvent): PublishedEvent[] {
  const height = ev.block.header.height;
  const out: PublishedEvent[] = [];
  out.push({
    data: {
      type: "tendermint/event/NewBlock",
      value: {
        block: blockJson(ev.block),
        block_id: blockIdJson(ev.blockId),
        result_finalize_block: finalizeBlockJson(height, ev),
      },
    },
    events: flattenEvents(ev.results.events, { "tm.event": ["NewBlock"] }),
  });
  out.push({
    data: { type: "tendermint/event/NewBlockHeader", value: { header: headerJson(ev.block.header) } },
    events: { "tm.event": ["NewBlockHeader"] },
  });
  out.push({
    data: {
      type: "tendermint/event/NewBlockEvents",
      value: {
        height: height.toString(),
        // A nil slice in CometBFT's EventDataNewBlockEvents: null, not [], when the block has no events.
        events: ev.results.events.length > 0 ? ev.results.events.map(eventCmtjson) : null,
        num_txs: String(ev.block.txs.length),
      },
    },
    events: flattenEvents(ev.results.events, { "tm.event": ["NewBlockEvents"] }),
  });
  ev.block.txs.forEach((tx, index) => {
    // No Tx event for the proposer's extended commit (the block's first tx, no one's transaction), as the tx index
    // leaves it out (block-store.ts). docs/COMPATIBILITY.md row 22.
    if (index === 0 && isExtendedCommitTx(tx)) return;
    const result = ev.results.txResults[index];
    // abci.TxResult goes through cmtjson's reflection (no jsonpb marshaler reaches a value field): omitempty
    // leaves out index 0, an empty tx and every zero field of the result.
    const txResult: { [k: string]: Json } = { height: height.toString() };
    if (index !== 0) txResult.index = index;
    if (tx.length > 0) txResult.tx = b64(tx);
    txResult.result = execTxResultCmtjson(result);
    out.push({
      data: { type: "tendermint/event/Tx", value: { TxResult: txResult } },
      events: flattenEvents(result?.events ?? [], {
        "tm.event": ["Tx"],
        "tx.hash": [hexUpper(txHash(tx))],
        "tx.height": [height.toString()],
      }),
    });
  });
  if (ev.results.validatorUpdates.length > 0) {
    out.push({
      data: {
        type: "tendermint/event/ValidatorSetUpdates",
        value: {
          validator_updates: ev.results.validatorUpdates.map((u) => {
            const pk = publicKeyFromProto(u.pubKey);
            return {
              address: hexUpper(addressOf(pk)),
              pub_key: pubKeyJson(pk),
              voting_power: u.power.toString(),
              proposer_priority: "0",
            };
          }),
        },
      },
      events: { "tm.event": ["ValidatorSetUpdates"] },
    });
  }
  return out;
}
