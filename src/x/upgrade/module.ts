// The upgrade module as the app wires it: no genesis state of its own, consensus version 1, the upgrade guard in
// PreBlock and the apply/skip/halt in EndBlock.
import type { JsonValue } from "@bufbuild/protobuf";
import type { Context } from "../../app/context.ts";
import type { AppModule, ServiceRegistrar } from "../../app/module.ts";
import { file_chain_upgrade_v1beta1_query, Query } from "../../gen/chain/upgrade/v1beta1/query_pb.js";
import { file_chain_upgrade_v1beta1_tx, Msg } from "../../gen/chain/upgrade/v1beta1/tx_pb.js";
import { file_chain_upgrade_v1beta1_upgrade } from "../../gen/chain/upgrade/v1beta1/upgrade_pb.js";
import { upgradeEndBlock } from "./end-block.ts";
import type { UpgradeKeeper } from "./keeper.ts";
import { UPGRADE_MODULE_NAME } from "./keys.ts";
import { upgradeMsgServer } from "./msg-server.ts";
import { getUpgradeParams, setUpgradeParams, upgradeParamsFromGenesis, upgradeParamsToGenesis } from "./params.ts";
import { upgradePreBlock } from "./pre-block.ts";
import { upgradeQueryServer } from "./query-server.ts";
import type { BondedValidatorsReader } from "./readiness-query.ts";

/** The module's consensus version. */
export const UPGRADE_CONSENSUS_VERSION = 1n;

/** Options of {@link createUpgradeModule}. */
export interface UpgradeModuleOptions {
  keeper: UpgradeKeeper;
  /** The bonded validator set, for the readiness query and gate (buildChainApp reads it from staking). */
  bondedValidators?: BondedValidatorsReader;
}

/**
 * The upgrade AppModule. Declare it first among the pre-blockers, and among the end-blockers after gov (so a
 * proposal passing at H is executed before the plan is looked at) and before any module whose end-block should
 * already see the migrated state.
 *
 * @example
 * const upgrade = createUpgradeModule({ keeper });
 * // and, once the App exists, before app.load(): await installUpgrades(app, keeper, upgrades, options) (install.ts)
 */
export function createUpgradeModule(options: UpgradeModuleOptions): AppModule {
  const { keeper } = options;
  return {
    name: UPGRADE_MODULE_NAME,
    consensusVersion: UPGRADE_CONSENSUS_VERSION,
    storeKeys: [keeper.storeKey],
    types: [file_chain_upgrade_v1beta1_upgrade, file_chain_upgrade_v1beta1_tx, file_chain_upgrade_v1beta1_query],

    defaultGenesis(): JsonValue {
      return {};
    },
    validateGenesis(genesis: JsonValue): void {
      upgradeParamsFromGenesis(genesis);
    },
    async initGenesis(ctx: Context, genesis: JsonValue): Promise<undefined> {
      // Only the params (`{}` = the defaults, which store nothing); the full version map arrives through the App's
      // InitChain hook (wiring.ts).
      await setUpgradeParams(ctx, keeper.storeKey, upgradeParamsFromGenesis(genesis));
      return undefined;
    },
    async exportGenesis(ctx: Context): Promise<JsonValue> {
      return upgradeParamsToGenesis(await getUpgradeParams(ctx, keeper.storeKey));
    },

    registerServices(registrar: ServiceRegistrar): void {
      registrar.registerMsgService(Msg, upgradeMsgServer(keeper));
      registrar.registerQueryService(Query, upgradeQueryServer(keeper, options.bondedValidators));
    },

    preBlock(ctx: Context): Promise<void> {
      return upgradePreBlock(keeper, ctx, options.bondedValidators);
    },
    async endBlock(ctx: Context): Promise<undefined> {
      await upgradeEndBlock(keeper, ctx);
      return undefined;
    },
  };
}
