// The client flags of docs/CONTRACT.md §8, defined once: every query command gets `addQueryFlags`, every tx command
// `addTxFlags` (the upgrade, gov and staking command builders included), so names, defaults and help
// texts cannot drift. Commander keeps the raw text; `readQueryFlags` / `readTxFlags` turn it into
// checked values and throw CliError naming the flag and the expected form. Global flags (--home,
// --log_level, --log_format, -o/--output) belong to the root command and are read from there.
import { type Command, InvalidArgumentError } from "commander";
import { DURATION_EXPECTED, parseDurationMs } from "../../config/duration.ts";
import { resolveHome } from "../../config/home.ts";
import { DEFAULT_CLIENT_NODE, homeRpcAddress } from "../../config/home-rpc-address.ts";
import { addressFromBech32 } from "../../crypto/bech32.ts";
import { CliError } from "./errors.ts";

/** The consensus RPC address used when `--node` is not given and the home names none (see {@link nodeOfHome}). */
export const DEFAULT_NODE = DEFAULT_CLIENT_NODE;
/** `--node`'s help text: where the default comes from (docs/CONTRACT.md §8). */
const NODE_HELP = `consensus RPC address of the node (tcp://host:port); default: the --home's config.toml rpc.laddr, else ${DEFAULT_NODE}`;
/** Gas limit used when `--gas` is not given (upstream's default). */
export const DEFAULT_GAS_LIMIT = 200000n;
/** How long `--wait` waits for inclusion unless `--wait-timeout` says otherwise. */
export const DEFAULT_WAIT_TIMEOUT = "60s";

/** Output format of client commands (`-o/--output`, a global flag). */
export type OutputFormat = "text" | "json";

/** The checked flags every client command has. */
export interface QueryFlags {
  home: string;
  output: OutputFormat;
  /** Consensus RPC address as given (`tcp://host:port`, `http://…`), else the home's rpc.laddr (see nodeOfHome). */
  node: string;
  /** gRPC address; when set, queries go over gRPC instead of the RPC's abci_query. */
  grpcAddr?: string;
  /** State height to query (undefined or 0 = latest). */
  height?: bigint;
  /** `--keyring-dir`: where the keyring lives instead of `--home` (upstream's flag). */
  keyringDir?: string;
}

/** `--gas`: a fixed limit, or `auto` (simulate, then multiply by `--gas-adjustment`). */
export type GasSetting = { auto: true } | { auto: false; limit: bigint };

/** The checked tx flags of docs/CONTRACT.md §8 (plus `--wait`, `--sequence`, `--account-number`, `--timeout-height`). */
export interface TxFlags extends QueryFlags {
  /** Key name or bech32 address of the signer (an address only works with --generate-only). */
  from?: string;
  /** Chain id; when absent the node's network (`status`) is used. */
  chainId?: string;
  keyringBackend: string;
  /** `--fees` text, e.g. `2000stake` (exclusive with gasPrices). */
  fees?: string;
  /** `--gas-prices` text, e.g. `0.025stake`. */
  gasPrices?: string;
  gas: GasSetting;
  /** `--gas-adjustment` as a decimal string (only used with --gas auto). */
  gasAdjustment: string;
  yes: boolean;
  generateOnly: boolean;
  broadcastMode: "sync" | "async";
  /** The memo. */
  note: string;
  /** Wait until the tx is in a block and print its result. */
  wait: boolean;
  waitTimeoutMs: number;
  /** Overrides of the signer's account number and sequence (otherwise read from the chain). */
  accountNumber?: bigint;
  sequence?: bigint;
  /** Block height after which the tx is invalid (0 = none). */
  timeoutHeight: bigint;
  /** `--offline`: no network access; needs --account-number, --sequence and --chain-id. */
  offline: boolean;
  /** `--dry-run`: simulate, print `gas estimate: N` (stderr, as upstream), send nothing. */
  dryRun: boolean;
  /** `--fee-payer`: the account that pays the fee (it must sign the tx too). */
  feePayer?: string;
}

/** The sign modes upstream's `--sign-mode` names; this chain signs with `direct` only. */
export const SIGN_MODES = ["direct", "amino-json", "direct-aux", "textual"] as const;

/** Adds --node, --grpc-addr and --height to a query command. */
export function addQueryFlags(command: Command): Command {
  return command
    .option("--node <url>", NODE_HELP)
    .option("--grpc-addr <address>", "gRPC address of the node (host:port); queries then go over gRPC")
    .option("--height <height>", "query the state at this height (0 = latest)", parseHeightArgument);
}

/**
 * Adds the tx flags of docs/CONTRACT.md §8 to a tx command. `--wait` waits until the tx is in a block (polling the
 * node's tx index) and prints the tx's result, as `query tx` would; without it a sync broadcast
 * prints only the CheckTx outcome.
 */
export function addTxFlags(command: Command): Command {
  return command
    .option("--node <url>", NODE_HELP)
    .option("--grpc-addr <address>", "gRPC address of the node (host:port); queries then go over gRPC")
    .option("--from <key>", "name or address of the signing key")
    .option("--chain-id <id>", "the chain id (default: the node's network)")
    .option("--keyring-backend <backend>", "keyring backend: test or file", "test")
    .option("--fees <coins>", "fees to pay, e.g. 2000stake")
    .option("--gas-prices <prices>", "gas prices to compute the fees from, e.g. 0.025stake")
    .option("--gas <gas>", 'gas limit per tx, or "auto" to estimate it by simulation', DEFAULT_GAS_LIMIT.toString())
    .option("--gas-adjustment <factor>", "factor applied to the simulated gas with --gas auto", "1")
    .option("-y, --yes", "skip the confirmation prompt before signing and broadcasting")
    .option("--generate-only", "print the unsigned tx as JSON; --from may then be an address")
    .option("-b, --broadcast-mode <mode>", "sync (wait for CheckTx) or async (return at once)", "sync")
    .option("--note <text>", "the tx memo", "")
    .option("--wait", "wait until the tx is in a block and print its result (code, gas, events)")
    .option("--wait-timeout <duration>", "how long --wait waits for inclusion", DEFAULT_WAIT_TIMEOUT)
    .option("-a, --account-number <n>", "the signer's account number (default: read from the chain)")
    .option("-s, --sequence <n>", "the signer's sequence (default: read from the chain)")
    .option("--timeout-height <height>", "block height after which the tx is invalid (0 = none)", "0")
    .option("--offline", "offline mode: no network access (needs --account-number, --sequence and --chain-id)")
    .option(
      "--sign-mode <mode>",
      "sign mode: direct (the only one this chain accepts; amino-json, direct-aux, textual are refused)",
    )
    .option("--fee-payer <address>", "the account that pays the fee (it must sign the tx as well)")
    .option(
      "--fee-granter <address>",
      "pay the fee from this account's fee grant (refused: this chain has no feegrant module)",
    )
    .option("--dry-run", "simulate the tx and print the estimated gas; nothing is signed or sent")
    .option("--keyring-dir <dir>", "directory of the keyring (default: --home)");
}

/** Commander argument parser for `--height`: a non-negative int64 as bigint. */
export function parseHeightArgument(text: string): bigint {
  try {
    return parseUint64(text, "--height", 63);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

/** Reads and checks the client flags from `command.optsWithGlobals()`. */
export function readQueryFlags(options: Record<string, unknown>): QueryFlags {
  const grpcAddr = optionalString(options.grpcAddr);
  const height = options.height;
  return {
    home: String(options.home ?? ""),
    output: readOutputFormat(options.output),
    node: options.node === undefined ? nodeOfHome(options.home) : String(options.node),
    grpcAddr: grpcAddr === "" ? undefined : grpcAddr,
    height:
      typeof height === "bigint"
        ? height
        : height === undefined
          ? undefined
          : parseUint64(String(height), "--height", 63),
    keyringDir: optionalString(options.keyringDir),
  };
}

/** Reads and checks the tx flags from `command.optsWithGlobals()`. */
export function readTxFlags(options: Record<string, unknown>): TxFlags {
  const fees = optionalString(options.fees);
  const gasPrices = optionalString(options.gasPrices);
  if (fees !== undefined && fees !== "" && gasPrices !== undefined && gasPrices !== "") {
    throw new CliError("cannot provide both fees and gas prices: give --fees or --gas-prices, not both");
  }
  const accountNumber = optionalString(options.accountNumber);
  const sequence = optionalString(options.sequence);
  const granter = optionalString(options.feeGranter);
  if (granter !== undefined && granter !== "") {
    throw new CliError(
      `--fee-granter ${granter}: fee grants are not supported on this chain (it has no feegrant module); pay the fee from the signer or use --fee-payer`,
    );
  }
  readSignMode(options.signMode);
  const offline = options.offline === true;
  const dryRun = options.dryRun === true;
  const chainId = optionalString(options.chainId);
  if (offline) {
    const missing = [
      accountNumber === undefined ? "--account-number" : undefined,
      sequence === undefined ? "--sequence" : undefined,
      chainId === undefined || chainId === "" ? "--chain-id" : undefined,
    ].filter((f) => f !== undefined);
    if (missing.length > 0) {
      throw new CliError(
        `--offline needs ${missing.join(", ")}: without network access the signer's numbers and the chain id cannot be read from the node`,
      );
    }
    if (dryRun) throw new CliError("--dry-run simulates the tx on the node: it cannot be used with --offline");
  }
  if (dryRun && options.generateOnly === true) {
    throw new CliError("--dry-run and --generate-only cannot be combined: choose one");
  }
  const feePayer = optionalString(options.feePayer);
  if (feePayer !== undefined && feePayer !== "") readFeePayer(feePayer);
  return {
    ...readQueryFlags(options),
    from: optionalString(options.from),
    chainId: optionalString(options.chainId),
    keyringBackend: String(options.keyringBackend ?? "test"),
    fees,
    gasPrices,
    gas: parseGasSetting(String(options.gas ?? DEFAULT_GAS_LIMIT)),
    gasAdjustment: parseGasAdjustment(String(options.gasAdjustment ?? "1")),
    yes: options.yes === true,
    generateOnly: options.generateOnly === true,
    broadcastMode: parseBroadcastMode(String(options.broadcastMode ?? "sync")),
    note: String(options.note ?? ""),
    wait: options.wait === true,
    waitTimeoutMs: parseWaitTimeout(String(options.waitTimeout ?? DEFAULT_WAIT_TIMEOUT)),
    accountNumber: accountNumber === undefined ? undefined : parseUint64(accountNumber, "--account-number", 64),
    sequence: sequence === undefined ? undefined : parseUint64(sequence, "--sequence", 64),
    timeoutHeight: parseUint64(String(options.timeoutHeight ?? "0"), "--timeout-height", 64),
    offline,
    dryRun,
    feePayer: feePayer === "" ? undefined : feePayer,
  };
}

/**
 * The node a client command asks without `--node` (docs/CONTRACT.md §8): the one whose home it was given (or the
 * default home), at that home's config.toml rpc.laddr; {@link DEFAULT_NODE} when the home has no config.toml.
 * @example nodeOfHome("/var/lib/chaind") // "tcp://127.0.0.1:26657"
 */
export function nodeOfHome(home: unknown): string {
  try {
    return homeRpcAddress(resolveHome(home === undefined ? undefined : String(home))) ?? DEFAULT_NODE;
  } catch (error) {
    throw new CliError(`cannot tell which node to ask (give --node): ${(error as Error).message}`, { cause: error });
  }
}

// Upstream parses --fee-payer as an account address whatever the mode: a typo must not reach a generated tx.
function readFeePayer(text: string): void {
  try {
    addressFromBech32(text);
  } catch (error) {
    throw new CliError(`invalid --fee-payer "${text}": ${(error as Error).message}`);
  }
}

/** `--sign-mode`: upstream's names; only `direct` (or empty, the default) is accepted here. */
export function readSignMode(value: unknown): "direct" {
  const text = value === undefined ? "" : String(value);
  if (text === "" || text === "direct") return "direct";
  if ((SIGN_MODES as readonly string[]).includes(text)) {
    throw new CliError(
      `unsupported --sign-mode "${text}": this chain verifies SIGN_MODE_DIRECT signatures only; use --sign-mode direct`,
    );
  }
  throw new CliError(`invalid --sign-mode "${text}": expected one of ${SIGN_MODES.join(", ")}`);
}

/** `-o/--output`: text (YAML) or json. */
export function readOutputFormat(value: unknown): OutputFormat {
  const text = value === undefined ? "text" : String(value);
  if (text !== "text" && text !== "json") throw new CliError(`invalid --output "${text}": expected text or json`);
  return text;
}

/** `--gas`: `auto` or a whole number of gas units. */
export function parseGasSetting(text: string): GasSetting {
  const trimmed = text.trim();
  if (trimmed === "auto") return { auto: true };
  if (!/^\d+$/.test(trimmed)) {
    throw new CliError(`invalid --gas "${text}": expected "auto" or a whole number of gas units such as 200000`);
  }
  const limit = BigInt(trimmed);
  if (limit >= 1n << 64n) throw new CliError(`invalid --gas "${text}": it does not fit an unsigned 64-bit integer`);
  return { auto: false, limit };
}

/** `--gas-adjustment`: a positive decimal such as 1.3 (kept as text for exact arithmetic). */
export function parseGasAdjustment(text: string): string {
  const trimmed = text.trim();
  if (!/^\d+(?:\.\d+)?$/.test(trimmed) || /^0+(?:\.0+)?$/.test(trimmed)) {
    throw new CliError(`invalid --gas-adjustment "${text}": expected a positive number such as 1.3`);
  }
  return trimmed;
}

/** `-b/--broadcast-mode`: sync or async; `block` was removed upstream and gets upstream's message. */
export function parseBroadcastMode(text: string): "sync" | "async" {
  if (text === "sync" || text === "async") return text;
  throw new CliError(`unsupported return type ${text}; supported types: sync, async`);
}

function parseWaitTimeout(text: string): number {
  const ms = parseDurationMs(text);
  if (ms === undefined || ms <= 0)
    throw new CliError(`invalid --wait-timeout "${text}": expected ${DURATION_EXPECTED}`);
  return ms;
}

/** A non-negative integer of at most `bits` bits; errors name the flag. */
export function parseUint64(text: string, flag: string, bits: 63 | 64): bigint {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) throw new CliError(`invalid ${flag} "${text}": expected a non-negative whole number`);
  const value = BigInt(trimmed);
  if (value >= 1n << BigInt(bits)) {
    throw new CliError(
      `invalid ${flag} "${text}": it does not fit ${bits === 63 ? "a signed" : "an unsigned"} 64-bit integer`,
    );
  }
  return value;
}

function optionalString(value: unknown): string | undefined {
  return value === undefined || value === null ? undefined : String(value);
}
