// `chaind tx staking …` and `chaind query staking …` (upstream v0.50's command shapes). Thin: parse
// arguments, build the Msg or request, hand it to the injected client, print what comes back. The
// root command supplies the tx flags (--from, --fees, …) and the client plumbing.

import { readFile } from "node:fs/promises";
import {
  create,
  type DescMessage,
  type DescMethod,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";
import type { Any } from "@bufbuild/protobuf/wkt";
import { Command } from "commander";
import { parseCoin } from "../../../app/coins.ts";
import { DecimalError, formatDecimal, parseDecimalInput } from "../../../app/dec.ts";

import { methodPath } from "../../../app/router.ts";
import { fromWireBinary, toWireBinary } from "../../../app/wire-decimals.ts";
import { CliError } from "../../../client/cli/errors.ts";
import { parseUint64 } from "../../../client/cli/flags.ts";
import { messageJson } from "../../../client/cli/output.ts";
import type { ModuleCliClient } from "../../../client/module-cli-client.ts";
import { addressFromBech32, addressToBech32, fromBase64, pubKeyAlgorithmOfTypeUrl } from "../../../crypto/index.ts";
import { Query } from "../../../gen/chain/staking/v1beta1/query_pb.js";
import { MsgCreateValidatorSchema, MsgDelegateSchema } from "../../../gen/chain/staking/v1beta1/tx_pb.js";
import { validateCreateValidator } from "../msg-server.ts";
import { ed25519PubKeyAny } from "../validator.ts";

export type { ModuleCliClient } from "../../../client/module-cli-client.ts";

/** Runs one query method through the client and decodes the response. */
export async function runQuery<I extends DescMessage, O extends DescMessage>(
  client: ModuleCliClient,
  method: DescMethod & { input: I; output: O },
  request: MessageInitShape<I>,
): Promise<MessageShape<O>> {
  const bytes = await client.query(methodPath(method), toWireBinary(method.input, create(method.input, request)));
  return fromWireBinary(method.output, bytes);
}

async function printQuery<I extends DescMessage, O extends DescMessage>(
  client: ModuleCliClient,
  command: Command,
  method: DescMethod & { input: I; output: O },
  request: MessageInitShape<I>,
): Promise<void> {
  const response = await runQuery(client, method, request);
  // The REST gateway's JSON (every field, unset messages null), as every other query command prints.
  client.print(messageJson(method.output, response, client.typeRegistry), command.optsWithGlobals());
}

/** `tx staking delegate|create-validator`. */
export function stakingTxCommand(getClient: () => ModuleCliClient): Command {
  const staking = new Command("staking").description("Staking transaction subcommands");

  staking
    .command("delegate")
    .description("Delegate liquid tokens to a validator")
    .argument("<validator-addr>", "validator operator address (chainvaloper1…)")
    .argument("<amount>", "amount in the bond denom, e.g. 1000000stake")
    .action(async (validator: string, amount: string, _opts: unknown, command: Command) => {
      const client = getClient();
      const options = command.optsWithGlobals();
      checkValoper(validator);
      const coin = parseAmount(amount, "amount");
      const delegator = await client.fromAddress(options);
      const msg = create(MsgDelegateSchema, {
        delegatorAddress: delegator,
        validatorAddress: validator,
        amount: { denom: coin.denom, amount: coin.amount.toString() },
      });
      client.print(await client.broadcastMsgs([packMsg(MsgDelegateSchema, msg)], options), options);
    });

  staking
    .command("create-validator")
    .description("Create a new validator initialized with a self-delegation (upstream's validator.json)")
    .argument("<validator-json>", "path to a JSON file: pubkey, amount, moniker, commission-rate, … (see README)")
    .action(async (file: string, _opts: unknown, command: Command) => {
      const client = getClient();
      const options = command.optsWithGlobals();
      const spec = await readValidatorJson(file);
      const operator = addressToBech32(addressFromBech32(await client.fromAddress(options)), "val");
      const msg = createValidatorFromJson(spec, operator);
      client.print(await client.broadcastMsgs([packMsg(MsgCreateValidatorSchema, msg)], options), options);
    });

  return staking;
}

/** `query staking …`. */
export function stakingQueryCommand(getClient: () => ModuleCliClient): Command {
  const staking = new Command("staking").description("Querying commands for the staking module");
  const page = (command: Command) => {
    const options = command.opts<{ limit?: string; offset?: string; countTotal?: boolean }>();
    return {
      limit: parseUint64(options.limit ?? "0", "--limit", 64),
      offset: parseUint64(options.offset ?? "0", "--offset", 64),
      countTotal: options.countTotal ?? false,
    };
  };
  const withPaging = (command: Command) =>
    command
      .option("--limit <n>", "page size")
      .option("--offset <n>", "entries to skip")
      .option("--count-total", "count the total number of entries");

  withPaging(
    staking
      .command("validators")
      .description("Query all validators")
      .option("--status <status>", "BOND_STATUS_BONDED, BOND_STATUS_UNBONDING or BOND_STATUS_UNBONDED"),
  ).action(async (_opts: unknown, command: Command) => {
    const status = command.opts<{ status?: string }>().status ?? "";
    await printQuery(getClient(), command, Query.method.validators, { status, pagination: page(command) });
  });

  staking
    .command("validator")
    .description("Query a validator")
    .argument("<validator-addr>", "validator operator address")
    .action(async (validator: string, _opts: unknown, command: Command) => {
      const client = getClient();
      const validatorAddr = await client.addressArgument(validator, "val");
      await printQuery(client, command, Query.method.validator, { validatorAddr });
    });

  staking
    .command("delegation")
    .description("Query a delegation based on delegator and validator address")
    .argument("<delegator-addr>")
    .argument("<validator-addr>")
    .action(async (delegator: string, validator: string, _opts: unknown, command: Command) => {
      const client = getClient();
      await printQuery(client, command, Query.method.delegation, {
        delegatorAddr: await client.addressArgument(delegator),
        validatorAddr: await client.addressArgument(validator, "val"),
      });
    });

  withPaging(
    staking
      .command("delegations")
      .description("Query all delegations made by one delegator")
      .argument("<delegator-addr>"),
  ).action(async (delegator: string, _opts: unknown, command: Command) => {
    const client = getClient();
    await printQuery(client, command, Query.method.delegatorDelegations, {
      delegatorAddr: await client.addressArgument(delegator),
      pagination: page(command),
    });
  });

  withPaging(
    staking
      .command("delegations-to")
      .description("Query all delegations made to one validator")
      .argument("<validator-addr>"),
  ).action(async (validator: string, _opts: unknown, command: Command) => {
    const client = getClient();
    await printQuery(client, command, Query.method.validatorDelegations, {
      validatorAddr: await client.addressArgument(validator, "val"),
      pagination: page(command),
    });
  });

  withPaging(
    staking
      .command("delegator-validators")
      .description("Query all validators a delegator delegated to")
      .argument("<delegator-addr>"),
  ).action(async (delegator: string, _opts: unknown, command: Command) => {
    const client = getClient();
    await printQuery(client, command, Query.method.delegatorValidators, {
      delegatorAddr: await client.addressArgument(delegator),
      pagination: page(command),
    });
  });

  staking
    .command("historical-info")
    .description("Query historical info at a given height")
    .argument("<height>")
    .action(async (height: string, _opts: unknown, command: Command) => {
      if (!/^\d+$/.test(height)) throw new CliError(`invalid height "${height}": expected a whole number`);
      await printQuery(getClient(), command, Query.method.historicalInfo, {
        height: parseUint64(height, "height", 63),
      });
    });

  staking
    .command("pool")
    .description("Query the current staking pool values")
    .action(async (_opts: unknown, command: Command) => {
      await printQuery(getClient(), command, Query.method.pool, {});
    });

  staking
    .command("params")
    .description("Query the current staking parameters")
    .action(async (_opts: unknown, command: Command) => {
      await printQuery(getClient(), command, Query.method.params, {});
    });

  return staking;
}

/** The fields of upstream's validator.json. */
export interface ValidatorJson {
  pubkey: { "@type": string; key: string };
  amount: string;
  moniker: string;
  identity?: string;
  website?: string;
  security?: string;
  details?: string;
  "commission-rate": string;
  "commission-max-rate": string;
  "commission-max-change-rate": string;
  "min-self-delegation": string;
}

async function readValidatorJson(file: string): Promise<ValidatorJson> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    throw new CliError(`cannot read validator file ${file}: ${(err as Error).message}`, { cause: err });
  }
  try {
    return JSON.parse(text) as ValidatorJson;
  } catch (err) {
    throw new CliError(`validator file ${file} is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
}

/** Builds MsgCreateValidator from upstream's validator.json shape; errors name the field. */
export function createValidatorFromJson(spec: ValidatorJson, operator: string) {
  if (spec.pubkey === undefined || typeof spec.pubkey.key !== "string") {
    throw new CliError('validator JSON must have "pubkey": {"@type":"/chain.crypto.ed25519.PubKey","key":"<base64>"}');
  }
  if (pubKeyAlgorithmOfTypeUrl(spec.pubkey["@type"]) !== "ed25519") {
    throw new CliError(`unsupported consensus pubkey type ${spec.pubkey["@type"]}: expected an ed25519 key`);
  }
  const key = fromBase64(spec.pubkey.key);
  if (key.length !== 32) throw new CliError(`consensus pubkey has ${key.length} bytes, expected 32 (ed25519)`);
  if (typeof spec.moniker !== "string" || spec.moniker === "") {
    throw new CliError('validator JSON must have a non-empty "moniker"');
  }
  const coin = parseAmount(spec.amount ?? "", "amount");
  const minSelf = spec["min-self-delegation"] ?? "1";
  if (!/^\d+$/.test(minSelf)) {
    throw new CliError(`invalid min-self-delegation "${minSelf}": expected a positive whole number`);
  }
  const msg = create(MsgCreateValidatorSchema, {
    description: {
      moniker: spec.moniker,
      identity: spec.identity ?? "",
      website: spec.website ?? "",
      securityContact: spec.security ?? "",
      details: spec.details ?? "",
    },
    commission: {
      rate: rate(spec["commission-rate"], "commission-rate"),
      maxRate: rate(spec["commission-max-rate"], "commission-max-rate"),
      maxChangeRate: rate(spec["commission-max-change-rate"], "commission-max-change-rate"),
    },
    minSelfDelegation: minSelf,
    validatorAddress: operator,
    pubkey: ed25519PubKeyAny(key),
    value: { denom: coin.denom, amount: coin.amount.toString() },
  });
  // The message's own stateless checks before anything is signed, as upstream's BuildCreateValidatorMsg runs them
  // (a zero amount, a rate above the max rate, …), so --generate-only never prints a tx the chain must refuse.
  try {
    validateCreateValidator(msg);
  } catch (err) {
    throw new CliError(`invalid validator: ${(err as Error).message}`, { cause: err });
  }
  return msg;
}

function rate(text: string | undefined, field: string): string {
  if (text === undefined) throw new CliError(`validator JSON must have "${field}", e.g. "0.1"`);
  try {
    return formatDecimal(parseDecimalInput(text, field));
  } catch (err) {
    if (err instanceof DecimalError) throw new CliError(err.message, { cause: err });
    throw err;
  }
}

function parseAmount(text: string, what: string) {
  try {
    return parseCoin(text);
  } catch (err) {
    throw new CliError(`invalid ${what} "${text}": expected a coin like 1000000stake`, { cause: err });
  }
}

function checkValoper(address: string): void {
  try {
    addressFromBech32(address, "val");
  } catch (err) {
    throw new CliError(`invalid validator address "${address}": ${(err as Error).message}`, { cause: err });
  }
}

function packMsg<D extends DescMessage>(schema: D, msg: MessageShape<D>): Any {
  return { $typeName: "google.protobuf.Any", typeUrl: `/${schema.typeName}`, value: toWireBinary(schema, msg) };
}
