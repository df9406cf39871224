// The staking AppModule: genesis, the Msg and Query services, the last commit's signers checked and historical info
// in BeginBlock, and the validator-set updates for the consensus engine in EndBlock.
import type { JsonValue } from "@bufbuild/protobuf";
import type { Context } from "../../app/context.ts";
import type { AppModule, ServiceRegistrar, ValidatorUpdate } from "../../app/module.ts";
import { file_chain_staking_v1beta1_genesis } from "../../gen/chain/staking/v1beta1/genesis_pb.js";
import { file_chain_staking_v1beta1_query, Query } from "../../gen/chain/staking/v1beta1/query_pb.js";
import { file_chain_staking_v1beta1_staking } from "../../gen/chain/staking/v1beta1/staking_pb.js";
import { file_chain_staking_v1beta1_tx, Msg } from "../../gen/chain/staking/v1beta1/tx_pb.js";
import {
  defaultStakingGenesis,
  exportStakingGenesis,
  initStakingGenesis,
  stakingGenesisFromJson,
  stakingGenesisToJson,
  validateStakingGenesis,
} from "./genesis.ts";
import type { StakingKeeper } from "./keeper.ts";
import { STAKING_MODULE_NAME, STAKING_STORE_KEY } from "./keys.ts";
import { assertLastCommitSignersKnown } from "./last-commit-signers.ts";
import { stakingMsgServer } from "./msg-server.ts";
import { stakingQueryServer } from "./query-server.ts";

/** Upstream v0.50's staking consensus version. */
export const STAKING_CONSENSUS_VERSION = 5n;

/**
 * The staking module. Put it after auth and bank in InitGenesis order (it checks the pools'
 * balances against the bank) and before gov and genutil; in EndBlock after gov, as upstream.
 *
 * @example
 * const staking = new StakingKeeper({ bankKeeper, accountKeeper });
 * const module = stakingModule(staking);
 */
export function stakingModule(keeper: StakingKeeper): AppModule {
  return {
    name: STAKING_MODULE_NAME,
    consensusVersion: STAKING_CONSENSUS_VERSION,
    storeKeys: [STAKING_STORE_KEY],
    types: [
      file_chain_staking_v1beta1_staking,
      file_chain_staking_v1beta1_tx,
      file_chain_staking_v1beta1_query,
      file_chain_staking_v1beta1_genesis,
    ],

    defaultGenesis(): JsonValue {
      return stakingGenesisToJson(defaultStakingGenesis());
    },

    validateGenesis(genesis: JsonValue): void {
      validateStakingGenesis(stakingGenesisFromJson(genesis));
    },

    async initGenesis(ctx: Context, genesis: JsonValue): Promise<ValidatorUpdate[] | undefined> {
      const state = stakingGenesisFromJson(genesis);
      validateStakingGenesis(state);
      return initStakingGenesis(ctx, keeper, state);
    },

    async exportGenesis(ctx: Context): Promise<JsonValue> {
      return stakingGenesisToJson(await exportStakingGenesis(ctx, keeper));
    },

    registerServices(registrar: ServiceRegistrar): void {
      registrar.registerMsgService(Msg, stakingMsgServer(keeper));
      registrar.registerQueryService(Query, stakingQueryServer(keeper));
    },

    async beginBlock(ctx: Context): Promise<void> {
      await assertLastCommitSignersKnown(ctx, keeper);
      await keeper.trackHistoricalInfo(ctx);
    },

    async endBlock(ctx: Context): Promise<ValidatorUpdate[] | undefined> {
      const updates = await keeper.applyAndReturnValidatorSetUpdates(ctx);
      await keeper.unbondAllMatureValidators(ctx);
      return updates;
    },
  };
}
