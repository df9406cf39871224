// The upgrade module's vote extension: each precommit carries this node's readiness record for the scheduled plan
// (readiness-record.ts, local-readiness.ts). ExtendVote is not consensus (it reads files and the environment);
// VerifyVoteExtension is (it looks at the bytes only). In PreBlock, the previous height's extended commit, which the
// App checked in ProcessProposal, becomes each precommitting validator's latest signal (readiness-store.ts).
import type { Context } from "../../app/context.ts";
import type { VoteExtensionHandler } from "../../app/vote-extensions.ts";
import type { ExtendedCommitInfo } from "../../gen/tendermint/abci/types_pb.js";
import { BlockIDFlag } from "../../gen/tendermint/types/validator_pb.js";
import type { UpgradeKeeper } from "./keeper.ts";
import { localReadiness } from "./local-readiness.ts";
import { getUpgradeParams } from "./params.ts";
import { isDue } from "./plan.ts";
import { type BondedValidatorsReader, readinessOf } from "./readiness-query.ts";
import { decodeReadinessRecord, encodeReadinessRecord, isAcceptableReadinessExtension } from "./readiness-record.ts";
import { setReadinessSignal, setVoteExtensionsEnableHeight, voteExtensionsEnableHeight } from "./readiness-store.ts";

/** Options of {@link readinessVoteExtensions}. */
export interface ReadinessVoteExtensionOptions {
  /** The bonded validator set (for the readiness gate's question from the replay mode); default none. */
  bondedValidators?: BondedValidatorsReader;
  /** The ed25519 consensus key of a validator by consensus address (the staking keeper knows them). */
  consensusKeyOf: (ctx: Context, address: Uint8Array) => Promise<Uint8Array | undefined>;
  /** Upgrades this binary carries beyond the keeper's handlers (the later releases of its release line). */
  carriedUpgrades?: Iterable<string>;
  /** The environment to read DAEMON_HOME and DAEMON_NAME from; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** `<os>/<arch>` in Go's names; default this machine's. */
  platform?: string;
  /** Told when the plan cannot be read; the node then signals nothing rather than stopping. */
  onError?: (error: unknown) => void;
}

/**
 * The vote-extension handler that signals readiness for the keeper's scheduled plan.
 *
 * @example
 * createApp({ ..., voteExtensions: readinessVoteExtensions(upgradeKeeper, { consensusKeyOf }) });
 */
export function readinessVoteExtensions(
  keeper: UpgradeKeeper,
  options: ReadinessVoteExtensionOptions,
): VoteExtensionHandler {
  const carried = new Set(options.carriedUpgrades ?? []);
  const carries = (name: string) => keeper.hasHandler(name) || carried.has(name);
  return {
    async extendVote(ctx: Context | undefined): Promise<Uint8Array> {
      if (ctx === undefined) return new Uint8Array(0);
      try {
        const plan = await keeper.getUpgradePlan(ctx);
        const record = await localReadiness({
          plan: plan === undefined ? undefined : { name: plan.name, info: plan.info },
          carries,
          env: options.env ?? process.env,
          platform: options.platform,
        });
        // Not ready: an empty extension says the same in no bytes (and is what a node without the feature sends).
        return record.plan === "" ? new Uint8Array(0) : encodeReadinessRecord(record);
      } catch (error) {
        options.onError?.(error);
        return new Uint8Array(0);
      }
    },
    verifyVoteExtension(extension: Uint8Array): boolean {
      return isAcceptableReadinessExtension(extension);
    },
    async holdsDuePlan(ctx: Context): Promise<boolean> {
      const plan = await keeper.getUpgradePlan(ctx);
      if (plan === undefined || !isDue(plan, ctx.blockHeight) || keeper.isSkipHeight(ctx.blockHeight)) return false;
      const params = await getUpgradeParams(ctx, keeper.storeKey);
      if (params.readinessThreshold === 0n) return false;
      const readiness = await readinessOf(ctx, keeper, options.bondedValidators ?? (async () => []));
      return readiness.readyFraction < params.readinessThreshold;
    },
    enableHeight: (ctx) => voteExtensionsEnableHeight(ctx, keeper.storeKey),
    setEnableHeight: (ctx, height) => setVoteExtensionsEnableHeight(ctx, height, keeper.storeKey),
    consensusKeyOf: (ctx, address) => options.consensusKeyOf(ctx, address),
    async recordExtendedCommit(ctx: Context, commit: ExtendedCommitInfo): Promise<void> {
      const height = ctx.blockHeight - 1n;
      for (const vote of commit.votes) {
        // Only a validator that precommitted the block signed an extension; the others said nothing this height.
        if (vote.blockIdFlag !== BlockIDFlag.BLOCK_ID_FLAG_COMMIT || vote.validator === undefined) continue;
        const record = decodeReadinessRecord(vote.voteExtension);
        setReadinessSignal(ctx, vote.validator.address, { plan: record.plan, height }, keeper.storeKey);
      }
    },
  };
}
