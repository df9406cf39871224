// The upgrade module's CLI, light (the ModuleCli contract, src/app/module-cli.ts): `query upgrade …`, `tx upgrade …`.
import type { ModuleCliRef } from "../../../app/module-cli.ts";

/** `query upgrade …` and `tx upgrade …`. */
export const upgradeCli: ModuleCliRef = {
  name: "upgrade",
  query: "Querying commands for the upgrade module",
  tx: "Upgrade transaction subcommands",
  types: async () => [
    (await import("../../../gen/chain/upgrade/v1beta1/query_pb.js")).file_chain_upgrade_v1beta1_query,
    (await import("../../../gen/chain/upgrade/v1beta1/tx_pb.js")).file_chain_upgrade_v1beta1_tx,
  ],
  load: async () => (await import("./module-cli.ts")).upgradeModuleCli,
};
