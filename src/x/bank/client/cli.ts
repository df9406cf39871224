// `chaind query bank …` and `chaind tx bank send` (upstream v0.50's shapes). Thin: parse, query or
// build the Msg, print. `balance` and `params` are plain and generated from the Query service's descriptor
// (src/client/cli/query-commands.ts); the others take a `--denom` that switches the method, so are written here.
import { create } from "@bufbuild/protobuf";
import { Command } from "commander";
import { type CoinError, coinsToProto, parseCoins } from "../../../app/coins.ts";
import type { ModuleCli } from "../../../app/module-cli.ts";
import { CliError } from "../../../client/cli/errors.ts";
import { addQueryFlags, addTxFlags, readTxFlags } from "../../../client/cli/flags.ts";
import { addPagingFlags, readPageRequest } from "../../../client/cli/paging.ts";
import { queryMethodCommand } from "../../../client/cli/query-commands.ts";
import type { ClientSession } from "../../../client/cli/session.ts";
import { addressFromBech32 } from "../../../crypto/bech32.ts";
import { Query } from "../../../gen/chain/bank/v1beta1/query_pb.js";

/** Help of the positional arguments of the generated commands, by request field. */
const ARGUMENT_HELP = { address: "the account's bech32 address (or a key's name)", denom: "the denom" };

/**
 * `query bank balances|balance|total|denom-metadata|params|spendable-balances|spendable-balance|total-supply-of|
 * denom-owners|send-enabled`.
 */
export function bankQueryCommand(session: ClientSession): Command {
  const bank = new Command("bank").description("Querying commands for the bank module");

  addPagingFlags(
    addQueryFlags(
      bank
        .command("balances")
        .description("Query all the balances of an account (or one denom's with --denom)")
        .argument("<address>", "the account's bech32 address (or a key's name)")
        .option("--denom <denom>", "only this denom's balance"),
    ),
  ).action(async (text: string, options: { denom?: string }, command: Command) => {
    const ctx = session.open(command.optsWithGlobals());
    const address = await ctx.addressArgument(text);
    if (options.denom !== undefined) {
      ctx.printMessage(
        Query.method.balance.output,
        await ctx.query(Query.method.balance, { address, denom: options.denom }),
      );
      return;
    }
    const response = await ctx.query(Query.method.allBalances, { address, pagination: readPageRequest(options) });
    ctx.printMessage(Query.method.allBalances.output, response);
  });

  bank.addCommand(
    queryMethodCommand(session, Query.method.balance, {
      description: "Query one denom's balance of an account",
      args: { address: "the account's bech32 address (or a key's name)", denom: "the denom" },
    }),
  );

  addPagingFlags(
    addQueryFlags(
      bank
        .command("total")
        .alias("total-supply")
        .description("Query the total supply of coins of the chain (or one denom's with --denom)")
        .option("--denom <denom>", "only this denom's supply"),
    ),
  ).action(async (options: { denom?: string }, command: Command) => {
    const ctx = session.open(command.optsWithGlobals());
    if (options.denom !== undefined) {
      ctx.printMessage(Query.method.supplyOf.output, await ctx.query(Query.method.supplyOf, { denom: options.denom }));
      return;
    }
    const response = await ctx.query(Query.method.totalSupply, { pagination: readPageRequest(options) });
    ctx.printMessage(Query.method.totalSupply.output, response);
  });

  addPagingFlags(
    addQueryFlags(
      bank
        .command("denom-metadata")
        .alias("denoms-metadata")
        .description("Query the client metadata of every registered coin denom (or one with --denom)")
        .option("--denom <denom>", "only this denom's metadata"),
    ),
  ).action(async (options: { denom?: string }, command: Command) => {
    const ctx = session.open(command.optsWithGlobals());
    if (options.denom !== undefined) {
      const one = await ctx.query(Query.method.denomMetadata, { denom: options.denom });
      ctx.printMessage(Query.method.denomMetadata.output, one);
      return;
    }
    const response = await ctx.query(Query.method.denomsMetadata, { pagination: readPageRequest(options) });
    ctx.printMessage(Query.method.denomsMetadata.output, response);
  });

  bank.addCommand(
    queryMethodCommand(session, Query.method.params, { description: "Query the bank module's parameters" }),
  );

  // Upstream v0.50's AutoCLI names for the rest of the Query service.
  const generated = [
    [Query.method.spendableBalances, "spendable-balances", "Query the spendable balances of an account"],
    [Query.method.spendableBalanceByDenom, "spendable-balance", "Query one denom's spendable balance of an account"],
    [Query.method.supplyOf, "total-supply-of", "Query the supply of one coin denom"],
    [Query.method.denomOwners, "denom-owners", "Query every account holding a denom, with its balance"],
  ] as const;
  for (const [method, name, description] of generated) {
    bank.addCommand(queryMethodCommand(session, method, { name, description, args: ARGUMENT_HELP }));
  }
  addPagingFlags(
    addQueryFlags(
      bank
        .command("send-enabled")
        .description("Query whether sending is enabled for the given denoms (every denom with an entry when none)")
        .argument("[denoms...]", "the denoms"),
    ),
  ).action(async (denoms: string[], options: Record<string, unknown>, command: Command) => {
    const ctx = session.open(command.optsWithGlobals());
    const response = await ctx.query(Query.method.sendEnabled, { denoms, pagination: readPageRequest(options) });
    ctx.printMessage(Query.method.sendEnabled.output, response);
  });

  return bank;
}

/** `tx bank send <from> <to> <coins>`: `<from>` is a key name or address and also serves as --from. */
export function bankTxCommand(session: ClientSession): Command {
  const bank = new Command("bank").description("Bank transaction subcommands");
  addTxFlags(
    bank
      .command("send")
      .description("Send coins from one account to another")
      .argument("<from>", "key name or address of the sender (used as --from)")
      .argument("<to>", "bech32 address of the recipient")
      .argument("<amount>", "coins to send, e.g. 1000stake or 10stake,5atom"),
  ).action(async (from: string, to: string, amount: string, _options: unknown, command: Command) => {
    const options = { ...command.optsWithGlobals(), from };
    const ctx = session.open(options);
    const flags = readTxFlags(options);
    checkAddress(to, "to");
    const coins = coinsArgument(amount);
    const sender = await ctx.fromAddress(from, flags.keyringBackend, flags.generateOnly);
    // The tx machinery and the Msg types load here, not with the file: `query bank` shares this file and needs
    // none of them (hydrating tx_pb's descriptor alone is ~1-2 ms of a query's CPU).
    const [{ runTx }, { packAny }, { MsgSendSchema }] = await Promise.all([
      import("../../../client/cli/tx-sender.ts"),
      import("../../../client/tx/index.ts"),
      import("../../../gen/chain/bank/v1beta1/tx_pb.js"),
    ]);
    const msg = create(MsgSendSchema, { fromAddress: sender, toAddress: to, amount: coinsToProto(coins) });
    ctx.print(await runTx(ctx, flags, [packAny(MsgSendSchema, msg)]));
  });
  return bank;
}

/** Parses a coins argument (`1000stake`, `10stake,5atom`): at least one positive coin. */
export function coinsArgument(text: string) {
  let coins: ReturnType<typeof parseCoins>;
  try {
    coins = parseCoins(text);
  } catch (err) {
    throw new CliError(
      `invalid coins "${text}": ${(err as CoinError).message}; expected e.g. 1000stake or 10stake,5atom`,
      {
        cause: err,
      },
    );
  }
  if (coins.length === 0) throw new CliError(`invalid coins "${text}": no positive amount; expected e.g. 1000stake`);
  return coins;
}

function checkAddress(address: string, what: string): void {
  try {
    addressFromBech32(address);
  } catch (err) {
    throw new CliError(`invalid ${what} address "${address}": ${(err as Error).message}`, { cause: err });
  }
}

/** The bank module's CLI (src/app/module-cli.ts). */
export const bankModuleCli: ModuleCli = { queryCommand: bankQueryCommand, txCommand: bankTxCommand };
