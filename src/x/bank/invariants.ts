// The bank's invariants (src/app/module.ts ModuleInvariant): properties of its store that hold at every height,
// run by `chaind upgrade rehearse` before and after an upgrade (upstream's crisis module had the same one).

import { parseAmount } from "../../app/coins.ts";
import type { Context } from "../../app/context.ts";
import type { ModuleInvariant } from "../../app/module.ts";
import { fromUtf8 } from "../../bytes/text.ts";
import type { BankKeeper } from "./keeper.ts";
import { BALANCES_PREFIX } from "./keys.ts";

/** `total-supply`: every denom's recorded supply equals the sum of its balances. */
export function totalSupplyInvariant(keeper: BankKeeper): ModuleInvariant {
  return {
    name: "total-supply",
    async check(ctx: Context) {
      const sums = new Map<string, bigint>();
      for await (const [key, value] of keeper.store(ctx).iterate({ prefix: BALANCES_PREFIX })) {
        const denom = fromUtf8(key.subarray(2 + key[1]));
        sums.set(denom, (sums.get(denom) ?? 0n) + parseAmount(fromUtf8(value)));
      }
      for (const coin of await keeper.getTotalSupply(ctx)) {
        const held = sums.get(coin.denom) ?? 0n;
        if (held !== coin.amount) {
          throw new Error(`the supply of ${coin.denom} is ${coin.amount} but its balances add up to ${held}`);
        }
        sums.delete(coin.denom);
      }
      for (const [denom, held] of sums) {
        if (held !== 0n) throw new Error(`balances of ${denom} add up to ${held} but it has no recorded supply`);
      }
    },
  };
}
