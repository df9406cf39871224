// The auth module's CLI, light (the ModuleCli contract, src/app/module-cli.ts): `query auth …`, and the auth
// types the CLI's registry needs (accounts and their public keys inside Any).
import type { ModuleCliRef } from "../../../app/module-cli.ts";

/** `query auth …`; no tx subcommand. */
export const authCli: ModuleCliRef = {
  name: "auth",
  query: "Querying commands for the auth module",
  types: async () => [
    (await import("../../../gen/chain/auth/v1beta1/query_pb.js")).file_chain_auth_v1beta1_query,
    (await import("../../../gen/chain/auth/v1beta1/tx_pb.js")).file_chain_auth_v1beta1_tx,
  ],
  load: async () => (await import("./cli.ts")).authModuleCli,
};
