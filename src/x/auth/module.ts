// The auth module: accounts, account numbers, module accounts, params; its ante handler runs every tx.
import type { JsonValue } from "@bufbuild/protobuf";
import type { Context } from "../../app/context.ts";
import type { AppModule, ServiceRegistrar } from "../../app/module.ts";
import { file_chain_auth_v1beta1_auth } from "../../gen/chain/auth/v1beta1/auth_pb.js";
import { Query } from "../../gen/chain/auth/v1beta1/query_pb.js";
import { Msg } from "../../gen/chain/auth/v1beta1/tx_pb.js";
import { defaultAuthGenesis, exportAuthGenesis, initAuthGenesis, validateAuthGenesis } from "./genesis.ts";
import type { AccountKeeper } from "./keeper.ts";
import { AUTH_MODULE_NAME, AUTH_STORE_KEY } from "./keys.ts";
import { authMsgServer } from "./msg-server.ts";
import { authQueryServer } from "./query-server.ts";

/** The auth module's consensus version. */
export const AUTH_CONSENSUS_VERSION = 1n;

/** The auth module around `keeper`. */
export function authModule(keeper: AccountKeeper): AppModule {
  return {
    name: AUTH_MODULE_NAME,
    consensusVersion: AUTH_CONSENSUS_VERSION,
    storeKeys: [AUTH_STORE_KEY],
    types: [file_chain_auth_v1beta1_auth],
    defaultGenesis: () => defaultAuthGenesis(),
    validateGenesis: (genesis: JsonValue) => validateAuthGenesis(genesis),
    async initGenesis(ctx: Context, genesis: JsonValue) {
      await initAuthGenesis(ctx, keeper, genesis);
      return undefined;
    },
    exportGenesis: (ctx: Context) => exportAuthGenesis(ctx, keeper),
    registerServices(registrar: ServiceRegistrar) {
      registrar.registerMsgService(Msg, authMsgServer(keeper));
      registrar.registerQueryService(Query, authQueryServer(keeper));
    },
  };
}
