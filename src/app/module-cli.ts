// The one contract through which a module gives `chaind` its client commands and makes its message types known to
// the CLI: the `query <module> …` and `tx <module> …` subcommands, and the types `query tx`, `tx decode` and the
// printers meet inside an Any. It sits beside AppModule (module.ts): AppModule is what the node runs, ModuleCli what
// the CLI runs. A command loads only its own module's CLI, so the contract has a light half (ModuleCliRef: name,
// descriptions, loaders) that the command list reads, and the full half (ModuleCli) that only the running
// subcommand imports. The built-in modules' refs are the standard set (src/runtime/standard-module-clis.ts); a
// chain's own modules' come from its definition (ChainManifest.moduleClis), so no framework file changes when a
// chain adds a module (docs/BUILD-A-CHAIN.md, "Giving a module its CLI commands").
import type { DescFile, DescMessage } from "@bufbuild/protobuf";
import type { Command } from "commander";

/** Files or messages whose types the CLI's registry learns (a file brings every message it declares). */
export type ModuleCliTypes = readonly (DescFile | DescMessage)[];

/**
 * A module's CLI, light: what `chaind query --help` and `chaind tx --help` list, and loaders of the rest.
 *
 * @example
 * export const guestbookCli: ModuleCliRef = {
 *   name: "guestbook",
 *   query: "Querying commands for the guestbook module",
 *   tx: "Guestbook transaction subcommands",
 *   types: async () => [(await import("./gen/guestbook/v1/tx_pb.js")).file_guestbook_v1_tx],
 *   load: async () => (await import("./client/cli.ts")).guestbookModuleCli,
 * };
 */
export interface ModuleCliRef {
  /** The subcommand's name under `query` and `tx` (the module's name). */
  readonly name: string;
  /** The description of `query <name>`; absent: the module has no query subcommand. */
  readonly query?: string;
  /** The description of `tx <name>`; absent: the module has no tx subcommand. */
  readonly tx?: string;
  /**
   * Whether `query <name> …` runs without the type registry and the keyring (its answers hold no Any and it uses
   * no key): those load before every other client command and cost more than a whole light query.
   */
  readonly lightQuery?: boolean;
  /** The module's types for the CLI's registry (Msgs, and whatever its answers pack in an Any). */
  types(): Promise<ModuleCliTypes>;
  /** Imports the module's full CLI (only the running subcommand's module is loaded). */
  load(): Promise<ModuleCli>;
}

/**
 * A module's CLI, full: builders of its `query` and `tx` subcommands. `session` is the client plumbing of the
 * running command (src/client/cli/session.ts: ClientSession), typed loosely here so this floor stays below it;
 * a module writes its builders against ClientSession.
 */
export interface ModuleCli {
  /** `query <name>` with its subcommands; the plain ones may be generated from {@link ModuleCli.queryService}. */
  queryCommand?(session: never): Command | Promise<Command>;
  /** `tx <name>` with its subcommands. */
  txCommand?(session: never): Command | Promise<Command>;
}
