// `npm run fuzz`: runs the fuzz suite (every test/fuzz/*.fuzz.test.ts) longer than CI does, from a random seed, and
// prints the seed of a failure so the exact run can be replayed. CI runs the same files through `npm test` with a
// fixed seed and each property's small case count (test/fuzz/settings.ts).
//
//   npm run fuzz                                   random seed, runs factor 50, every fuzz file
//   npm run fuzz -- --seed 123456                  replay a seed
//   npm run fuzz -- --runs-factor 500 test/fuzz/genesis.fuzz.test.ts
import { spawnSync } from "node:child_process";
import { randomInt } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { RUNS_FACTOR_VARIABLE, SEED_VARIABLE } from "../test/fuzz/settings.ts";

const FUZZ_DIR = "test/fuzz";
const DEFAULT_RUNS_FACTOR = 50;
const USAGE = "usage: npm run fuzz -- [--seed <32-bit integer>] [--runs-factor <positive integer>] [files or folders]";

interface Options {
  seed: number;
  runsFactor: number;
  paths: string[];
}

function fail(message: string): never {
  console.error(`fuzz: ${message}\n${USAGE}`);
  process.exit(2);
}

function integerArgument(flag: string, text: string | undefined, min: number, max: number): number {
  const value = text !== undefined && /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    fail(`${flag} expects an integer from ${min} to ${max}, got ${JSON.stringify(text ?? "")}`);
  }
  return value;
}

function parseArguments(args: readonly string[]): Options {
  // A fresh seed for each run unless one is given: the point of a long run is to explore new cases.
  const options: Options = { seed: randomInt(0, 2 ** 31), runsFactor: DEFAULT_RUNS_FACTOR, paths: [] };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    if (flag === "--help" || flag === "-h") {
      console.log(USAGE);
      process.exit(0);
    } else if (flag === "--seed") {
      options.seed = integerArgument("--seed", inline ?? args[++i], -(2 ** 31), 2 ** 31 - 1);
    } else if (flag === "--runs-factor") {
      options.runsFactor = integerArgument("--runs-factor", inline ?? args[++i], 1, 1_000_000);
    } else if (flag.startsWith("-")) {
      fail(`unknown option ${flag}`);
    } else {
      options.paths.push(arg);
    }
  }
  return options;
}

function collect(path: string, out: string[]): void {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(path);
  } catch {
    fail(`no such file or folder: ${path}`);
  }
  if (stat.isFile()) {
    out.push(path);
    return;
  }
  for (const name of readdirSync(path)) {
    const child = join(path, name);
    if (name.endsWith(".fuzz.test.ts") || statSync(child).isDirectory()) collect(child, out);
  }
}

const options = parseArguments(process.argv.slice(2));
const files: string[] = [];
for (const path of options.paths.length > 0 ? options.paths : [FUZZ_DIR]) collect(path, files);
files.sort();
if (files.length === 0) fail(`no *.fuzz.test.ts files under ${options.paths.join(", ") || FUZZ_DIR}`);

const replay = [
  "npm run fuzz --",
  `--seed ${options.seed}`,
  `--runs-factor ${options.runsFactor}`,
  ...options.paths,
].join(" ");
console.log(`fuzz: seed ${options.seed}, runs factor ${options.runsFactor}, ${files.length} files (replay: ${replay})`);

// No per-test timeout: a long run is expected to take minutes, and a hang shows as the runner never ending.
const result = spawnSync(
  process.execPath,
  ["--test", "--test-concurrency=2", ...files.map((file) => relative(".", file))],
  {
    stdio: "inherit",
    env: { ...process.env, [SEED_VARIABLE]: String(options.seed), [RUNS_FACTOR_VARIABLE]: String(options.runsFactor) },
  },
);
const status = result.status ?? 1;
if (status === 0) {
  console.log(`fuzz: every property held (seed ${options.seed}, runs factor ${options.runsFactor})`);
} else {
  const rule = "=".repeat(78);
  console.error(
    [
      "",
      rule,
      `FUZZ FAILURE: seed ${options.seed}, runs factor ${options.runsFactor}`,
      "fast-check's message above shows the shrunk counterexample; run the same cases again with:",
      `  ${replay}`,
      rule,
    ].join("\n"),
  );
}
process.exit(status);
