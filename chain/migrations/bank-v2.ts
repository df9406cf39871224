// Release v2's bank migration (consensus version 1 → 2): the bond denom gets its display
// metadata, so `GET /chain/bank/v1beta1/denoms_metadata` shows after the upgrade what it did not
// show before. Small on purpose; it exists to prove migrations run exactly once, at the upgrade.
import { create } from "@bufbuild/protobuf";
import type { Context } from "chaind/app";
import { MetadataSchema } from "chaind/gen/chain/bank/v1beta1/bank_pb.js";
import type { BankKeeper } from "chaind/x/bank";

/** Writes the `stake` denom's metadata unless the chain already has some. */
export async function migrateBankV1ToV2(ctx: Context, bank: BankKeeper): Promise<void> {
  if ((await bank.getDenomMetadata(ctx, "stake")) !== undefined) return;
  bank.setDenomMetadata(
    ctx,
    create(MetadataSchema, {
      description: "The staking and fee token of the reference chain",
      base: "stake",
      display: "STAKE",
      name: "Stake",
      symbol: "STAKE",
      denomUnits: [
        { denom: "stake", exponent: 0, aliases: [] },
        { denom: "STAKE", exponent: 6, aliases: [] },
      ],
    }),
  );
}
