// Public entry point of the CLI kit (`chaind/client/cli`): what a module's CLI is written with (the ModuleCli
// contract, src/app/module-cli.ts): the session of the running command, the shared flags, query commands generated
// from a Query service, the tx action, and commander's Command itself, so a chain builds its commands with the same
// commander the framework parses with.
export { Command } from "commander";
export type { ClientContext, ClientIo } from "./context.ts";
export { CliError } from "./errors.ts";
export { addQueryFlags, addTxFlags, readTxFlags } from "./flags.ts";
export { onLeaves, runModuleTx } from "./module-client.ts";
export { addPagingFlags, readPageRequest } from "./paging.ts";
export { generatedMethod, type QueryCommandSpec, queryMethodCommand, queryServiceCommands } from "./query-commands.ts";
export { ClientSession } from "./session.ts";
