// The network's readiness for the scheduled plan, from the recorded signals (readiness-store.ts) and the bonded
// validator set: Query/UpgradeReadiness answers it, and the readiness gate (postponing a plan) decides by it.
import type { Context } from "../../app/context.ts";
import { decFromInt, formatDecimal, quoDec } from "../../app/dec.ts";
import type { Plan } from "../../gen/chain/upgrade/v1beta1/upgrade_pb.js";
import type { UpgradeKeeper } from "./keeper.ts";
import { readinessSignals } from "./readiness-store.ts";

/** One bonded validator as the readiness needs it (the staking keeper knows them). */
export interface BondedValidator {
  /** `chainvaloper1…`. */
  operatorAddress: string;
  /** The 20-byte consensus address its precommits are signed under. */
  consensusAddress: Uint8Array;
  /** Consensus voting power. */
  power: bigint;
}

/** Reads the bonded validator set at the context's height. */
export type BondedValidatorsReader = (ctx: Context) => Promise<BondedValidator[]>;

/** One validator's line of the readiness. */
export interface ValidatorReadinessLine {
  operatorAddress: string;
  power: bigint;
  ready: boolean;
  lastSignalHeight: bigint;
}

/** The readiness of the network for the scheduled plan. */
export interface Readiness {
  plan: Plan | undefined;
  /** The last height whose signals were recorded (0 when none was). */
  height: bigint;
  readyPower: bigint;
  totalPower: bigint;
  /** ready / total as a 10^18-scaled LegacyDec (0 without power or without plan). */
  readyFraction: bigint;
  validators: ValidatorReadinessLine[];
}

/**
 * The readiness at the context's height: every bonded validator, sorted by power descending then operator address,
 * ready when its latest recorded signal names the scheduled plan.
 */
export async function readinessOf(
  ctx: Context,
  keeper: UpgradeKeeper,
  bonded: BondedValidatorsReader,
): Promise<Readiness> {
  const plan = await keeper.getUpgradePlan(ctx);
  const signals = await readinessSignals(ctx, keeper.storeKey);
  let height = 0n;
  for (const signal of signals.values()) if (signal.height > height) height = signal.height;
  let readyPower = 0n;
  let totalPower = 0n;
  const validators: ValidatorReadinessLine[] = [];
  for (const validator of await bonded(ctx)) {
    const signal = signals.get(Buffer.from(validator.consensusAddress).toString("hex").toUpperCase());
    const ready = plan !== undefined && signal !== undefined && signal.plan === plan.name;
    totalPower += validator.power;
    if (ready) readyPower += validator.power;
    validators.push({
      operatorAddress: validator.operatorAddress,
      power: validator.power,
      ready,
      lastSignalHeight: signal?.height ?? 0n,
    });
  }
  validators.sort((a, b) =>
    a.power !== b.power
      ? a.power > b.power
        ? -1
        : 1
      : a.operatorAddress < b.operatorAddress
        ? -1
        : a.operatorAddress > b.operatorAddress
          ? 1
          : 0,
  );
  const readyFraction = totalPower === 0n ? 0n : quoDec(decFromInt(readyPower), decFromInt(totalPower));
  return { plan, height, readyPower, totalPower, readyFraction, validators };
}

/** LegacyDec text of a 10^18-scaled fraction, e.g. `0.750000000000000000`. */
export function fractionText(fraction: bigint): string {
  return formatDecimal(fraction);
}
