// The auth Msg service: MsgUpdateParams, allowed only for the authority (the gov module account).

import { ErrInvalidAuthority, ErrInvalidRequest } from "../../app/errors.ts";
import type { ServiceHandlers } from "../../app/module.ts";
import type { Msg } from "../../gen/chain/auth/v1beta1/tx_pb.js";
import type { AccountKeeper } from "./keeper.ts";
import { validateAuthParams } from "./params.ts";

/** Handlers of `chain.auth.v1beta1.Msg`. */
export function authMsgServer(keeper: AccountKeeper): ServiceHandlers<typeof Msg> {
  return {
    async updateParams(msg, ctx) {
      if (msg.authority !== keeper.authority) {
        throw ErrInvalidAuthority.wrap(`invalid authority; expected ${keeper.authority}, got ${msg.authority}`);
      }
      if (msg.params === undefined) throw ErrInvalidRequest.wrap("params cannot be empty");
      try {
        validateAuthParams(msg.params);
      } catch (err) {
        throw ErrInvalidRequest.wrap((err as Error).message);
      }
      keeper.setParams(ctx, msg.params);
      return {};
    },
  };
}
