// The client half of `chaind`: the `query` and `tx` command trees, everything that talks to a running node
// through `--node` (consensus RPC) or `--grpc-addr`. The module command builders (upgrade, gov, staking)
// get their flags from src/cli/client/flags.ts so every command takes the same ones, and their clients
// from src/cli/client/module-clients.ts.
import { Command } from "commander";
import { Query as UpgradeQuery } from "../../gen/chain/upgrade/v1beta1/query_pb.js";
import { govQueryCommand, govTxCommand } from "../../x/gov/cli.ts";
import { stakingQueryCommand, stakingTxCommand } from "../../x/staking/cli.ts";
import { upgradeQueryCommand, upgradeTxCommand } from "../../x/upgrade/cli.ts";
import { authQueryCommand } from "../client/auth-commands.ts";
import { bankQueryCommand, bankTxCommand } from "../client/bank-commands.ts";
import { queryBlockCommand, queryBlocksCommand, queryTxCommand, queryTxsCommand } from "../client/chain-commands.ts";
import type { ClientIo } from "../client/context.ts";
import { addQueryFlags, addTxFlags } from "../client/flags.ts";
import { moduleCliClient, upgradeCliClient } from "../client/module-clients.ts";
import { ClientSession } from "../client/session.ts";
import { txBroadcastCommand, txDecodeCommand, txEncodeCommand, txSignCommand } from "../client/tx-commands.ts";
import type { CliIo } from "../root.ts";

/**
 * The `query` (alias `q`) and `tx` command trees. Query results print as text (YAML) by default, tx
 * results as JSON; `-o` chooses. `io.stdin` and `io.env` (default: the process's) feed
 * the confirmation prompt and the file keyring's passphrase.
 */
export function clientCommands(io: CliIo & Partial<Pick<ClientIo, "stdin" | "env">>): Command[] {
  const session = new ClientSession(io);
  const moduleClient = () => moduleCliClient(session.openCurrent());
  const upgradeOptions = {
    client: (flags: Record<string, unknown>) => upgradeCliClient(session.open(flags)),
    stdout: io.stdout,
    stderr: io.stderr,
    env: io.env,
    addQueryFlags,
    addTxFlags,
  };

  const query = new Command("query")
    .alias("q")
    .description("Querying subcommands (through --node, or --grpc-addr)")
    .addCommand(authQueryCommand(session))
    .addCommand(bankQueryCommand(session))
    .addCommand(onLeaves(govQueryCommand(moduleClient), addQueryFlags))
    .addCommand(onLeaves(stakingQueryCommand(moduleClient), addQueryFlags))
    .addCommand(upgradeQueryCommand(upgradeOptions).addCommand(upgradeAuthorityCommand(session)))
    .addCommand(queryTxCommand(session))
    .addCommand(queryTxsCommand(session))
    .addCommand(queryBlockCommand(session))
    .addCommand(queryBlocksCommand(session));

  const tx = new Command("tx")
    .description("Transaction subcommands: build, sign and broadcast through --node")
    .addCommand(bankTxCommand(session))
    .addCommand(onLeaves(govTxCommand(moduleClient), addTxFlags))
    .addCommand(onLeaves(stakingTxCommand(moduleClient), addTxFlags))
    .addCommand(upgradeTxCommand(upgradeOptions))
    .addCommand(txSignCommand(session))
    .addCommand(txBroadcastCommand(session))
    .addCommand(txEncodeCommand(session))
    .addCommand(txDecodeCommand(session));

  // Tx results follow -o like everything else (text = YAML, as upstream v0.50 with client.toml's default
  // output "text"); tx documents (--generate-only, tx sign) are always JSON so they can be piped on.
  return [session.wrapActions(query), session.wrapActions(tx)];
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
