// The gov AppModule: genesis, the Msg and Query services and the EndBlocker.
import type { JsonValue, Registry } from "@bufbuild/protobuf";
import type { Context } from "../../app/context.ts";
import type { AppModule, ServiceRegistrar } from "../../app/module.ts";
import { buildTypeRegistry } from "../../app/type-registry.ts";
import { file_chain_gov_v1_genesis } from "../../gen/chain/gov/v1/genesis_pb.js";
import { file_chain_gov_v1_gov } from "../../gen/chain/gov/v1/gov_pb.js";
import { file_chain_gov_v1_query, Query } from "../../gen/chain/gov/v1/query_pb.js";
import { file_chain_gov_v1_tx, Msg } from "../../gen/chain/gov/v1/tx_pb.js";
import { govEndBlocker } from "./end-block.ts";
import {
  defaultGovGenesis,
  exportGovGenesis,
  govGenesisFromJson,
  govGenesisToJson,
  initGovGenesis,
  validateGovGenesis,
} from "./genesis.ts";
import type { GovKeeper, GovMsgRouter } from "./keeper.ts";
import { GOV_MODULE_NAME, GOV_STORE_KEY } from "./keys.ts";
import { govMsgServer } from "./msg-server.ts";
import { govQueryServer } from "./query-server.ts";

/** Upstream v0.50's gov consensus version. */
export const GOV_CONSENSUS_VERSION = 5n;

/** The part of the App gov binds to: the Msg router (proposal execution) and the type registry (genesis JSON). */
export interface GovApp {
  msgRouter: GovMsgRouter;
  typeRegistry: Registry;
}

/** The gov module; `bind(app)` after createApp gives it the app's Msg router and type registry. */
export interface GovModule extends AppModule {
  bind(app: GovApp): void;
}

/**
 * The gov module. Put it after auth, bank and staking in InitGenesis order; in EndBlock upstream
 * runs gov before staking. Call `bind(app)` once the App exists.
 *
 * @example
 * const gov = govModule(govKeeper);
 * const app = createApp({ moduleManager: new ModuleManager([auth, bank, staking, gov, genutil]), ... });
 * gov.bind(app);
 */
export function govModule(keeper: GovKeeper): GovModule {
  const ownTypes = [file_chain_gov_v1_gov, file_chain_gov_v1_tx, file_chain_gov_v1_query, file_chain_gov_v1_genesis];
  let registry: Registry = buildTypeRegistry(ownTypes);
  return {
    name: GOV_MODULE_NAME,
    consensusVersion: GOV_CONSENSUS_VERSION,
    storeKeys: [GOV_STORE_KEY],
    types: ownTypes,

    bind(app: GovApp): void {
      keeper.setMsgRouter(app.msgRouter);
      registry = app.typeRegistry;
    },

    defaultGenesis(): JsonValue {
      return govGenesisToJson(defaultGovGenesis(), registry);
    },

    validateGenesis(genesis: JsonValue): void {
      validateGovGenesis(govGenesisFromJson(genesis, registry));
    },

    async initGenesis(ctx: Context, genesis: JsonValue) {
      const state = govGenesisFromJson(genesis, registry);
      validateGovGenesis(state);
      await initGovGenesis(ctx, keeper, state);
      return undefined;
    },

    async exportGenesis(ctx: Context): Promise<JsonValue> {
      return govGenesisToJson(await exportGovGenesis(ctx, keeper), registry);
    },

    registerServices(registrar: ServiceRegistrar): void {
      registrar.registerMsgService(Msg, govMsgServer(keeper));
      registrar.registerQueryService(Query, govQueryServer(keeper));
    },

    async endBlock(ctx: Context) {
      await govEndBlocker(ctx, keeper);
      return undefined;
    },
  };
}
