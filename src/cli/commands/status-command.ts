// `chaind status [--node URL] [--home DIR]`: the consensus RPC `/status` result as JSON, or, when no node answers,
// the same shape read from the home (docs/CONTRACT.md §12). Supervisors (cosmovisor v1.6+) run it to learn a node's height, also
// of a halted node, so it is dispatched before the command tree is loaded (src/cli/run-cli.ts) and imports nothing
// it does not need: node:util's parser, fetch, and the home reader only when it is needed.

import { parseArgs } from "node:util";
import { currentBinaryName } from "../../config/home.ts";
import { fetchFailureCause } from "../../errors/fetch-failure.ts";
import { UserError } from "../../errors/user-error.ts";
import { emptyPathMessage } from "../empty-paths.ts";

/** Where the command writes; tests pass buffers. */
export interface StatusIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** The consensus RPC address asked by default (docs/CONTRACT.md §8). */
export const DEFAULT_NODE = "tcp://localhost:26657";
/** How long a node may take to answer before it counts as not answering. */
const ANSWER_TIMEOUT_MS = 10_000;

/** The help text, with this binary's name and default home. */
const usage = (): string => `Usage: ${currentBinaryName()} status [--node <url>] [--home <dir>]

Query the node's status: the consensus RPC /status result as JSON. When no node answers at --node,
read the last committed height and the rest of the same shape from --home (the node may be stopped or halted).

Options:
  -n, --node <url>      consensus RPC address (default "${DEFAULT_NODE}")
  --home <dir>          the node's home, read when no node answers (default "~/.${currentBinaryName()}")
  -o, --output <format> json (the only format; text is accepted and prints JSON as well)
  -h, --help            display help for command
`;

/** Why no status could be printed: one line for the operator. */
export class StatusCliError extends UserError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StatusCliError";
  }
}

/**
 * Runs `chaind status` with the arguments that follow the program name (global flags may come before `status`).
 * Returns the exit status: 0 printed, 1 no status, 2 bad usage.
 * @example process.exitCode = await runStatusCommand(["status", "--node", "tcp://127.0.0.1:26657"])
 */
export async function runStatusCommand(argv: string[], io: StatusIo = process): Promise<number> {
  let values: { node?: string; home?: string; output?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv.filter((arg) => arg !== "status"),
      options: {
        node: { type: "string", short: "n" },
        home: { type: "string" },
        output: { type: "string", short: "o" },
        log_level: { type: "string" },
        log_format: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    io.stderr.write(`Error: ${(error as Error).message}\n${usage()}`);
    return 2;
  }
  if (values.help) {
    io.stdout.write(usage());
    return 0;
  }
  // As every path flag of the command tree (src/cli/empty-paths.ts): '' would silently mean the default home.
  if (values.home === "") {
    io.stderr.write(`Error: ${emptyPathMessage("--home")}\n`);
    return 2;
  }
  if (values.output !== undefined && values.output !== "json" && values.output !== "text") {
    io.stderr.write(`Error: invalid --output "${values.output}": expected json or text\n`);
    return 2;
  }
  try {
    const result = await nodeStatus(values.node ?? DEFAULT_NODE, values.home);
    io.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    io.stderr.write(`Error: ${(error as Error).message}\n`);
    return 1;
  }
}

/** The status from the node at `node`, else (when it does not answer) from `home`. */
export async function nodeStatus(node: string, homeFlag: string | undefined): Promise<unknown> {
  const url = statusUrl(node);
  let unreachable: string;
  try {
    return await fetchStatus(url);
  } catch (error) {
    if (!(error instanceof NoAnswer)) throw error;
    unreachable = error.message;
  }
  const [{ readHomeStatus }, { resolveHome }] = await Promise.all([
    import("../../node/home-status.ts"),
    import("../../config/home.ts"),
  ]);
  const home = resolveHome(homeFlag);
  try {
    return await readHomeStatus(home);
  } catch (error) {
    throw new StatusCliError(`no node answers at ${node} (${unreachable}) and ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** `tcp://host:port` (CometBFT's notation) → `http://host:port/status`; http(s) URLs are kept. */
export function statusUrl(node: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(node) ? node : `tcp://${node}`;
  let url: URL;
  try {
    url = new URL(withScheme.replace(/^tcp:/i, "http:"));
  } catch {
    throw new StatusCliError(`invalid --node "${node}": expected an address such as ${DEFAULT_NODE}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new StatusCliError(`invalid --node "${node}": expected tcp://, http:// or https://`);
  }
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/status`;
  return url.href;
}

/** Nobody answered (refused, unreachable, timed out): the home is read instead. */
class NoAnswer extends Error {}

async function fetchStatus(url: string): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
  } catch (error) {
    const cause = fetchFailureCause(error);
    if ((error as Error).name === "TimeoutError") throw new NoAnswer(`no answer within ${ANSWER_TIMEOUT_MS} ms`);
    throw new NoAnswer(cause?.code === "ECONNREFUSED" ? "connection refused" : (cause?.message ?? String(error)));
  }
  const text = await response.text();
  let body: { result?: unknown; error?: { message?: string; data?: string } };
  try {
    body = JSON.parse(text);
  } catch {
    throw new StatusCliError(`the node at ${url} answered ${response.status} with something that is not JSON-RPC`);
  }
  if (body.result === undefined) {
    const reason = body.error
      ? `${body.error.message ?? ""} ${body.error.data ?? ""}`.trim()
      : `HTTP ${response.status}`;
    throw new StatusCliError(`the node at ${url} answered with an error: ${reason}`);
  }
  return body.result;
}
