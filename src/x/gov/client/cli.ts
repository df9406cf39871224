// `chaind tx gov …` and `chaind query gov …` (upstream v0.50's command shapes). Thin: parse
// arguments, build the Msg or request, hand it to the injected client, print what comes back. The
// root command supplies the tx flags (--from, --fees, …) and the client plumbing.

import { readFile } from "node:fs/promises";
import {
  create,
  type DescMessage,
  type DescMethod,
  type JsonObject,
  type JsonValue,
  type MessageInitShape,
  type MessageShape,
  type Registry,
} from "@bufbuild/protobuf";
import { type Any, AnySchema } from "@bufbuild/protobuf/wkt";
import { Command } from "commander";
import { coinsToProto, parseCoins } from "../../../app/coins.ts";
import { DecimalError, formatDecimal, parseDecimalInput } from "../../../app/dec.ts";
import { fromProtoJson } from "../../../app/proto-json.ts";
import { methodPath } from "../../../app/router.ts";
import { fromWireBinary, toWireBinary } from "../../../app/wire-decimals.ts";
import { CliError } from "../../../client/cli/errors.ts";
import { messageJson } from "../../../client/cli/output.ts";
import type { ModuleCliClient } from "../../../client/module-cli-client.ts";
import { ProposalStatus, ProposalStatusSchema, type VoteOption } from "../../../gen/chain/gov/v1/gov_pb.js";
import { Query } from "../../../gen/chain/gov/v1/query_pb.js";
import {
  MsgCancelProposalSchema,
  MsgDepositSchema,
  MsgSubmitProposalSchema,
  MsgVoteSchema,
  MsgVoteWeightedSchema,
} from "../../../gen/chain/gov/v1/tx_pb.js";
import { parseVoteOption } from "../vote-options.ts";

export type { ModuleCliClient } from "../../../client/module-cli-client.ts";

/** `tx gov submit-proposal|deposit|vote|weighted-vote|cancel-proposal`. */
export function govTxCommand(getClient: () => ModuleCliClient): Command {
  const gov = new Command("gov").description("Governance transactions subcommands");
  const send = async (command: Command, build: (from: string, client: ModuleCliClient) => Promise<Any> | Any) => {
    const client = getClient();
    const options = command.optsWithGlobals();
    const msg = await build(await client.fromAddress(options), client);
    client.print(await client.broadcastMsgs([msg], options), options);
  };

  gov
    .command("submit-proposal")
    .description(
      'Submit a proposal along with some messages, metadata and deposit: {"messages":[…],"metadata":"…","deposit":"10stake","title":"…","summary":"…","expedited":false}',
    )
    .argument("<proposal-json>", "path to the proposal JSON file")
    .action(async (file: string, _opts: unknown, command: Command) => {
      await send(command, async (from, client) => {
        const proposal = parseProposalJson(await readText(file, "proposal"), client.typeRegistry);
        return pack(MsgSubmitProposalSchema, create(MsgSubmitProposalSchema, { ...proposal, proposer: from }));
      });
    });

  gov
    .command("deposit")
    .description("Deposit tokens for an active proposal")
    .argument("<proposal-id>")
    .argument("<deposit>", "coins, e.g. 10000000stake")
    .action(async (id: string, deposit: string, _opts: unknown, command: Command) => {
      await send(command, (from) =>
        pack(
          MsgDepositSchema,
          create(MsgDepositSchema, {
            proposalId: proposalId(id),
            depositor: from,
            amount: coinsArg(deposit, "deposit"),
          }),
        ),
      );
    });

  gov
    .command("vote")
    .description("Vote for an active proposal, options: yes/no/no_with_veto/abstain")
    .argument("<proposal-id>")
    .argument("<option>", "yes, no, no_with_veto or abstain")
    .option("--metadata <metadata>", "metadata of the vote", "")
    .action(async (id: string, option: string, opts: { metadata: string }, command: Command) => {
      await send(command, (from) =>
        pack(
          MsgVoteSchema,
          create(MsgVoteSchema, {
            proposalId: proposalId(id),
            voter: from,
            option: voteOption(option),
            metadata: opts.metadata,
          }),
        ),
      );
    });

  gov
    .command("weighted-vote")
    .description("Vote for an active proposal with weights, e.g. yes=0.6,no=0.3,abstain=0.1")
    .argument("<proposal-id>")
    .argument("<weighted-options>")
    .option("--metadata <metadata>", "metadata of the vote", "")
    .action(async (id: string, options: string, opts: { metadata: string }, command: Command) => {
      await send(command, (from) =>
        pack(
          MsgVoteWeightedSchema,
          create(MsgVoteWeightedSchema, {
            proposalId: proposalId(id),
            voter: from,
            options: parseWeightedOptions(options),
            metadata: opts.metadata,
          }),
        ),
      );
    });

  gov
    .command("cancel-proposal")
    .description("Cancel a governance proposal before the voting period ends (only the proposer)")
    .argument("<proposal-id>")
    .action(async (id: string, _opts: unknown, command: Command) => {
      await send(command, (from) =>
        pack(MsgCancelProposalSchema, create(MsgCancelProposalSchema, { proposalId: proposalId(id), proposer: from })),
      );
    });

  return gov;
}

/** `query gov …`. */
export function govQueryCommand(getClient: () => ModuleCliClient): Command {
  const gov = new Command("gov").description("Querying commands for the gov module");
  const run = async <I extends DescMessage, O extends DescMessage>(
    command: Command,
    method: DescMethod & { input: I; output: O },
    request: MessageInitShape<I>,
  ) => {
    const client = getClient();
    const bytes = await client.query(methodPath(method), toWireBinary(method.input, create(method.input, request)));
    const response: MessageShape<O> = fromWireBinary(method.output, bytes);
    // The REST gateway's JSON (every field, unset messages null), as every other query command prints.
    client.print(messageJson(method.output, response, client.typeRegistry), command.optsWithGlobals());
  };
  const page = (command: Command) => {
    const options = command.opts<{ limit?: string; offset?: string; countTotal?: boolean; reverse?: boolean }>();
    return {
      limit: wholeNumber(options.limit ?? "0", "--limit"),
      offset: wholeNumber(options.offset ?? "0", "--offset"),
      countTotal: options.countTotal ?? false,
      reverse: options.reverse ?? false,
    };
  };
  const withPaging = (command: Command) =>
    command
      .option("--limit <n>", "page size")
      .option("--offset <n>", "entries to skip")
      .option("--count-total", "count the total number of entries")
      .option("--reverse", "results in descending order");

  gov
    .command("proposal")
    .alias("proposer")
    .description("Query details of a single proposal")
    .argument("<proposal-id>")
    .action(async (id: string, _opts: unknown, command: Command) => {
      await run(command, Query.method.proposal, { proposalId: proposalId(id) });
    });

  withPaging(
    gov
      .command("proposals")
      .description("Query proposals with optional filters")
      .option("--status <status>", "deposit_period, voting_period, passed, rejected or failed")
      // v0.50's AutoCLI names the flag after the request field; v0.47 called it --status. Both work.
      .option("--proposal-status <status>", "the same as --status")
      .option("--voter <address>", "only proposals this address voted on")
      .option("--depositor <address>", "only proposals this address deposited on"),
  ).action(async (_opts: unknown, command: Command) => {
    const options = command.opts<{ status?: string; proposalStatus?: string; voter?: string; depositor?: string }>();
    if (options.status !== undefined && options.proposalStatus !== undefined) {
      throw new CliError("give the status once: --status and --proposal-status are the same flag");
    }
    const status = options.status ?? options.proposalStatus;
    await run(command, Query.method.proposals, {
      proposalStatus: status === undefined ? ProposalStatus.UNSPECIFIED : proposalStatus(status),
      voter: options.voter === undefined ? "" : await getClient().addressArgument(options.voter),
      depositor: options.depositor === undefined ? "" : await getClient().addressArgument(options.depositor),
      pagination: page(command),
    });
  });

  gov
    .command("vote")
    .description("Query details of a single vote")
    .argument("<proposal-id>")
    .argument("<voter-addr>")
    .action(async (id: string, voter: string, _opts: unknown, command: Command) => {
      const proposal = proposalId(id);
      await run(command, Query.method.vote, { proposalId: proposal, voter: await getClient().addressArgument(voter) });
    });

  withPaging(gov.command("votes").description("Query votes of a proposal").argument("<proposal-id>")).action(
    async (id: string, _opts: unknown, command: Command) => {
      await run(command, Query.method.votes, { proposalId: proposalId(id), pagination: page(command) });
    },
  );

  gov
    .command("deposit")
    .description("Query details of a deposit")
    .argument("<proposal-id>")
    .argument("<depositor-addr>")
    .action(async (id: string, depositor: string, _opts: unknown, command: Command) => {
      const proposal = proposalId(id);
      await run(command, Query.method.deposit, {
        proposalId: proposal,
        depositor: await getClient().addressArgument(depositor),
      });
    });

  withPaging(gov.command("deposits").description("Query deposits on a proposal").argument("<proposal-id>")).action(
    async (id: string, _opts: unknown, command: Command) => {
      await run(command, Query.method.deposits, { proposalId: proposalId(id), pagination: page(command) });
    },
  );

  gov
    .command("tally")
    .description("Query the tally of a proposal (live while voting)")
    .argument("<proposal-id>")
    .action(async (id: string, _opts: unknown, command: Command) => {
      await run(command, Query.method.tallyResult, { proposalId: proposalId(id) });
    });

  gov
    .command("params")
    .description("Query the parameters of the governance process")
    .argument("[params-type]", "deposit, voting or tallying (legacy views)", "")
    .action(async (paramsType: string, _opts: unknown, command: Command) => {
      await run(command, Query.method.params, { paramsType });
    });

  gov
    .command("constitution")
    .description("Query the current chain constitution")
    .action(async (_opts: unknown, command: Command) => {
      await run(command, Query.method.constitution, {});
    });

  return gov;
}

/** The fields of a proposal file, ready for MsgSubmitProposal. */
export interface ParsedProposal {
  messages: Any[];
  metadata: string;
  initialDeposit: { denom: string; amount: string }[];
  title: string;
  summary: string;
  expedited: boolean;
}

/** Parses upstream's proposal.json; errors name the field and the expected form. */
export function parseProposalJson(text: string, registry: Registry): ParsedProposal {
  let json: JsonValue;
  try {
    json = JSON.parse(text) as JsonValue;
  } catch (err) {
    throw new CliError(`proposal file is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    throw new CliError("proposal file must hold a JSON object with messages, metadata, deposit, title, summary");
  }
  const object = json as JsonObject;
  const known = new Set(["messages", "metadata", "deposit", "title", "summary", "expedited"]);
  for (const field of Object.keys(object)) {
    if (!known.has(field)) {
      throw new CliError(`unknown field "${field}" in proposal file (fields: ${[...known].join(", ")})`);
    }
  }
  const messages = object.messages ?? [];
  if (!Array.isArray(messages)) throw new CliError('"messages" must be a list of messages with "@type"');
  const anys = messages.map((message, index) => {
    try {
      return fromProtoJson(AnySchema, withZeroPlanTime(message), registry);
    } catch (err) {
      throw new CliError(`cannot parse message ${index} of the proposal: ${(err as Error).message}`, { cause: err });
    }
  });
  const deposit = stringField(object, "deposit");
  let initialDeposit: { denom: string; amount: string }[];
  try {
    initialDeposit = coinsToProto(parseCoins(deposit));
  } catch (err) {
    throw new CliError(`invalid deposit: ${(err as Error).message}`, { cause: err });
  }
  const expedited = object.expedited ?? false;
  if (typeof expedited !== "boolean") throw new CliError('"expedited" must be true or false');
  return {
    messages: anys,
    metadata: stringField(object, "metadata"),
    initialDeposit,
    title: stringField(object, "title"),
    summary: stringField(object, "summary"),
    expedited,
  };
}

/** The software-upgrade message's type URL under either package name (ours or upstream's). */
const SOFTWARE_UPGRADE_TYPE = /^\/(chain|cosmos)\.upgrade\.v1beta1\.MsgSoftwareUpgrade$/;

/**
 * A MsgSoftwareUpgrade whose plan leaves out `time` gets the zero time (0001-01-01T00:00:00Z), as upstream's CLI
 * sends it (its non-nullable time is always encoded) and as `tx upgrade software-upgrade` does: the proposal then
 * prints the plan's time as every other plan does, not as null. Any other message is left as it is.
 */
function withZeroPlanTime(message: JsonValue): JsonValue {
  if (message === null || typeof message !== "object" || Array.isArray(message)) return message;
  const type = message["@type"];
  const plan = message.plan;
  if (typeof type !== "string" || !SOFTWARE_UPGRADE_TYPE.test(type)) return message;
  if (plan === null || typeof plan !== "object" || Array.isArray(plan)) return message;
  if (plan.time !== undefined && plan.time !== null) return message;
  return { ...message, plan: { ...plan, time: "0001-01-01T00:00:00Z" } };
}

/** Parses `yes=0.6,no=0.4` into weighted options (weights as 18-decimal text). */
export function parseWeightedOptions(text: string): { option: VoteOption; weight: string }[] {
  return text.split(",").map((part) => {
    const [name, weight, extra] = part.split("=");
    if (weight === undefined || extra !== undefined) {
      throw new CliError(`invalid weighted vote option "${part}": expected <option>=<weight>, e.g. yes=0.6`);
    }
    let value: bigint;
    try {
      // As upstream: the weight exactly as typed (`yes= 0.5` is refused).
      value = parseDecimalInput(weight, "weight");
    } catch (err) {
      if (err instanceof DecimalError) throw new CliError(err.message, { cause: err });
      throw err;
    }
    return { option: voteOption(name), weight: formatDecimal(value) };
  });
}

function voteOption(text: string): VoteOption {
  const option = parseVoteOption(text);
  if (option === undefined) {
    throw new CliError(`'${text}' is not a valid vote option: expected yes, no, no_with_veto or abstain`);
  }
  return option;
}

function proposalStatus(text: string): ProposalStatus {
  const normalized = text.trim().toUpperCase();
  const name = normalized.startsWith("PROPOSAL_STATUS_") ? normalized : `PROPOSAL_STATUS_${normalized}`;
  const value = ProposalStatusSchema.values.find((v) => v.name === name);
  if (value === undefined || value.number === ProposalStatus.UNSPECIFIED) {
    throw new CliError(
      `'${text}' is not a valid proposal status: expected deposit_period, voting_period, passed, rejected or failed`,
    );
  }
  return value.number as ProposalStatus;
}

// Ids, limits and offsets are uint64 on the wire: a larger number is refused here (as upstream's ParseUint), not
// by the encoder, whose error is not the user's words.
const MAX_UINT64 = (1n << 64n) - 1n;

function isUint64(text: string): boolean {
  return /^\d+$/.test(text) && BigInt(text) <= MAX_UINT64;
}

function proposalId(text: string): bigint {
  if (!isUint64(text)) throw new CliError(`proposal-id ${text} not a valid uint, please input a valid proposal-id`);
  return BigInt(text);
}

function wholeNumber(text: string, flag: string): bigint {
  if (!isUint64(text)) throw new CliError(`invalid ${flag} "${text}": expected a whole number up to ${MAX_UINT64}`);
  return BigInt(text);
}

function coinsArg(text: string, what: string) {
  try {
    const coins = parseCoins(text);
    if (coins.length === 0) throw new Error("no coins given");
    return coinsToProto(coins);
  } catch (err) {
    throw new CliError(`invalid ${what} "${text}": expected coins like 10000000stake`, { cause: err });
  }
}

function stringField(object: JsonObject, field: string): string {
  const value = object[field] ?? "";
  if (typeof value !== "string") throw new CliError(`"${field}" must be a string`);
  return value;
}

async function readText(file: string, what: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (err) {
    throw new CliError(`cannot read ${what} file ${file}: ${(err as Error).message}`, { cause: err });
  }
}

function pack<D extends DescMessage>(schema: D, msg: MessageShape<D>): Any {
  return create(AnySchema, { typeUrl: `/${schema.typeName}`, value: toWireBinary(schema, msg) });
}
