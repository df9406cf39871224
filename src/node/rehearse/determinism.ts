// The determinism check's second run: the same upgrade on a copy of the same state, in a separate process of this
// binary (`upgrade rehearse-child`, hidden) with another time zone and locale (TZ, LANG, LC_ALL: ICU reads them at
// start-up, so they cannot change inside one process), its wall clock shifted and Math.random seeded (perturb.ts).
// The child commits its result in its own work home and prints its app hash; the parent compares.
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { fromBinary } from "@bufbuild/protobuf";
import { RequestFinalizeBlockSchema } from "../../gen/tendermint/abci/types_pb.js";
import type { ChainDefinition, Release } from "../../runtime/release.ts";
import { closeVerifyPool } from "../../x/auth/verify-pool.ts";
import { currentEnvironment, otherEnvironment, seedRandom, shiftWallClock } from "./perturb.ts";
import { runUpgrade } from "./upgrade-run.ts";

/** How to run this binary's CLI: the executable and the arguments before the command (`node entry.ts`). */
export interface ChildCommand {
  command: string;
  args: string[];
}

/** The second run's environment, as reported. */
export interface SecondEnvironment {
  timeZone: string;
  locale: string;
  clockOffsetMs: number;
  randomSeed: number;
}

/** What the second run gave. */
export interface SecondRun {
  environment: SecondEnvironment;
  /** Its app hash after the upgrade, or undefined when it failed (then `error` says how). */
  appHash?: string;
  error?: string;
}

/** A clock 37 days, 5 hours and 3 minutes ahead: another day, hour and minute in every time zone. */
export const CLOCK_OFFSET_MS = ((37 * 24 + 5) * 60 + 3) * 60_000;
export const RANDOM_SEED = 0x5eed_c0de;

/** Runs the second process on `workHome` (a copy of the state) with block H+1 from `blockFile`. */
export async function runSecondProcess(options: {
  command: ChildCommand;
  workHome: string;
  name: string;
  blockFile: string;
  chainId: string;
}): Promise<SecondRun> {
  const { timeZone, locale } = otherEnvironment();
  const args = [
    ...options.command.args,
    "--home",
    options.workHome,
    "upgrade",
    "rehearse-child",
    options.name,
    "--block",
    options.blockFile,
    "--chain-id",
    options.chainId,
    "--clock-offset",
    String(CLOCK_OFFSET_MS),
    "--random-seed",
    String(RANDOM_SEED),
  ];
  const env = { ...process.env, TZ: timeZone, LANG: locale, LC_ALL: locale, LANGUAGE: "" };
  const child = spawn(options.command.command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", resolve);
  });
  const reported = parseChildOutput(stdout);
  const environment: SecondEnvironment = {
    timeZone: reported?.time_zone ?? timeZone,
    locale: reported?.locale ?? locale,
    clockOffsetMs: CLOCK_OFFSET_MS,
    randomSeed: RANDOM_SEED,
  };
  if (code !== 0 || reported?.app_hash === undefined) {
    const last = stderr.trim().split("\n").at(-1) ?? "";
    return { environment, error: `the second run exited with status ${code}${last === "" ? "" : `: ${last}`}` };
  }
  return { environment, appHash: reported.app_hash };
}

interface ChildOutput {
  app_hash?: string;
  time_zone?: string;
  locale?: string;
}

function parseChildOutput(stdout: string): ChildOutput | undefined {
  const line = stdout.trim().split("\n").at(-1);
  if (line === undefined || line === "") return undefined;
  try {
    return JSON.parse(line) as ChildOutput;
  } catch {
    return undefined;
  }
}

/** The child's side (`upgrade rehearse-child`): perturb, run, print one JSON line. */
export async function secondRunMain(options: {
  home: string;
  name: string;
  blockFile: string;
  chainId: string;
  clockOffsetMs: number;
  randomSeed: number;
  chain: ChainDefinition;
  release: Release;
}): Promise<string> {
  shiftWallClock(options.clockOffsetMs);
  seedRandom(options.randomSeed);
  const block = fromBinary(RequestFinalizeBlockSchema, new Uint8Array(await readFile(options.blockFile)));
  const { run, chain } = await runUpgrade({
    home: options.home,
    name: options.name,
    chain: options.chain,
    release: options.release,
    chainId: options.chainId,
    block,
    inspect: false,
  });
  await chain.app.close();
  await closeVerifyPool();
  const { timeZone, locale } = currentEnvironment();
  return JSON.stringify({ app_hash: run.appHashAfter, time_zone: timeZone, locale });
}
