// The client half of `chaind`: the `query` and `tx` command trees, everything that talks to a running node
// through `--node` (consensus RPC) or `--grpc-addr`. The module command builders (upgrade, gov, staking)
// get their flags from src/cli/client/flags.ts so every command takes the same ones, and their clients
// from src/cli/commands/module-clients.ts.
import { Command } from "commander";
import { Query as UpgradeQuery } from "../../gen/chain/upgrade/v1beta1/query_pb.js";
import { authQueryCommand } from "../../x/auth/client/cli.ts";
import { bankQueryCommand, bankTxCommand } from "../../x/bank/client/cli.ts";
import { govQueryCommand, govTxCommand } from "../../x/gov/client/cli.ts";
import { stakingQueryCommand, stakingTxCommand } from "../../x/staking/client/cli.ts";
import { upgradeQueryCommand, upgradeTxCommand } from "../../x/upgrade/client/cli.ts";
import { queryBlockCommand, queryTxCommand, queryTxsCommand } from "../client/chain-commands.ts";
import type { ClientIo } from "../client/context.ts";
import { addQueryFlags, addTxFlags } from "../client/flags.ts";
import { ClientSession } from "../client/session.ts";
import { txBroadcastCommand, txDecodeCommand, txEncodeCommand, txSignCommand } from "../client/tx-commands.ts";
import type { CliIo } from "../io.ts";
import { moduleCliClient, upgradeCliClient } from "./module-clients.ts";

/**
 * The `query` (alias `q`) and `tx` command trees. Query results print as text (YAML) by default, tx
 * results as JSON; `-o` chooses. `io.stdin` and `io.env` (default: the process's) feed
 * the confirmation prompt and the file keyring's passphrase.
 */
export function clientCommands(io: ClientCommandsIo): Command[] {
  return [queryCommand(io), txCommand(io)];
}

/** Where the client commands read and write. */
export type ClientCommandsIo = CliIo & Partial<Pick<ClientIo, "stdin" | "env">>;

/** `query` (alias `q`): results print as text (YAML) unless `-o json`. */
export function queryCommand(io: ClientCommandsIo): Command {
  const session = new ClientSession(io);
  const query = new Command("query")
    .alias("q")
    .description("Querying subcommands (through --node, or --grpc-addr)")
    .addCommand(authQueryCommand(session))
    .addCommand(bankQueryCommand(session))
    .addCommand(onLeaves(govQueryCommand(moduleClientOf(session)), addQueryFlags))
    .addCommand(onLeaves(stakingQueryCommand(moduleClientOf(session)), addQueryFlags))
    .addCommand(upgradeQueryCommand(upgradeOptionsOf(session, io)).addCommand(upgradeAuthorityCommand(session)))
    .addCommand(queryTxCommand(session))
    .addCommand(queryTxsCommand(session))
    .addCommand(queryBlockCommand(session));
  return session.wrapActions(query);
}

/** `tx`: results print as JSON unless `-o` says otherwise. */
export function txCommand(io: ClientCommandsIo): Command {
  const session = new ClientSession(io);
  const tx = new Command("tx")
    .description("Transaction subcommands: build, sign and broadcast through --node")
    .addCommand(bankTxCommand(session))
    .addCommand(onLeaves(govTxCommand(moduleClientOf(session)), addTxFlags))
    .addCommand(onLeaves(stakingTxCommand(moduleClientOf(session)), addTxFlags))
    .addCommand(upgradeTxCommand(upgradeOptionsOf(session, io)))
    .addCommand(txSignCommand(session))
    .addCommand(txBroadcastCommand(session))
    .addCommand(txEncodeCommand(session))
    .addCommand(txDecodeCommand(session));
  // tx commands print JSON unless -o says otherwise, as upstream's do: their output is a document or a
  // TxResponse meant for scripts (`--generate-only | tx sign | tx broadcast`).
  return session.wrapActions(tx, "json");
}

function moduleClientOf(session: ClientSession) {
  return () => moduleCliClient(session.openCurrent());
}

function upgradeOptionsOf(session: ClientSession, io: ClientCommandsIo) {
  return {
    client: (flags: Record<string, unknown>) => upgradeCliClient(session.open(flags)),
    stdout: io.stdout,
    stderr: io.stderr,
    env: io.env,
    addQueryFlags,
    addTxFlags,
  };
}

/** `query upgrade authority`: the address allowed to schedule and cancel upgrades. */
function upgradeAuthorityCommand(session: ClientSession): Command {
  return addQueryFlags(
    new Command("authority").description("Query the upgrade module's authority (the gov module account)"),
  ).action(async (_options: unknown, command: Command) => {
    const ctx = session.open(command.optsWithGlobals());
    ctx.printMessage(UpgradeQuery.method.authority.output, await ctx.query(UpgradeQuery.method.authority, {}));
  });
}

/** Applies `add` to every command under `root` that has no subcommands. */
function onLeaves(root: Command, add: (command: Command) => unknown): Command {
  if (root.commands.length === 0) add(root);
  for (const sub of root.commands) onLeaves(sub, add);
  return root;
}
