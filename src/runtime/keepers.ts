// The keepers of the standard module set, created once per App and handed to a release's own modules.
import type { AccountKeeper } from "../x/auth/keeper.ts";
import type { BankKeeper } from "../x/bank/keeper.ts";
import type { GovKeeper } from "../x/gov/keeper.ts";
import type { StakingKeeper } from "../x/staking/keeper.ts";
import type { UpgradeKeeper } from "../x/upgrade/keeper.ts";

/** The standard modules' keepers (a release's modules may depend on them). */
export interface StandardKeepers {
  accountKeeper: AccountKeeper;
  bankKeeper: BankKeeper;
  stakingKeeper: StakingKeeper;
  govKeeper: GovKeeper;
  upgradeKeeper: UpgradeKeeper;
}
