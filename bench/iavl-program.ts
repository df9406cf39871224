// Builds and runs bench/iavl (the store workloads against cosmos/iavl v1.2.2 on goleveldb) for iavl.bench.ts.
//
// The binary is built with the machine's `go` into bench/iavl/bin/ (gitignored), named by a digest of the
// program's sources and module files so an edit rebuilds it and an unchanged program is built once. Where `go` is
// not installed or the build fails, `buildIavlProgram` says why instead of a path: the bench then prints the
// figures as skipped, never a made-up number.
import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const programDir = join(dirname(fileURLToPath(import.meta.url)), "iavl");
const SOURCES = ["main.go", "rewrite.go", "go.mod", "go.sum"];

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

/** What `iavl-bench rewrite` prints: every record of the stepped-migration bench rewritten in one version. */
export interface IavlRewriteResult {
  records: number;
  /** Loading the latest version. */
  openMs: number;
  /** The rewrite, SaveVersion and the synced commit info: the block at H. */
  blockMs: number;
  /** The process's peak RSS (open and rewrite). */
  maxRssMiB: number;
}

/** Runs one workload of the program and parses the JSON object it prints. */
export async function runIavlProgram<T>(path: string, args: string[]): Promise<T> {
  const { stdout } = await run(path, args, { maxBuffer: 16 * 2 ** 20 });
  return JSON.parse(stdout) as T;
}

/** A phase of the read workload: reads at the latest version, 1,000 versions back, or proofs at the latest. */
export type ReadPhase = "latest" | "back" | "proofs";

/** The read workload held open by `iavl-bench serve-reads`: one timed pass per call, in microseconds per operation. */
export interface IavlReadSession {
  phase(name: ReadPhase): Promise<number>;
  close(): Promise<void>;
}

/**
 * Starts `iavl-bench serve-reads` (it builds its tree, then times one phase per line it is sent) and resolves once
 * the tree is ready, so the bench can run IAVL's passes and its own in alternation.
 */
export async function startIavlReads(path: string, args: string[]): Promise<IavlReadSession> {
  const child = spawn(path, ["serve-reads", ...args], { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<Record<string, unknown>> => {
    const line = await lines.next();
    if (line.done) {
      const code = await exited;
      throw new Error(`iavl-bench serve-reads exited (${code}): ${stderr.trim() || "no output"}`);
    }
    return JSON.parse(line.value) as Record<string, unknown>;
  };
  const ready = await next();
  if (ready.ready !== true)
    throw new Error(`iavl-bench serve-reads: expected {"ready":true}, got ${JSON.stringify(ready)}`);
  return {
    async phase(name) {
      child.stdin.write(`${name}\n`);
      const got = await next();
      if (got.phase !== name || typeof got.usPerOp !== "number") {
        throw new Error(`iavl-bench serve-reads: expected phase ${name}, got ${JSON.stringify(got)}`);
      }
      return got.usPerOp;
    },
    async close() {
      child.stdin.end();
      const code = await exited;
      if (code !== 0) throw new Error(`iavl-bench serve-reads exited (${code}): ${stderr.trim()}`);
    },
  };
}
