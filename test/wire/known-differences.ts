// The documented places where our schemas and cosmjs-types legitimately differ. Every entry must
// still be a real difference: the wire test fails on an entry that no longer matches anything.

/** Fields cosmjs-types has that our schema deliberately lacks, keyed by our full message name. */
export interface ExtraFieldsAllowance {
  /** cosmjs-types' (camelCase) names of the fields we do not define. */
  readonly fields: readonly string[];
  readonly reason: string;
}

// cosmjs-types 0.11 is generated from Cosmos SDK v0.53.4; our schemas follow v0.50 (docs/CONTRACT.md §1).
const v053 = "cosmjs-types 0.11 follows Cosmos SDK v0.53; these fields are new there and absent from the v0.50 schema";

/** Per message: cosmjs-types fields that our v0.50 schema does not have. */
export const allowedExtraCosmjsFields: ReadonlyMap<string, ExtraFieldsAllowance> = new Map([
  [
    "chain.tx.v1beta1.TxBody",
    // unordered (4) and timeout_timestamp (5) came with unordered transactions. A v0.50 node treats
    // them as unknown critical fields and rejects the tx, which is the behaviour docs/CONTRACT.md §4 asks for.
    { fields: ["timeoutTimestamp", "unordered"], reason: v053 },
  ],
]);

/** Messages of ours that cosmjs-types' corresponding module does not export, with the reason. */
export const allowedMissingInCosmjs: ReadonlyMap<string, string> = new Map<string, string>([
  [
    "chain.upgrade.v1beta1.QueryUpgradeReadinessRequest",
    "upgrade readiness (issue 31): chaind's own query, not upstream's",
  ],
  [
    "chain.upgrade.v1beta1.QueryUpgradeReadinessResponse",
    "upgrade readiness (issue 31): chaind's own query, not upstream's",
  ],
  ["chain.upgrade.v1beta1.ValidatorReadiness", "upgrade readiness (issue 31): chaind's own query, not upstream's"],
  [
    "chain.upgrade.v1beta1.QueryParamsRequest",
    "the readiness gate's params (issue 31): upstream x/upgrade has no params",
  ],
  [
    "chain.upgrade.v1beta1.QueryParamsResponse",
    "the readiness gate's params (issue 31): upstream x/upgrade has no params",
  ],
  ["chain.upgrade.v1beta1.MsgUpdateParams", "the readiness gate's params (issue 31): upstream x/upgrade has no params"],
  [
    "chain.upgrade.v1beta1.MsgUpdateParamsResponse",
    "the readiness gate's params (issue 31): upstream x/upgrade has no params",
  ],
  ["chain.upgrade.v1beta1.Params", "the readiness gate's params (issue 31): upstream x/upgrade has no params"],
  ["chain.upgrade.v1beta1.QueryMigrationsRequest", "stepped migrations (issue 32): chaind's own query, not upstream's"],
  [
    "chain.upgrade.v1beta1.QueryMigrationsResponse",
    "stepped migrations (issue 32): chaind's own query, not upstream's",
  ],
  ["chain.upgrade.v1beta1.SteppedMigration", "stepped migrations (issue 32): chaind's own, not upstream's"],
  ["chain.upgrade.v1beta1.SteppedMigrationRecord", "stepped migrations (issue 32): the upgrade store's record of one"],
]);
