// The staking module's CLI, light (the ModuleCli contract, src/app/module-cli.ts): `query staking …`, `tx staking …`.
import type { ModuleCliRef } from "../../../app/module-cli.ts";

/** `query staking …` and `tx staking …`. */
export const stakingCli: ModuleCliRef = {
  name: "staking",
  query: "Querying commands for the staking module",
  tx: "Staking transaction subcommands",
  types: async () => [
    (await import("../../../gen/chain/staking/v1beta1/query_pb.js")).file_chain_staking_v1beta1_query,
    (await import("../../../gen/chain/staking/v1beta1/tx_pb.js")).file_chain_staking_v1beta1_tx,
  ],
  load: async () => (await import("./module-cli.ts")).stakingModuleCli,
};
