// `chaind query auth …` (upstream v0.50's shapes): accounts, module accounts and parameters.
import { Command } from "commander";
import { addQueryFlags } from "../../../client/cli/flags.ts";
import { addPagingFlags, readPageRequest } from "../../../client/cli/paging.ts";
import type { ClientSession } from "../../../client/cli/session.ts";
import { Query } from "../../../gen/chain/auth/v1beta1/query_pb.js";

/** `query auth account|accounts|module-account|module-accounts|params`. */
export function authQueryCommand(session: ClientSession): Command {
  const auth = new Command("auth").description("Querying commands for the auth module");

  addQueryFlags(
    auth
      .command("account")
      .description("Query an account by its address")
      .argument("<address>", "the account's bech32 address"),
  ).action(async (address: string, _options: unknown, command: Command) => {
    const ctx = session.open(command.optsWithGlobals());
    ctx.printMessage(Query.method.account.output, await ctx.query(Query.method.account, { address }));
  });

  addPagingFlags(addQueryFlags(auth.command("accounts").description("Query all the accounts"))).action(
    async (options: Record<string, unknown>, command: Command) => {
      const ctx = session.open(command.optsWithGlobals());
      const response = await ctx.query(Query.method.accounts, { pagination: readPageRequest(options) });
      ctx.printMessage(Query.method.accounts.output, response);
    },
  );

  addQueryFlags(
    auth
      .command("module-account")
      .alias("module-account-by-name")
      .description("Query a module account by its module's name")
      .argument("<name>", "the module's name, e.g. gov"),
  ).action(async (name: string, _options: unknown, command: Command) => {
    const ctx = session.open(command.optsWithGlobals());
    const response = await ctx.query(Query.method.moduleAccountByName, { name });
    ctx.printMessage(Query.method.moduleAccountByName.output, response);
  });

  addQueryFlags(auth.command("module-accounts").description("Query all the module accounts")).action(
    async (_options: unknown, command: Command) => {
      const ctx = session.open(command.optsWithGlobals());
      ctx.printMessage(Query.method.moduleAccounts.output, await ctx.query(Query.method.moduleAccounts, {}));
    },
  );

  addQueryFlags(auth.command("params").description("Query the auth module's parameters")).action(
    async (_options: unknown, command: Command) => {
      const ctx = session.open(command.optsWithGlobals());
      ctx.printMessage(Query.method.params.output, await ctx.query(Query.method.params, {}));
    },
  );

  return auth;
}
