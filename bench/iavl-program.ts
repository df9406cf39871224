// Builds and runs bench/iavl (the store workloads against cosmos/iavl v1.2.2 on goleveldb) for iavl.bench.ts.
//
// The binary is built with the machine's `go` into bench/iavl/bin/ (gitignored), named by a digest of the
// program's sources and module files so an edit rebuilds it and an unchanged program is built once. Where `go` is
// not installed or the build fails, `buildIavlProgram` says why instead of a path: the bench then prints the
// figures as skipped, never a made-up number.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const programDir = join(dirname(fileURLToPath(import.meta.url)), "iavl");
const SOURCES = ["main.go", "go.mod", "go.sum"];

/** The built program, or why there is none. */
export type IavlProgram = { path: string; goVersion: string } | { skipped: string };

/** Builds the program when needed (`go build`, module downloads through the go command's own proxy setting). */
export async function buildIavlProgram(): Promise<IavlProgram> {
  let goVersion: string;
  try {
    goVersion = (await run("go", ["version"])).stdout.trim();
  } catch {
    return { skipped: "Go is not installed (no `go` on PATH), so IAVL's side cannot be built" };
  }
  const digest = createHash("sha256");
  for (const f of SOURCES) digest.update(readFileSync(join(programDir, f)));
  digest.update(goVersion);
  const bin = join(programDir, "bin");
  const path = join(bin, `iavl-bench-${digest.digest("hex").slice(0, 16)}`);
  if (existsSync(path)) return { path, goVersion };
  mkdirSync(bin, { recursive: true });
  const partial = `${path}.${process.pid}.partial`;
  try {
    await run("go", ["build", "-o", partial, "."], { cwd: programDir, maxBuffer: 16 * 2 ** 20 });
  } catch (err) {
    const stderr = String((err as { stderr?: string }).stderr ?? (err as Error).message).trim();
    return { skipped: `go build of bench/iavl failed: ${stderr.split("\n").slice(-1)[0]}` };
  }
  renameSync(partial, path);
  return { path, goVersion };
}

/** What `iavl-bench commit` prints. */
export interface IavlCommitResult {
  roundsMs: number[];
  /** The process's CPU time in each round, every thread. */
  roundsCpuMs: number[];
  medianMs: number;
  writesPerSec: number;
}

/** What `iavl-bench reads` prints (microseconds per operation, medians of the rounds). */
export interface IavlReadsResult {
  latestUsPerRead: number;
  backUsPerRead: number;
  proofUsPerProof: number;
  proofBytesAvg: number;
}

/** Runs one workload of the program and parses the JSON object it prints. */
export async function runIavlProgram<T>(path: string, args: string[]): Promise<T> {
  const { stdout } = await run(path, args, { maxBuffer: 16 * 2 ** 20 });
  return JSON.parse(stdout) as T;
}
