// Test fixtures for chainvisor: temporary homes, fake node programs (small shell scripts), a local HTTP server and
// a way to run the real chainvisor CLI as a child process. Not a test file itself.
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
/** The chainvisor entry point. */
export const CHAINVISOR = join(here, "..", "..", "..", "src", "visor", "chainvisor.ts");
/** The Node 24 binary of the project (the system one may be older). */
export const NODE = process.execPath;

/** A temporary DAEMON_HOME. */
export interface TestHome {
  home: string;
  /** The environment for chainvisor: DAEMON_HOME, DAEMON_NAME=chaind, fast polling, plus `extra`. */
  env(extra?: Record<string, string>): Record<string, string>;
  path(...parts: string[]): string;
  read(...parts: string[]): Promise<string>;
  cleanup(): Promise<void>;
}

/**
 * A fresh home with `data/` and a `config/app.toml` whose REST API is disabled, so no test ever talks to a real node
 * that happens to listen on the default port.
 */
export async function createTestHome(options: { apiEnabled?: boolean } = {}): Promise<TestHome> {
  const home = await mkdtemp(join(tmpdir(), "chainvisor-test-"));
  await mkdir(join(home, "data"), { recursive: true });
  await mkdir(join(home, "config"), { recursive: true });
  if (options.apiEnabled !== true) await writeFile(join(home, "config", "app.toml"), "[api]\nenable = false\n");
  return {
    home,
    env: (extra = {}) => ({
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      DAEMON_HOME: home,
      DAEMON_NAME: "chaind",
      DAEMON_POLL_INTERVAL: "20ms",
      ...extra,
    }),
    path: (...parts) => join(home, ...parts),
    read: (...parts) => readFile(join(home, ...parts), "utf8"),
    cleanup: () => rm(home, { recursive: true, force: true }),
  };
}

/** What a fake node does when run (as a POSIX shell script; `$DAEMON_HOME` is inherited from chainvisor). */
export interface FakeNode {
  /** Recorded in `$DAEMON_HOME/runs.log` as `<label> <args>` on every run, pre-upgrade included. */
  label: string;
  /** Shell code for `pre-upgrade` (default: exit 0). */
  preUpgrade?: string;
  /** Shell code for a normal run (default: exit 0). */
  body?: string;
}

/** The text of a fake node script. */
export function fakeNodeScript(node: FakeNode): string {
  return [
    "#!/bin/sh",
    `echo "${node.label} $*" >> "$DAEMON_HOME/runs.log"`,
    `if [ "$1" = "pre-upgrade" ]; then`,
    node.preUpgrade ?? "exit 0",
    "fi",
    node.body ?? "exit 0",
    "",
  ].join("\n");
}

/** Writes a fake node script, executable. */
export async function writeFakeNode(path: string, node: FakeNode): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, fakeNodeScript(node));
  await chmod(path, 0o755);
  return path;
}

/** Shell code writing data/upgrade-info.json atomically, as the node does when it halts. */
export function writesPlan(plan: { name: string; height: number; info?: string }): string {
  const json = JSON.stringify({
    name: plan.name,
    time: "0001-01-01T00:00:00Z",
    height: plan.height,
    ...(plan.info ? { info: plan.info } : {}),
  });
  const quoted = `'${json.replace(/'/g, `'\\''`)}'`;
  return [
    `printf '%s' ${quoted} > "$DAEMON_HOME/data/upgrade-info.json.tmp"`,
    `mv "$DAEMON_HOME/data/upgrade-info.json.tmp" "$DAEMON_HOME/data/upgrade-info.json"`,
  ].join("\n");
}

/** Shell code creating `$DAEMON_HOME/<name>`. */
export function touches(name: string): string {
  return `: > "$DAEMON_HOME/${name}"`;
}

/** Result of a finished chainvisor run. */
export interface VisorResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A chainvisor process under test. */
export interface VisorProcess {
  child: ChildProcess;
  /** Output so far. */
  stderr(): string;
  done: Promise<VisorResult>;
  /** Resolves once stderr contains `text` (rejects if the process ends first). */
  waitForLog(text: string | RegExp): Promise<void>;
}

/** Starts `chainvisor <args>` as a child process with exactly `env`; it is SIGKILLed after `timeoutMs`. */
export function startVisor(args: string[], env: Record<string, string>, timeoutMs = 20_000): VisorProcess {
  const child = spawn(NODE, [CHAINVISOR, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  const listeners: (() => void)[] = [];
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
    for (const listener of [...listeners]) listener();
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const done = new Promise<VisorResult>((resolve) => {
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      for (const listener of [...listeners]) listener();
      resolve({ code, signal, stdout, stderr });
    });
  });
  let finished = false;
  void done.then(() => {
    finished = true;
  });
  const waitForLog = (text: string | RegExp) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        const found = typeof text === "string" ? stderr.includes(text) : text.test(stderr);
        if (found) {
          listeners.splice(listeners.indexOf(check), 1);
          resolve();
        } else if (finished || child.exitCode !== null || child.signalCode !== null) {
          listeners.splice(listeners.indexOf(check), 1);
          reject(new Error(`chainvisor ended before logging ${String(text)}:\n${stderr}`));
        }
      };
      listeners.push(check);
      check();
    });
  return { child, stderr: () => stderr, done, waitForLog };
}

/** Runs `chainvisor <args>` to completion. */
export function runVisor(args: string[], env: Record<string, string>, timeoutMs = 20_000): Promise<VisorResult> {
  return startVisor(args, env, timeoutMs).done;
}

/** One canned HTTP answer. */
export interface Route {
  status?: number;
  body?: string | Uint8Array;
  headers?: Record<string, string>;
  /** Send the headers and the body, then keep the connection open without ending the answer. */
  hang?: boolean;
}

/** A local HTTP server whose answers tests change on the fly. */
export interface TestServer {
  url: string;
  routes: Map<string, Route | ((request: IncomingMessage) => Route)>;
  /** Paths requested, in order. */
  requests: string[];
  close(): Promise<void>;
}

/** Starts an HTTP server on 127.0.0.1 with a port chosen by the system. Unknown paths answer 404. */
export async function startTestServer(): Promise<TestServer> {
  const routes: TestServer["routes"] = new Map();
  const requests: string[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? "/").split("?")[0];
    requests.push(request.url ?? "/");
    const entry = routes.get(path);
    const route = typeof entry === "function" ? entry(request) : entry;
    if (route === undefined) {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    response.writeHead(route.status ?? 200, route.headers ?? {});
    if (route.hang) response.write(route.body ?? "");
    else response.end(route.body ?? "");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    routes,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** `sha256:<hex>` of some bytes. */
export function sha256(bytes: string | Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/** `sha512:<hex>` of some bytes. */
export function sha512(bytes: string | Uint8Array): string {
  return `sha512:${createHash("sha512").update(bytes).digest("hex")}`;
}

/** A REST answer of GET current_plan, as the node gives it. */
export function currentPlanRoute(
  plan: { name: string; height: number; info?: string } | null,
  latestHeight: number,
): Route {
  const body =
    plan === null
      ? { plan: null }
      : {
          plan: {
            name: plan.name,
            time: "0001-01-01T00:00:00Z",
            height: String(plan.height),
            info: plan.info ?? "",
            upgraded_client_state: null,
          },
        };
  return {
    body: JSON.stringify(body),
    headers: { "content-type": "application/json", "x-chain-block-height": String(latestHeight) },
  };
}

/** Members of a test archive: path → content (and mode, default 0755 for `bin/` and 0644 otherwise). */
export type ArchiveMembers = Record<string, string | { content: string; mode: number }>;

/** A gzip-compressed tar archive of `members`, made with the `tar` package. */
export async function makeTarGz(members: ArchiveMembers): Promise<Uint8Array> {
  const { create } = await import("tar");
  const work = await mkdtemp(join(tmpdir(), "chainvisor-tar-"));
  try {
    const root = join(work, "root");
    for (const [path, member] of Object.entries(members)) {
      const content = typeof member === "string" ? member : member.content;
      const mode = typeof member === "string" ? (path.startsWith("bin/") ? 0o755 : 0o644) : member.mode;
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), content);
      await chmod(join(root, path), mode);
    }
    const file = join(work, "archive.tar.gz");
    await create({ gzip: true, file, cwd: root, portable: true }, Object.keys(members));
    return new Uint8Array(await readFile(file));
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** A zip archive of `members`, made with fflate (zip keeps no Unix modes). */
export async function makeZip(members: ArchiveMembers): Promise<Uint8Array> {
  const { zipSync, strToU8 } = await import("fflate");
  const entries: Record<string, Uint8Array> = {};
  for (const [path, member] of Object.entries(members)) {
    entries[path] = strToU8(typeof member === "string" ? member : member.content);
  }
  return zipSync(entries);
}
