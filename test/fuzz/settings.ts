// The fuzz suite's budget, shared by every `*.fuzz.test.ts` under test/fuzz/. In CI (`npm test`) each property
// runs a small number of cases from a fixed seed, so a failure is reproducible from the log alone; `npm run fuzz`
// sets CHAIND_FUZZ_SEED to a random seed and CHAIND_FUZZ_RUNS higher, and prints the seed of any failure.
import type { Parameters } from "fast-check";

/** The seed CI uses when CHAIND_FUZZ_SEED is not set. */
export const CI_FUZZ_SEED = 20261129;

/** Reads a positive integer from the environment, refusing anything else so a typo does not fuzz nothing. */
function positiveIntegerFromEnv(name: string): number | undefined {
  const text = process.env[name];
  if (text === undefined || text === "") return undefined;
  if (!/^-?\d+$/.test(text)) throw new Error(`${name} must be an integer, got ${JSON.stringify(text)}`);
  return Number(text);
}

/**
 * fast-check parameters for one property: `ciRuns` cases by default (keep it small: CI runs every property), scaled
 * by CHAIND_FUZZ_RUNS_FACTOR under `npm run fuzz`; the seed from CHAIND_FUZZ_SEED or the fixed CI seed.
 */
export function fuzzParameters<T>(ciRuns: number): Parameters<T> {
  const factor = positiveIntegerFromEnv("CHAIND_FUZZ_RUNS_FACTOR") ?? 1;
  const seed = positiveIntegerFromEnv("CHAIND_FUZZ_SEED") ?? CI_FUZZ_SEED;
  return { numRuns: Math.max(1, ciRuns * factor), seed, endOnFailure: true };
}
