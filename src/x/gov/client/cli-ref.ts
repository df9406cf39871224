// The gov module's CLI, light (the ModuleCli contract, src/app/module-cli.ts): `query gov …`, `tx gov …`.
import type { ModuleCliRef } from "../../../app/module-cli.ts";

/** `query gov …` and `tx gov …`. */
export const govCli: ModuleCliRef = {
  name: "gov",
  query: "Querying commands for the gov module",
  tx: "Governance transactions subcommands",
  types: async () => [
    (await import("../../../gen/chain/gov/v1/gov_pb.js")).file_chain_gov_v1_gov,
    (await import("../../../gen/chain/gov/v1/query_pb.js")).file_chain_gov_v1_query,
    (await import("../../../gen/chain/gov/v1/tx_pb.js")).file_chain_gov_v1_tx,
  ],
  load: async () => (await import("./module-cli.ts")).govModuleCli,
};
