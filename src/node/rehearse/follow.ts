// `--follow N`: the source's blocks after the upgrade executed on the upgraded state with the new release, each
// compared with what the source's app answered for it: how many transactions succeeded, which failed that had
// succeeded on the source (code, codespace, log), and the gas used against the source's.

import type { App } from "../../app/base-app.ts";
import { isExtendedCommitTx } from "../../app/extended-commit.ts";
import type { ExecTxResult, ResponseFinalizeBlock } from "../../gen/tendermint/abci/types_pb.js";
import type { SourceBlocks } from "./source-blocks.ts";

/** A transaction the new rules refuse that the source accepted. */
export interface BrokenTx {
  index: number;
  code: number;
  codespace: string;
  log: string;
}

/** One followed block. */
export interface FollowedBlock {
  height: bigint;
  txs: number;
  succeeded: number;
  /** Failed here and on the source too. */
  failedAsOnSource: number;
  /** Succeeded on the source, failed here. */
  broken: BrokenTx[];
  gasUsed: bigint;
  sourceGasUsed: bigint;
}

/**
 * Compares the block's results here with the source's. `txs` are the block's transactions: when the first is the
 * proposer's extended commit (readiness), it is no one's transaction and is left out of the counts (its index is
 * still the block's, so `broken[].index` names the tx in the block).
 */
export function compareBlock(
  height: bigint,
  here: ResponseFinalizeBlock,
  source: ResponseFinalizeBlock,
  txs: readonly Uint8Array[] = [],
): FollowedBlock {
  const skipFirst = isExtendedCommitTx(txs[0]);
  const row: FollowedBlock = {
    height,
    txs: here.txResults.length - (skipFirst ? 1 : 0),
    succeeded: 0,
    failedAsOnSource: 0,
    broken: [],
    gasUsed: sumGas(here.txResults),
    sourceGasUsed: sumGas(source.txResults),
  };
  here.txResults.forEach((result, index) => {
    if (index === 0 && skipFirst) return;
    if (result.code === 0) row.succeeded++;
    else if ((source.txResults[index]?.code ?? 0) !== 0) row.failedAsOnSource++;
    else row.broken.push({ index, code: result.code, codespace: result.codespace, log: result.log });
  });
  return row;
}

/** Executes the source's blocks `from`..`to` (those it holds) on `app`, committing each. */
export async function followBlocks(app: App, source: SourceBlocks, from: bigint, to: bigint): Promise<FollowedBlock[]> {
  const rows: FollowedBlock[] = [];
  for (let height = from; height <= to; height++) {
    const request = await source.request(height);
    const recorded = await source.results(height);
    if (request === undefined || recorded === undefined) break;
    const here = await app.finalizeBlock(request);
    await app.commit();
    rows.push(compareBlock(height, here, recorded, request.txs));
  }
  return rows;
}

function sumGas(results: readonly ExecTxResult[]): bigint {
  return results.reduce((total, result) => total + result.gasUsed, 0n);
}
