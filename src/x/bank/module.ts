// The bank module: balances, supply, sends, denom metadata.
import type { JsonValue } from "@bufbuild/protobuf";
import type { Context } from "../../app/context.ts";
import type { AppModule, ServiceRegistrar } from "../../app/module.ts";
import { file_chain_bank_v1beta1_bank } from "../../gen/chain/bank/v1beta1/bank_pb.js";
import { Query } from "../../gen/chain/bank/v1beta1/query_pb.js";
import { Msg } from "../../gen/chain/bank/v1beta1/tx_pb.js";
import { defaultBankGenesis, exportBankGenesis, initBankGenesis, validateBankGenesis } from "./genesis.ts";
import { totalSupplyInvariant } from "./invariants.ts";
import type { BankKeeper } from "./keeper.ts";
import { BANK_MODULE_NAME, BANK_STORE_KEY } from "./keys.ts";
import { bankMsgServer } from "./msg-server.ts";
import { bankQueryServer } from "./query-server.ts";

/** The bank module's consensus version. */
export const BANK_CONSENSUS_VERSION = 1n;

/** The bank module around `keeper`. */
export function bankModule(keeper: BankKeeper): AppModule {
  return {
    name: BANK_MODULE_NAME,
    consensusVersion: BANK_CONSENSUS_VERSION,
    storeKeys: [BANK_STORE_KEY],
    types: [file_chain_bank_v1beta1_bank],
    defaultGenesis: () => defaultBankGenesis(),
    validateGenesis: (genesis: JsonValue) => validateBankGenesis(genesis),
    async initGenesis(ctx: Context, genesis: JsonValue) {
      await initBankGenesis(ctx, keeper, genesis);
      return undefined;
    },
    exportGenesis: (ctx: Context) => exportBankGenesis(ctx, keeper),
    invariants: [totalSupplyInvariant(keeper)],
    registerServices(registrar: ServiceRegistrar) {
      registrar.registerMsgService(Msg, bankMsgServer(keeper));
      registrar.registerQueryService(Query, bankQueryServer(keeper));
    },
  };
}
