// The fuzz suite's budget, shared by every `*.fuzz.test.ts` under test/fuzz/. In CI (`npm test`) each property
// runs a small number of cases from a fixed seed, so a failure is reproducible from the log alone; `npm run fuzz`
// (scripts/fuzz.ts) sets CHAIND_FUZZ_SEED to a random seed and CHAIND_FUZZ_RUNS_FACTOR higher, and prints the seed of
// any failure so that `npm run fuzz -- --seed <seed>` replays it.
import type { Parameters } from "fast-check";

/** The seed CI uses when CHAIND_FUZZ_SEED is not set. */
export const CI_FUZZ_SEED = 20261129;

/** The environment variable holding the seed (any 32-bit integer). */
export const SEED_VARIABLE = "CHAIND_FUZZ_SEED";

/** The environment variable multiplying every property's CI case count (a positive integer). */
export const RUNS_FACTOR_VARIABLE = "CHAIND_FUZZ_RUNS_FACTOR";

/** Reads an integer from the environment, refusing anything else so a typo does not silently fuzz with defaults. */
function integerFromEnv(name: string, min: number, max: number): number | undefined {
  const text = process.env[name];
  if (text === undefined || text === "") return undefined;
  const value = /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`);
  }
  return value;
}

/** The seed of this run: CHAIND_FUZZ_SEED, or the fixed CI seed. */
export function fuzzSeed(): number {
  // fast-check takes the seed as a 32-bit integer.
  return integerFromEnv(SEED_VARIABLE, -(2 ** 31), 2 ** 31 - 1) ?? CI_FUZZ_SEED;
}

/** The case-count multiplier of this run: CHAIND_FUZZ_RUNS_FACTOR, or 1. */
export function fuzzRunsFactor(): number {
  return integerFromEnv(RUNS_FACTOR_VARIABLE, 1, 1_000_000) ?? 1;
}

/**
 * fast-check parameters for one property: `ciRuns` cases by default (keep it small: CI runs every property), scaled
 * by CHAIND_FUZZ_RUNS_FACTOR under `npm run fuzz`; the seed from CHAIND_FUZZ_SEED or the fixed CI seed. The first
 * counterexample is shrunk to a small one (shrinking, not the search, is what makes a finding readable), and
 * fast-check's message prints it with the seed and path that replay it.
 *
 * @example fc.assert(fc.property(fc.string(), (text) => check(text)), fuzzParameters(200))
 */
export function fuzzParameters<T>(ciRuns: number): Parameters<T> {
  return { numRuns: Math.max(1, ciRuns * fuzzRunsFactor()), seed: fuzzSeed() };
}
