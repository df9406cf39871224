// The bank module's CLI, light (the ModuleCli contract, src/app/module-cli.ts): `query bank …`, `tx bank send`.
import type { ModuleCliRef } from "../../../app/module-cli.ts";

/** `query bank …` (light: its answers hold no Any and need no key) and `tx bank …`. */
export const bankCli: ModuleCliRef = {
  name: "bank",
  query: "Querying commands for the bank module",
  tx: "Bank transaction subcommands",
  lightQuery: true,
  types: async () => [
    (await import("../../../gen/chain/bank/v1beta1/bank_pb.js")).file_chain_bank_v1beta1_bank,
    (await import("../../../gen/chain/bank/v1beta1/query_pb.js")).file_chain_bank_v1beta1_query,
    (await import("../../../gen/chain/bank/v1beta1/tx_pb.js")).file_chain_bank_v1beta1_tx,
  ],
  load: async () => (await import("./cli.ts")).bankModuleCli,
};
