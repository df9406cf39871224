// `chaind status [--node URL] [--home DIR]`: the consensus RPC `/status` result as JSON, or, when no node answers and
// --home was given, the same shape read from that home (docs/CONTRACT.md §8, §12). Supervisors (cosmovisor v1.6+) run
// `<bin> status --home <DAEMON_HOME>` to learn a node's height, also of a halted node, and parse stdout and stderr
// together as one JSON document: so it is dispatched before the command tree is loaded (src/cli/run-cli.ts), imports
// nothing it does not need, and on success writes the JSON line and nothing else.
//
// Which node: --node, else the rpc.laddr of the home's config.toml (the given --home, or the default home), else
// tcp://localhost:26657. Which home is read when no node answers: only a --home that was given; never the default
// home, which on a shared host may belong to another chain.

import { parseArgs } from "node:util";
import { CliError } from "../../client/cli/errors.ts";
import { currentBinaryName, resolveHome } from "../../config/home.ts";
import { DEFAULT_CLIENT_NODE, homeRpcAddress } from "../../config/home-rpc-address.ts";
import { fetchFailureCause } from "../../errors/fetch-failure.ts";
import { emptyPathMessage } from "../empty-paths.ts";

/** Where the command writes; tests pass buffers. */
export interface StatusIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** The consensus RPC address asked when neither --node nor the home's config.toml names one. */
export const DEFAULT_NODE = DEFAULT_CLIENT_NODE;
/** How long a node may take to answer before it counts as not answering. */
const ANSWER_TIMEOUT_MS = 10_000;

/** The help text, with this binary's name and default home. */
const usage = (): string => `Usage: ${currentBinaryName()} status [--node <url>] [--home <dir>]

Query the node's status: the consensus RPC /status result as JSON. When no node answers and --home is given,
read the latest height and the rest of the same shape from that home (the node may be stopped or halted).
sync_info.latest_committed_height adds the last height the application committed (at an upgrade halt at H,
latest_block_height is H, as on a CometBFT node, and latest_committed_height is H-1).

Options:
  -n, --node <url>      consensus RPC address (default: the home's config.toml rpc.laddr, else "${DEFAULT_NODE}")
  --home <dir>          the node's home: its rpc.laddr, and its data when no node answers (default home
                        "~/.${currentBinaryName()}": only its rpc.laddr is used)
  -o, --output <format> json (the only format; text is accepted and prints JSON as well)
  -h, --help            display help for command
`;

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
    // One line, as every other command's usage error (docs/CONTRACT.md §12): node's parser names the word, and its
    // further sentences (how to pass a value starting with '-') point at forms status has no use for.
    const [what] = (error as Error).message.split(/\.(?:\s+|$)/);
    io.stderr.write(`Error: ${what}; see "${currentBinaryName()} status --help"\n`);
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
  // An empty --home is no home: resolving it would name the default home, which status never reads unasked.
  if (values.home !== undefined && values.home.trim() === "") {
    io.stderr.write(`Error: invalid --home "${values.home}": expected the node's home directory\n`);
    return 2;
  }
  try {
    const result = await nodeStatus(values.node, values.home);
    io.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    io.stderr.write(`Error: ${(error as Error).message}\n`);
    return 1;
  }
}

/**
 * The status from the node at `nodeFlag` (else at the home's rpc.laddr), else, when it does not answer and `homeFlag`
 * was given, from that home.
 */
export async function nodeStatus(nodeFlag: string | undefined, homeFlag: string | undefined): Promise<unknown> {
  const node = nodeFlag ?? nodeOfHome(homeFlag);
  let unreachable: string;
  try {
    return await fetchStatus(node);
  } catch (error) {
    if (!(error instanceof NoAnswer)) throw error;
    unreachable = error.message;
  }
  if (homeFlag === undefined) {
    throw new CliError(
      `no node answers at ${node} (${unreachable}); to read a stopped node's height from its home, give --home <dir>`,
    );
  }
  const { readHomeStatus } = await import("../../node/home-status.ts");
  try {
    return await readHomeStatus(resolveHome(homeFlag));
  } catch (error) {
    throw new CliError(`no node answers at ${node} (${unreachable}) and ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** The node to ask without --node: the given (or default) home's config.toml rpc.laddr, else {@link DEFAULT_NODE}. */
function nodeOfHome(homeFlag: string | undefined): string {
  try {
    return homeRpcAddress(resolveHome(homeFlag)) ?? DEFAULT_NODE;
  } catch (error) {
    throw new CliError(`cannot tell which node to ask (give --node): ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** `tcp://host:port` (CometBFT's notation) → `http://host:port/status`; http(s) URLs are kept. */
export function statusUrl(node: string): string {
  return rpcUrl(node, "status");
}

/** The URL of one RPC method (a GET without parameters) of the node at `node`. */
function rpcUrl(node: string, method: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(node) ? node : `tcp://${node}`;
  let url: URL;
  try {
    url = new URL(withScheme.replace(/^tcp:/i, "http:"));
  } catch {
    throw new CliError(`invalid --node "${node}": expected an address such as ${DEFAULT_NODE}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new CliError(`invalid --node "${node}": expected tcp://, http:// or https://`);
  }
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/${method}`;
  return url.href;
}

/** Nobody answered (refused, unreachable, timed out): the home is read instead. */
class NoAnswer extends Error {}

/**
 * The node's `/status` result with `sync_info.latest_committed_height` added: the application's last committed
 * height, from `/abci_info` (asked at the same time). On a CometBFT node the block store may hold one block more
 * than the application committed (a block saved but not yet executed, or the block an upgrade halted at); when
 * `/abci_info` does not answer, the field is left out rather than guessed.
 */
async function fetchStatus(node: string): Promise<unknown> {
  const [status, info] = await Promise.all([
    rpcResult(statusUrl(node)),
    rpcResult(rpcUrl(node, "abci_info")).catch(() => undefined),
  ]);
  const committed = (info as { response?: { last_block_height?: unknown } } | undefined)?.response?.last_block_height;
  const syncInfo = (status as { sync_info?: unknown }).sync_info;
  if (typeof syncInfo === "object" && syncInfo !== null && typeof committed === "string" && /^\d+$/.test(committed)) {
    (syncInfo as Record<string, unknown>).latest_committed_height = committed;
  }
  return status;
}

async function rpcResult(url: string): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
  } catch (error) {
    const cause = fetchFailureCause(error);
    if ((error as Error).name === "TimeoutError") throw new NoAnswer(`no answer within ${ANSWER_TIMEOUT_MS} ms`);
    throw new NoAnswer(cause?.code === "ECONNREFUSED" ? "connection refused" : (cause?.message ?? String(error)));
  }
  const text = await response.text();
  let body: { result?: unknown; error?: { message?: string; data?: string } } | null;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  if (typeof body !== "object" || body === null) {
    throw new CliError(`the node at ${url} answered ${response.status} with something that is not JSON-RPC`);
  }
  if (body.result === undefined || body.result === null || typeof body.result !== "object") {
    const reason = body.error
      ? `${body.error.message ?? ""} ${body.error.data ?? ""}`.trim()
      : `HTTP ${response.status}`;
    throw new CliError(`the node at ${url} answered with an error: ${reason}`);
  }
  return body.result;
}
