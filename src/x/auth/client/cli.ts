// `chaind query auth …` (upstream v0.50's shapes): accounts, module accounts and parameters. Every command is
// plain, so each is generated from the Query service's descriptor (src/client/cli/query-commands.ts); this file
// only names them and writes their help.
import { Command } from "commander";
import type { ModuleCli } from "../../../app/module-cli.ts";
import { queryServiceCommands } from "../../../client/cli/query-commands.ts";
import type { ClientSession } from "../../../client/cli/session.ts";
import { Query } from "../../../gen/chain/auth/v1beta1/query_pb.js";

/** `query auth account|accounts|module-account|module-accounts|params`. */
export function authQueryCommand(session: ClientSession): Command {
  return queryServiceCommands(
    new Command("auth").description("Querying commands for the auth module"),
    session,
    Query,
    {
      Account: {
        description: "Query an account by its address",
        args: { address: "the account's bech32 address (or a key's name)" },
      },
      Accounts: { description: "Query all the accounts" },
      ModuleAccountByName: {
        name: "module-account",
        aliases: ["module-account-by-name"],
        description: "Query a module account by its module's name",
        args: { name: "the module's name, e.g. gov" },
      },
      ModuleAccounts: { description: "Query all the module accounts" },
      Params: { description: "Query the auth module's parameters" },
    },
  );
}

/** The auth module's CLI (src/app/module-cli.ts): queries only. */
export const authModuleCli: ModuleCli = { queryCommand: authQueryCommand };
