// The extended commit a built block H+1 opens with. On a chain with vote extensions every real block H+1 opens with
// height H's extended commit (src/app/extended-commit.ts), and PreBlock records each precommitting validator's
// readiness signal from it (state: the upgrade store's 0x04 keys). A rehearsal without the network's real block
// (before the height, or from a snapshot) builds one the way a steady network would have: every validator bonded at
// H precommitted H and signalled what its latest recorded signal says — ready for the same plan, or for none. The
// network's own block (--block, --follow) is run as it is; this only fills in a built block that has no txs.
import { create } from "@bufbuild/protobuf";
import type { Context } from "../../app/context.ts";
import { encodeExtendedCommitTx } from "../../app/extended-commit.ts";
import { carriesExtendedCommit } from "../../app/vote-extensions.ts";
import {
  ExtendedCommitInfoSchema,
  ExtendedVoteInfoSchema,
  type RequestFinalizeBlock,
  RequestFinalizeBlockSchema,
} from "../../gen/tendermint/abci/types_pb.js";
import { BlockIDFlag } from "../../gen/tendermint/types/validator_pb.js";
import type { ChainApp } from "../../runtime/build-app.ts";
import { encodeReadinessRecord } from "../../x/upgrade/readiness-record.ts";
import { readinessSignals, voteExtensionsEnableHeight } from "../../x/upgrade/readiness-store.ts";

/** `block` with a built extended commit of H first when it has no txs and the chain carries one; else `block`. */
export async function withBuiltExtendedCommit(
  chain: ChainApp,
  block: RequestFinalizeBlock,
  ctx: Context,
): Promise<RequestFinalizeBlock> {
  if (block.txs.length > 0) return block;
  const storeKey = chain.upgradeKeeper.storeKey;
  if (!carriesExtendedCommit(await voteExtensionsEnableHeight(ctx, storeKey), block.height)) return block;
  const signals = await readinessSignals(ctx, storeKey);
  const votes = (await chain.bondedValidators(ctx)).map((validator) => {
    const plan = signals.get(Buffer.from(validator.consensusAddress).toString("hex").toUpperCase())?.plan ?? "";
    return create(ExtendedVoteInfoSchema, {
      validator: { address: validator.consensusAddress, power: validator.power },
      // Only the plan reaches state; a record naming one must give a reason, and the binary is the rehearsed one.
      voteExtension: plan === "" ? new Uint8Array(0) : encodeReadinessRecord({ plan, binary: true, staged: false }),
      blockIdFlag: BlockIDFlag.BLOCK_ID_FLAG_COMMIT,
    });
  });
  const commit = create(ExtendedCommitInfoSchema, { round: 0, votes });
  return create(RequestFinalizeBlockSchema, { ...block, txs: [encodeExtendedCommitTx(commit)] });
}
