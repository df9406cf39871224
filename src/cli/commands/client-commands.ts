// The client half of `chaind`: the `query` and `tx` command trees, everything that talks to a running node
// through `--node` (consensus RPC) or `--grpc-addr`. The module subcommands are the chain's modules' CLIs (the
// ModuleCli contract, src/app/module-cli.ts: the standard modules' and the chain's own, from its manifest); the
// chain-wide ones (tx lookups, blocks, tx documents) are listed here. Nothing here names a module.
import { Command } from "commander";
import type { ModuleCliRef } from "../../app/module-cli.ts";
import type { ClientIo } from "../../client/cli/context.ts";
import { ClientSession } from "../../client/cli/session.ts";
import { currentChainManifest } from "../../runtime/current-chain.ts";
import { chainModuleClis } from "../../runtime/standard-module-clis.ts";
import type { CliIo } from "../io.ts";
import { addLazyCommands, type CommandSpec } from "../lazy-command.ts";
import { ROOT_OPTION_SHAPE } from "../root-options.ts";

/**
 * The `query` (alias `q`) and `tx` command trees, every subcommand loaded. Query results print as text
 * (YAML) by default, tx results as JSON; `-o` chooses. `io.stdin` and `io.env` (default: the process's)
 * feed the confirmation prompt and the file keyring's passphrase.
 */
export async function clientCommands(io: ClientCommandsIo): Promise<Command[]> {
  return [await queryCommand(io), await txCommand(io)];
}

/** Where the client commands read and write. */
export type ClientCommandsIo = CliIo & Partial<Pick<ClientIo, "stdin" | "env">>;

/**
 * `query` (alias `q`): results print as text (YAML) unless `-o json`. `args` (argv after `query`) names
 * the subcommand that runs: only its module's implementation is imported (src/cli/lazy-command.ts).
 */
export async function queryCommand(io: ClientCommandsIo, args: readonly string[] = []): Promise<Command> {
  const session = new ClientSession(io, servedModuleClis());
  const query = new Command("query").alias("q").description("Querying subcommands (through --node, or --grpc-addr)");
  await addLazyCommands(query, querySpecs(session, io), args, io, ROOT_OPTION_SHAPE);
  return session.wrapActions(query);
}

/** `tx`: results follow `-o` (text = YAML); lazily loaded as `query` is. */
export async function txCommand(io: ClientCommandsIo, args: readonly string[] = []): Promise<Command> {
  const session = new ClientSession(io, servedModuleClis());
  const tx = new Command("tx").description("Transaction subcommands: build, sign and broadcast through --node");
  await addLazyCommands(tx, txSpecs(session, io), args, io, ROOT_OPTION_SHAPE);
  // Tx results follow -o like everything else (text = YAML, as upstream v0.50 with client.toml's default
  // output "text"); tx documents (--generate-only, tx sign) are always JSON so they can be piped on.
  return session.wrapActions(tx);
}

/** The module CLIs of the chain this process serves (src/runtime/standard-module-clis.ts), from its manifest. */
export function servedModuleClis(): readonly ModuleCliRef[] {
  return chainModuleClis(currentChainManifest());
}

/**
 * The subcommands of `query`, described lightly (checked against the loaded ones by command-list.test.ts): one per
 * module with a query CLI (the chain's modules, src/app/module-cli.ts), then the chain-wide lookups.
 */
export function querySpecs(session: ClientSession, _io: ClientCommandsIo): CommandSpec[] {
  const chainCommands = () => import("../../client/cli/chain-commands.ts");
  const modules: CommandSpec[] = session.modules.flatMap((cli) =>
    cli.query === undefined
      ? []
      : [
          {
            name: cli.name,
            description: cli.query,
            load: async () => {
              const built = await moduleCommand(cli, "queryCommand", session);
              // Answers with no Any and no key: these run without the type registry and keyring.
              return cli.lightQuery === true ? session.markLight(built) : built;
            },
          },
        ],
  );
  return [
    ...modules,
    {
      name: "tx",
      description:
        'Query a tx by hash (default), by signer address and sequence (--type acc_seq <addr>/<seq>), by signatures (--type signature <sig,...>) or search by events (--type events "<query>")',
      load: async () => (await chainCommands()).queryTxCommand(session),
    },
    {
      name: "txs",
      description: "Search txs by events, e.g. --query \"message.sender='chain1…' AND tx.height>5\"",
      load: async () => (await chainCommands()).queryTxsCommand(session),
    },
    {
      name: "wait-tx",
      description: "Wait for a tx (by hash, or a tx command's output piped in) to be included in a block and print it",
      load: async () => (await import("../../client/cli/wait-tx-command.ts")).queryWaitTxCommand(session),
    },
    {
      name: "block",
      description: "Query a committed block by height (default: the latest) or by hash (--type hash)",
      load: async () => (await chainCommands()).queryBlockCommand(session),
    },
    {
      name: "blocks",
      description: 'Search blocks by their events, e.g. --query "block.height > 5"',
      load: async () => (await chainCommands()).queryBlocksCommand(session),
    },
  ];
}

/** The subcommands of `tx`, described lightly: one per module with a tx CLI, then the tx document commands. */
export function txSpecs(session: ClientSession, _io: ClientCommandsIo): CommandSpec[] {
  const txCommands = () => import("../../client/cli/tx-commands.ts");
  const modules: CommandSpec[] = session.modules.flatMap((cli) =>
    cli.tx === undefined
      ? []
      : [{ name: cli.name, description: cli.tx, load: () => moduleCommand(cli, "txCommand", session) }],
  );
  return [
    ...modules,
    {
      name: "sign",
      description:
        "Sign a tx document made by --generate-only; account number and sequence come from the chain unless --account-number and --sequence are given (offline)",
      load: async () => (await txCommands()).txSignCommand(session),
    },
    {
      name: "broadcast",
      description: "Broadcast a signed tx document (made by tx sign) to the node",
      load: async () => (await txCommands()).txBroadcastCommand(session),
    },
    {
      name: "encode",
      description: "Encode a tx document as base64 TxRaw bytes",
      load: async () => (await txCommands()).txEncodeCommand(session),
    },
    {
      name: "decode",
      description: "Decode base64 (or hex with --hex) TxRaw bytes into a tx document",
      load: async () => (await txCommands()).txDecodeCommand(session),
    },
  ];
}

/** Loads `cli`'s module CLI and builds its `query` or `tx` command; a ref that promises one its CLI lacks is a bug. */
async function moduleCommand(
  cli: ModuleCliRef,
  which: "queryCommand" | "txCommand",
  session: ClientSession,
): Promise<Command> {
  const full = await cli.load();
  const build = full[which];
  if (build === undefined) throw new Error(`module CLI "${cli.name}" lists a ${which} but its CLI has none`);
  return build(session as never);
}
