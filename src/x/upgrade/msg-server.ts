// The upgrade Msg service (docs/CONTRACT.md §2.8). Both messages are signed by the authority (the gov module account), so
// in practice they arrive inside passed gov proposals.
import { parseDecimalInput } from "../../app/dec.ts";
import { ErrInvalidRequest } from "../../app/errors.ts";
import type { ServiceHandlers } from "../../app/module.ts";
import type { Msg } from "../../gen/chain/upgrade/v1beta1/tx_pb.js";
import { ErrInvalidSigner } from "./errors.ts";
import type { UpgradeKeeper } from "./keeper.ts";
import { paramsFromProto, setUpgradeParams } from "./params.ts";
import { newPlan } from "./plan.ts";

/**
 * Rejects a signer other than the keeper's authority (a plain string comparison, as upstream):
 * `expected <authority> got <signer>: expected authority account as only signer for proposal message` (upgrade 6).
 */
export function checkAuthority(keeper: UpgradeKeeper, signer: string): void {
  if (signer !== keeper.authority) throw ErrInvalidSigner.wrap(`expected ${keeper.authority} got ${signer}`);
}

/**
 * The Msg service handlers: SoftwareUpgrade schedules (replacing any plan), CancelUpgrade clears (even when none),
 * UpdateParams sets the readiness gate's params (validated: threshold within [0, 1], postpone blocks ≥ 1).
 */
export function upgradeMsgServer(keeper: UpgradeKeeper): ServiceHandlers<typeof Msg> {
  return {
    async softwareUpgrade(msg, ctx) {
      checkAuthority(keeper, msg.authority);
      // The plan field is non-nullable upstream: an absent plan is the empty plan, which validation rejects.
      await keeper.scheduleUpgrade(ctx, msg.plan ?? newPlan({ name: "", height: 0n }));
      return {};
    },
    async cancelUpgrade(msg, ctx) {
      checkAuthority(keeper, msg.authority);
      await keeper.clearUpgradePlan(ctx);
      return {};
    },
    async updateParams(msg, ctx) {
      checkAuthority(keeper, msg.authority);
      if (msg.params === undefined) throw ErrInvalidRequest.wrap("params must be set");
      await setUpgradeParams(ctx, keeper.storeKey, paramsFromProto(msg.params, parseDecimalInput));
      return {};
    },
  };
}
