// The upgrade Query service (docs/CONTRACT.md §2.9). Transport-free: gRPC, REST, ABCI Query and the CLI call these handlers.
import type { ServiceHandlers } from "../../app/module.ts";
import type { Query } from "../../gen/chain/upgrade/v1beta1/query_pb.js";
import { ErrNoModuleVersionFound } from "./errors.ts";
import type { UpgradeKeeper } from "./keeper.ts";
import { getUpgradeParams, paramsToProto } from "./params.ts";
import { type BondedValidatorsReader, fractionText, readinessOf } from "./readiness-query.ts";

/**
 * The Query service handlers:
 * - CurrentPlan: `{plan}`, or no plan (`{"plan":null}` in JSON);
 * - AppliedPlan: the height the named plan was applied at, 0 for an unknown name;
 * - ModuleVersions: every stored version sorted by name, or the one of `module_name`; an unknown module is
 *   `x/upgrade: QueryModuleVersions module <m> not found: module version not found` (upgrade 2, NotFound);
 * - Authority: the authority address;
 * - UpgradedConsensusState (deprecated): this chain has no IBC, so none is ever stored; upstream answers an
 *   empty response when there is none, and so do we (`{"upgraded_consensus_state":null}`);
 * - UpgradeReadiness: the bonded validators' readiness for the scheduled plan (readiness-query.ts); without a
 *   reader of the bonded set (a module wired without staking) the list is empty;
 * - Migrations: every stepped migration started on this chain, running or finished, in store order.
 */
export function upgradeQueryServer(
  keeper: UpgradeKeeper,
  bonded: BondedValidatorsReader = async () => [],
): ServiceHandlers<typeof Query> {
  return {
    async params(_request, ctx) {
      return { params: paramsToProto(await getUpgradeParams(ctx, keeper.storeKey)) };
    },
    async upgradeReadiness(_request, ctx) {
      const readiness = await readinessOf(ctx, keeper, bonded);
      return {
        plan: readiness.plan,
        height: readiness.height,
        readyPower: readiness.readyPower,
        totalPower: readiness.totalPower,
        readyFraction: fractionText(readiness.readyFraction),
        validators: readiness.validators,
      };
    },
    async currentPlan(_request, ctx) {
      return { plan: await keeper.getUpgradePlan(ctx) };
    },
    async appliedPlan(request, ctx) {
      return { height: await keeper.getDoneHeight(ctx, request.name) };
    },
    async moduleVersions(request, ctx) {
      if (request.moduleName === "") return { moduleVersions: await keeper.getModuleVersions(ctx) };
      const version = await keeper.getModuleVersion(ctx, request.moduleName);
      if (version === undefined) {
        throw ErrNoModuleVersionFound.wrap(`x/upgrade: QueryModuleVersions module ${request.moduleName} not found`);
      }
      return { moduleVersions: [{ name: request.moduleName, version }] };
    },
    async authority() {
      return { address: keeper.authority };
    },
    async upgradedConsensusState() {
      return {};
    },
    async migrations(_request, ctx) {
      return { migrations: await keeper.getMigrations(ctx) };
    },
  };
}
