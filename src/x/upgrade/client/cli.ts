// `chaind query upgrade …` and `chaind tx upgrade …` (docs/CONTRACT.md §8), written against a small injected client so the
// commands are independent of the transport (the node's RPC client, or an in-process app in tests).

import { create, fromBinary, type JsonValue, toBinary } from "@bufbuild/protobuf";
import type { Any } from "@bufbuild/protobuf/wkt";
import { Command, Option } from "commander";
import { parseCoins } from "../../../app/coins.ts";
import { CliError } from "../../../client/cli/errors.ts";
import { packAny } from "../../../client/tx/any.ts";
import { toYaml } from "../../../client/yaml.ts";
import { DURATION_EXPECTED, parseDurationNanos } from "../../../config/duration.ts";
import { currentBinaryName } from "../../../config/home.ts";
import { addressFromBech32 } from "../../../crypto/index.ts";
import {
  QueryAppliedPlanRequestSchema,
  QueryAppliedPlanResponseSchema,
  QueryCurrentPlanRequestSchema,
  QueryCurrentPlanResponseSchema,
  QueryMigrationsRequestSchema,
  type QueryMigrationsResponse,
  QueryMigrationsResponseSchema,
  QueryModuleVersionsRequestSchema,
  QueryModuleVersionsResponseSchema,
  QueryParamsRequestSchema,
  QueryParamsResponseSchema,
  QueryUpgradeReadinessRequestSchema,
  type QueryUpgradeReadinessResponse,
  QueryUpgradeReadinessResponseSchema,
} from "../../../gen/chain/upgrade/v1beta1/query_pb.js";
import { MsgCancelUpgradeSchema, MsgSoftwareUpgradeSchema } from "../../../gen/chain/upgrade/v1beta1/tx_pb.js";
import { cancellationWarning, DEFAULT_SAFETY_DELTA_MS } from "../cancellation-timing.ts";
import { defaultUpgradeAuthority } from "../keeper.ts";
import { newPlan, planToJson, validatePlan } from "../plan.ts";
import { validatePlanInfo } from "../plan-info.ts";
import { planNameDirectoryProblem } from "../plan-name-directory.ts";

/** Query method paths of the upgrade Query service. */
export const UPGRADE_QUERY_PATHS = {
  currentPlan: "/chain.upgrade.v1beta1.Query/CurrentPlan",
  appliedPlan: "/chain.upgrade.v1beta1.Query/AppliedPlan",
  moduleVersions: "/chain.upgrade.v1beta1.Query/ModuleVersions",
  authority: "/chain.upgrade.v1beta1.Query/Authority",
  readiness: "/chain.upgrade.v1beta1.Query/UpgradeReadiness",
  params: "/chain.upgrade.v1beta1.Query/Params",
  migrations: "/chain.upgrade.v1beta1.Query/Migrations",
} as const;

/** A gov proposal the tx commands ask the client to sign and broadcast (or print with --generate-only). */
export interface ProposalSubmission {
  /** The proposal's messages (one MsgSoftwareUpgrade or MsgCancelUpgrade). */
  messages: Any[];
  title: string;
  summary: string;
  metadata: string;
  /** The initial deposit as given (`10000000stake`), already checked to parse; "" for none. */
  deposit: string;
  /** Every option of the command, globals included (`from`, `chainId`, `fees`, `gas`, `yes`, ...). */
  flags: Record<string, unknown>;
}

/** gov params the cancellation-timing check needs. */
export interface GovTimingParams {
  votingPeriodMs: number;
  maxDepositPeriodMs: number;
}

/** The chain's recent pace. */
export interface BlockPace {
  latestHeight: bigint;
  averageBlockTimeMs: number;
}

/** What the upgrade commands need from a node. */
export interface UpgradeCliClient {
  /** ABCI query of a gRPC method path with the request's binary encoding; resolves with the response bytes. */
  query(methodPath: string, request: Uint8Array, height?: bigint): Promise<Uint8Array>;
  /** The CometBFT block-meta JSON of `height` (`block_id`, `block_size`, `header`, `num_txs`), if the node has it. */
  getBlockByHeight(height: bigint): Promise<JsonValue | undefined>;
  /** Submits a gov proposal; resolves with what to print (the tx response, or the unsigned tx with --generate-only). */
  broadcastProposal(proposal: ProposalSubmission): Promise<JsonValue>;
  govParams(): Promise<GovTimingParams>;
  averageBlockTime(): Promise<BlockPace>;
}

/** Options of the command builders. */
export interface UpgradeCliOptions {
  /** Makes the client from the command's options (globals included: `node`, `grpcAddr`, `from`, ...). */
  client(flags: Record<string, unknown>): UpgradeCliClient | Promise<UpgradeCliClient>;
  stdout?: { write(text: string): unknown };
  stderr?: { write(text: string): unknown };
  env?: Readonly<Record<string, string | undefined>>;
  /** Adds the shared client flags to a query command (default: --node, --grpc-addr, --height, -o). */
  addQueryFlags?(command: Command): void;
  /** Adds the shared tx flags to a tx command (default: the tx flags of docs/CONTRACT.md §8). */
  addTxFlags?(command: Command): void;
}

type OutputFormat = "text" | "json";

/**
 * `query upgrade plan | applied <name> | module_versions [module]` (alias `module-versions`) | `readiness` | `params` |
 * `migrations`.
 *
 * @example program.command("query").addCommand(upgradeQueryCommand({ client: (flags) => rpcClient(flags) }))
 */
export function upgradeQueryCommand(options: UpgradeCliOptions): Command {
  const io = streams(options);
  const addFlags = options.addQueryFlags ?? addDefaultQueryFlags;
  const upgrade = new Command("upgrade").description("Querying commands for the upgrade module");

  const plan = new Command("plan")
    .description("Query the upgrade plan (if one exists)")
    .action(async (_flags: unknown, command: Command) => {
      const flags = command.optsWithGlobals();
      const client = await options.client(flags);
      const response = await query(client, UPGRADE_QUERY_PATHS.currentPlan, flags, {
        request: toBinary(QueryCurrentPlanRequestSchema, create(QueryCurrentPlanRequestSchema)),
        decode: (bytes) => fromBinary(QueryCurrentPlanResponseSchema, bytes),
      });
      if (response.plan === undefined) throw new CliError("no upgrade scheduled");
      print(io, outputFormat(flags), { ...planToJson(response.plan) });
    });
  addFlags(plan);

  const applied = new Command("applied")
    .description("Query the block header for height at which a completed upgrade was applied")
    .argument("<upgrade-name>", "name of the applied upgrade")
    .action(async (name: string, _flags: unknown, command: Command) => {
      const flags = command.optsWithGlobals();
      const client = await options.client(flags);
      const response = await query(client, UPGRADE_QUERY_PATHS.appliedPlan, flags, {
        request: toBinary(QueryAppliedPlanRequestSchema, create(QueryAppliedPlanRequestSchema, { name })),
        decode: (bytes) => fromBinary(QueryAppliedPlanResponseSchema, bytes),
      });
      if (response.height === 0n) throw new CliError("no upgrade found");
      // The block record comes from the node's consensus RPC (the embedded engine's block store or CometBFT);
      // a client that cannot reach one answers undefined and the command says so.
      const meta = await client.getBlockByHeight(response.height);
      if (meta === undefined) throw new CliError(`no headers returned for height ${response.height}`);
      // Always JSON: the header's hashes are unreadable as YAML (upstream prints it the same way).
      io.stdout.write(`${JSON.stringify(meta, null, 2)}\n`);
    });
  addFlags(applied);

  const moduleVersions = new Command("module_versions")
    .alias("module-versions")
    .description("Query the list of module versions (or only the one of [module_name])")
    .argument("[module_name]", "only this module's version")
    .action(async (moduleName: string | undefined, _flags: unknown, command: Command) => {
      const flags = command.optsWithGlobals();
      const client = await options.client(flags);
      const response = await query(client, UPGRADE_QUERY_PATHS.moduleVersions, flags, {
        request: toBinary(
          QueryModuleVersionsRequestSchema,
          create(QueryModuleVersionsRequestSchema, { moduleName: moduleName ?? "" }),
        ),
        decode: (bytes) => fromBinary(QueryModuleVersionsResponseSchema, bytes),
        notFound: moduleName === undefined ? undefined : `module "${moduleName}" has no version on chain`,
      });
      const entries = response.moduleVersions.map((entry) => ({ name: entry.name, version: entry.version.toString() }));
      print(io, outputFormat(flags), { module_versions: entries });
    });
  addFlags(moduleVersions);

  const readiness = new Command("readiness")
    .description("Query which share of the voting power is ready for the scheduled upgrade plan")
    .action(async (_flags: unknown, command: Command) => {
      const flags = command.optsWithGlobals();
      const client = await options.client(flags);
      const response = await query(client, UPGRADE_QUERY_PATHS.readiness, flags, {
        request: toBinary(QueryUpgradeReadinessRequestSchema, create(QueryUpgradeReadinessRequestSchema)),
        decode: (bytes) => fromBinary(QueryUpgradeReadinessResponseSchema, bytes),
      });
      print(io, outputFormat(flags), readinessToJson(response));
    });
  addFlags(readiness);

  const params = new Command("params")
    .description("Query the upgrade module's params (the readiness gate)")
    .action(async (_flags: unknown, command: Command) => {
      const flags = command.optsWithGlobals();
      const client = await options.client(flags);
      const response = await query(client, UPGRADE_QUERY_PATHS.params, flags, {
        request: toBinary(QueryParamsRequestSchema, create(QueryParamsRequestSchema)),
        decode: (bytes) => fromBinary(QueryParamsResponseSchema, bytes),
      });
      const p = response.params;
      print(io, outputFormat(flags), {
        params: {
          readiness_threshold: p?.readinessThreshold ?? "0.000000000000000000",
          readiness_postpone_blocks: (p?.readinessPostponeBlocks ?? 0n).toString(),
          readiness_max_postponements: p?.readinessMaxPostponements ?? 0,
        },
      });
    });
  addFlags(params);

  const migrations = new Command("migrations")
    .description("Query the stepped migrations (upgrades' migrations that run across blocks), running or finished")
    .action(async (_flags: unknown, command: Command) => {
      const flags = command.optsWithGlobals();
      const client = await options.client(flags);
      const response = await query(client, UPGRADE_QUERY_PATHS.migrations, flags, {
        request: toBinary(QueryMigrationsRequestSchema, create(QueryMigrationsRequestSchema)),
        decode: (bytes) => fromBinary(QueryMigrationsResponseSchema, bytes),
      });
      print(io, outputFormat(flags), migrationsToJson(response));
    });
  addFlags(migrations);

  return upgrade
    .addCommand(plan)
    .addCommand(applied)
    .addCommand(moduleVersions)
    .addCommand(readiness)
    .addCommand(params)
    .addCommand(migrations);
}

/**
 * `tx upgrade software-upgrade <name>` (alias `software-proposal`) and `tx upgrade cancel-software-upgrade`.
 *
 * @example program.command("tx").addCommand(upgradeTxCommand({ client: (flags) => txClient(flags) }))
 */
export function upgradeTxCommand(options: UpgradeCliOptions): Command {
  const io = streams(options);
  const addFlags = options.addTxFlags ?? addDefaultTxFlags;
  const upgrade = new Command("upgrade").description("Upgrade transaction subcommands");

  const softwareUpgrade = new Command("software-upgrade")
    .alias("software-proposal")
    .description("Submit a software upgrade proposal")
    .argument("<name>", "the upgrade's name (the handler the new release registers)")
    .option("--upgrade-height <height>", "the height at which the upgrade must happen", parseHeight)
    .option("--upgrade-info <info>", "upgrade info: JSON with a binaries map, or a URL to such JSON", "")
    .option("--no-validate", "skip validation of the upgrade info (dangerous!)")
    .option("--no-checksum-required", "skip requirement of checksums for binaries in the upgrade info")
    .option(
      "--daemon-name <name>",
      `the daemon's executable name inside release archives (default $DAEMON_NAME or ${currentBinaryName()})`,
    )
    .option(
      "--safety-delta <duration>",
      "time to notice a bad upgrade and cancel it, for the cancellation-timing check",
      "1h",
    );
  addProposalFlags(softwareUpgrade);
  addFlags(softwareUpgrade);
  softwareUpgrade.action(async (name: string, _flags: unknown, command: Command) => {
    const flags = command.optsWithGlobals();
    const deposit = checkDeposit(flags.deposit);
    const plan = newPlan({
      name,
      height: (flags.upgradeHeight as bigint | undefined) ?? 0n,
      info: flags.upgradeInfo as string,
    });
    try {
      validatePlan(plan);
    } catch (err) {
      const hint = plan.height <= 0n ? " (set --upgrade-height)" : "";
      throw new CliError(`invalid upgrade plan: ${(err as Error).message}${hint}`, { cause: err });
    }
    const safetyDeltaMs = parseSafetyDelta(flags.safetyDelta);
    const nameProblem = planNameDirectoryProblem(name);
    if (nameProblem !== undefined) throw new CliError(`invalid upgrade plan: ${nameProblem}`);
    if (flags.validate !== false) {
      try {
        await validatePlanInfo(plan.info, {
          enforceChecksum: flags.checksumRequired !== false,
          // A chain's own release archives hold bin/<its binary> (its `release` command writes them so).
          daemonName: (flags.daemonName as string | undefined) ?? io.env.DAEMON_NAME ?? currentBinaryName(),
        });
      } catch (err) {
        throw new CliError((err as Error).message, { cause: err });
      }
    }
    const authority = checkAuthority(flags.authority);
    const client = await options.client(flags);
    await warnAboutCancellation(client, io, plan.height, safetyDeltaMs);
    const msg = create(MsgSoftwareUpgradeSchema, { authority, plan });
    const result = await client.broadcastProposal(proposal(flags, deposit, packAny(MsgSoftwareUpgradeSchema, msg)));
    print(io, outputFormat(flags), result);
  });

  const cancel = new Command("cancel-software-upgrade").description("Cancel the current software upgrade proposal");
  addProposalFlags(cancel);
  addFlags(cancel);
  cancel.action(async (_flags: unknown, command: Command) => {
    const flags = command.optsWithGlobals();
    const deposit = checkDeposit(flags.deposit);
    const authority = checkAuthority(flags.authority);
    const client = await options.client(flags);
    const msg = create(MsgCancelUpgradeSchema, { authority });
    const result = await client.broadcastProposal(proposal(flags, deposit, packAny(MsgCancelUpgradeSchema, msg)));
    print(io, outputFormat(flags), result);
  });

  return upgrade.addCommand(softwareUpgrade).addCommand(cancel);
}

/** The shared client flags of query commands: --node, --grpc-addr, --height, -o. */
export function addDefaultQueryFlags(command: Command): void {
  command
    .option("--node <url>", "consensus RPC address of the node", "tcp://localhost:26657")
    .option("--grpc-addr <address>", "gRPC address of the node (used instead of --node when given)")
    .option("--height <height>", "query the state at this height (0 = latest)", parseHeight)
    .addOption(new Option("-o, --output <format>", "output format").choices(["text", "json"]).default("text"));
}

/** The shared tx flags of docs/CONTRACT.md §8. */
export function addDefaultTxFlags(command: Command): void {
  command
    .option("--node <url>", "consensus RPC address of the node", "tcp://localhost:26657")
    .option("--grpc-addr <address>", "gRPC address of the node")
    .addOption(new Option("-o, --output <format>", "output format").choices(["text", "json"]).default("text"))
    .option("--from <key>", "name or address of the signing key (the proposer)")
    .option("--chain-id <id>", "the chain id")
    .addOption(new Option("--keyring-backend <backend>", "keyring backend").choices(["test", "file"]).default("test"))
    .option("--fees <coins>", "fees to pay, e.g. 2000stake")
    .option("--gas <gas>", 'gas limit, or "auto" to simulate', "200000")
    .option("--gas-adjustment <factor>", "factor applied to the simulated gas with --gas auto", "1.5")
    .option("--gas-prices <prices>", "gas prices to derive the fees from, e.g. 0.025stake")
    .option("-y, --yes", "skip the confirmation prompt")
    .option("--generate-only", "print the unsigned transaction instead of broadcasting it")
    .addOption(new Option("--broadcast-mode <mode>", "broadcast mode").choices(["sync", "async"]).default("sync"))
    .option("--note <text>", "the transaction's memo", "");
}

function addProposalFlags(command: Command): void {
  command
    .requiredOption("--title <title>", "the proposal's title")
    .option("--summary <summary>", "the proposal's summary", "")
    .option("--metadata <metadata>", "the proposal's metadata", "")
    .option("--deposit <coins>", "the proposal's initial deposit, e.g. 10000000stake", "")
    .option("--authority <address>", "the upgrade authority (default: the gov module account)");
}

interface Io {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: Readonly<Record<string, string | undefined>>;
}

function streams(options: UpgradeCliOptions): Io {
  return {
    stdout: options.stdout ?? process.stdout,
    stderr: options.stderr ?? process.stderr,
    env: options.env ?? process.env,
  };
}

async function query<T>(
  client: UpgradeCliClient,
  path: string,
  flags: Record<string, unknown>,
  how: { request: Uint8Array; decode(bytes: Uint8Array): T; notFound?: string },
): Promise<T> {
  let bytes: Uint8Array;
  try {
    bytes = await client.query(path, how.request, flags.height as bigint | undefined);
  } catch (err) {
    const message = (err as Error).message;
    // Keep the node's text (it names the module) and say so plainly when it is a not-found answer.
    if (how.notFound !== undefined && /not found/i.test(message)) {
      throw new CliError(`${how.notFound}: ${message}`, { cause: err });
    }
    throw new CliError(message, { cause: err });
  }
  return how.decode(bytes);
}

function outputFormat(flags: Record<string, unknown>): OutputFormat {
  const output = flags.output ?? "text";
  if (output !== "text" && output !== "json") {
    throw new CliError(`invalid --output "${String(output)}": expected text or json`);
  }
  return output;
}

function print(io: Io, format: OutputFormat, value: JsonValue): void {
  if (value === null) return; // --dry-run: the gas estimate went to stderr and there is nothing else to show
  io.stdout.write(format === "json" ? `${JSON.stringify(value)}\n` : toYaml(value));
}

function parseHeight(text: string): bigint {
  if (!/^\d+$/.test(text.trim())) throw new CliError(`invalid height "${text}": expected a non-negative integer`);
  const height = BigInt(text.trim());
  if (height >= 1n << 63n) throw new CliError(`invalid height "${text}": it does not fit a signed 64-bit integer`);
  return height;
}

function parseSafetyDelta(value: unknown): number {
  if (value === undefined) return DEFAULT_SAFETY_DELTA_MS;
  const nanos = parseDurationNanos(String(value));
  if (nanos === undefined || nanos < 0n) {
    throw new CliError(`invalid --safety-delta "${String(value)}": expected ${DURATION_EXPECTED}`);
  }
  return Number(nanos / 1_000_000n);
}

function checkDeposit(value: unknown): string {
  const text = typeof value === "string" ? value : "";
  try {
    parseCoins(text);
  } catch (err) {
    throw new CliError(`invalid deposit: ${(err as Error).message}; expected coins such as 10000000stake`, {
      cause: err,
    });
  }
  return text;
}

function checkAuthority(value: unknown): string {
  if (value === undefined || value === "") return defaultUpgradeAuthority();
  const text = String(value);
  try {
    addressFromBech32(text);
  } catch (err) {
    throw new CliError(`invalid authority address: ${(err as Error).message}`, { cause: err });
  }
  return text;
}

function proposal(flags: Record<string, unknown>, deposit: string, message: Any): ProposalSubmission {
  return {
    messages: [message],
    title: String(flags.title),
    summary: String(flags.summary ?? ""),
    metadata: String(flags.metadata ?? ""),
    deposit,
    flags,
  };
}

async function warnAboutCancellation(
  client: UpgradeCliClient,
  io: Io,
  height: bigint,
  safetyDeltaMs: number,
): Promise<void> {
  let warning: string | undefined;
  try {
    const [params, pace] = await Promise.all([client.govParams(), client.averageBlockTime()]);
    warning = cancellationWarning(height, {
      currentHeight: pace.latestHeight,
      votingPeriodMs: params.votingPeriodMs,
      maxDepositPeriodMs: params.maxDepositPeriodMs,
      averageBlockTimeMs: pace.averageBlockTimeMs,
      safetyDeltaMs,
    });
  } catch (err) {
    warning = `warning: could not check whether the upgrade stays cancellable: ${(err as Error).message}`;
  }
  if (warning !== undefined) io.stderr.write(`${warning}\n`);
}

/** The readiness as REST prints it (`GET /chain/upgrade/v1beta1/readiness`), so `-o json` gives the same JSON. */
export function readinessToJson(response: QueryUpgradeReadinessResponse): { [key: string]: JsonValue } {
  return {
    plan: response.plan === undefined ? null : { ...planToJson(response.plan) },
    height: response.height.toString(),
    ready_power: response.readyPower.toString(),
    total_power: response.totalPower.toString(),
    ready_fraction: response.readyFraction,
    validators: response.validators.map((v) => ({
      operator_address: v.operatorAddress,
      power: v.power.toString(),
      ready: v.ready,
      last_signal_height: v.lastSignalHeight.toString(),
    })),
  };
}

/** The stepped migrations as REST prints them (`GET /chain/upgrade/v1beta1/migrations`), so `-o json` matches it. */
export function migrationsToJson(response: QueryMigrationsResponse): { [key: string]: JsonValue } {
  return {
    migrations: response.migrations.map((m) => ({
      upgrade: m.upgrade,
      module: m.module,
      name: m.name,
      started_height: m.startedHeight.toString(),
      finished_height: m.finishedHeight.toString(),
      progress: m.progress,
      steps: m.steps.toString(),
    })),
  };
}
