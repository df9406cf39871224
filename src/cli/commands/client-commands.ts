// The client half of `chaind`: the `query` and `tx` command trees, everything that talks to a running node
// through `--node` (consensus RPC) or `--grpc-addr`. The module command builders (upgrade, gov, staking)
// get their flags from src/client/cli/flags.ts so every command takes the same ones, and their clients
// from src/cli/commands/module-clients.ts.
import { Command } from "commander";
import type { ClientIo } from "../../client/cli/context.ts";
import { addQueryFlags, addTxFlags } from "../../client/cli/flags.ts";
import { ClientSession } from "../../client/cli/session.ts";
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
  const session = new ClientSession(io);
  const query = new Command("query").alias("q").description("Querying subcommands (through --node, or --grpc-addr)");
  await addLazyCommands(query, querySpecs(session, io), args, io, ROOT_OPTION_SHAPE);
  return session.wrapActions(query);
}

/** `tx`: results follow `-o` (text = YAML); lazily loaded as `query` is. */
export async function txCommand(io: ClientCommandsIo, args: readonly string[] = []): Promise<Command> {
  const session = new ClientSession(io);
  const tx = new Command("tx").description("Transaction subcommands: build, sign and broadcast through --node");
  await addLazyCommands(tx, txSpecs(session, io), args, io, ROOT_OPTION_SHAPE);
  // Tx results follow -o like everything else (text = YAML, as upstream v0.50 with client.toml's default
  // output "text"); tx documents (--generate-only, tx sign) are always JSON so they can be piped on.
  return session.wrapActions(tx);
}

/** The subcommands of `query`, described lightly (checked against the loaded ones by command-list.test.ts). */
export function querySpecs(session: ClientSession, io: ClientCommandsIo): CommandSpec[] {
  return [
    {
      name: "auth",
      description: "Querying commands for the auth module",
      load: async () => (await import("../../x/auth/client/cli.ts")).authQueryCommand(session),
    },
    {
      name: "bank",
      description: "Querying commands for the bank module",
      // Bank's answers hold no Any and need no key: they run without the type registry and keyring.
      load: async () => session.markLight((await import("../../x/bank/client/cli.ts")).bankQueryCommand(session)),
    },
    {
      name: "gov",
      description: "Querying commands for the gov module",
      load: async () =>
        onLeaves(
          (await import("../../x/gov/client/cli.ts")).govQueryCommand(await moduleClientOf(session)),
          addQueryFlags,
        ),
    },
    {
      name: "staking",
      description: "Querying commands for the staking module",
      load: async () =>
        onLeaves(
          (await import("../../x/staking/client/cli.ts")).stakingQueryCommand(await moduleClientOf(session)),
          addQueryFlags,
        ),
    },
    {
      name: "upgrade",
      description: "Querying commands for the upgrade module",
      load: async () =>
        (await import("../../x/upgrade/client/cli.ts"))
          .upgradeQueryCommand(await upgradeOptionsOf(session, io))
          .addCommand(upgradeAuthorityCommand(session)),
    },
    {
      name: "tx",
      description:
        'Query a tx by hash (default), by signer address and sequence (--type acc_seq <addr>/<seq>), by signatures (--type signature <sig,...>) or search by events (--type events "<query>")',
      load: async () => (await import("../../client/cli/chain-commands.ts")).queryTxCommand(session),
    },
    {
      name: "txs",
      description: "Search txs by events, e.g. --query \"message.sender='chain1…' AND tx.height>5\"",
      load: async () => (await import("../../client/cli/chain-commands.ts")).queryTxsCommand(session),
    },
    {
      name: "block",
      description: "Query a committed block by height (default: the latest) or by hash (--type hash)",
      load: async () => (await import("../../client/cli/chain-commands.ts")).queryBlockCommand(session),
    },
    {
      name: "blocks",
      description: 'Search blocks by their events, e.g. --query "block.height > 5"',
      load: async () => (await import("../../client/cli/chain-commands.ts")).queryBlocksCommand(session),
    },
  ];
}

/** The subcommands of `tx`, described lightly. */
export function txSpecs(session: ClientSession, io: ClientCommandsIo): CommandSpec[] {
  const txCommands = () => import("../../client/cli/tx-commands.ts");
  return [
    {
      name: "bank",
      description: "Bank transaction subcommands",
      load: async () => (await import("../../x/bank/client/cli.ts")).bankTxCommand(session),
    },
    {
      name: "gov",
      description: "Governance transactions subcommands",
      load: async () =>
        onLeaves((await import("../../x/gov/client/cli.ts")).govTxCommand(await moduleClientOf(session)), addTxFlags),
    },
    {
      name: "staking",
      description: "Staking transaction subcommands",
      load: async () =>
        onLeaves(
          (await import("../../x/staking/client/cli.ts")).stakingTxCommand(await moduleClientOf(session)),
          addTxFlags,
        ),
    },
    {
      name: "upgrade",
      description: "Upgrade transaction subcommands",
      load: async () =>
        (await import("../../x/upgrade/client/cli.ts")).upgradeTxCommand(await upgradeOptionsOf(session, io)),
    },
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

async function moduleClientOf(session: ClientSession) {
  const { moduleCliClient } = await import("./module-clients.ts");
  return () => moduleCliClient(session.openCurrent());
}

async function upgradeOptionsOf(session: ClientSession, io: ClientCommandsIo) {
  const { upgradeCliClient } = await import("./module-clients.ts");
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
    // Imported here so the other query commands do not load upgrade's schemas.
    const { Query: UpgradeQuery } = await import("../../gen/chain/upgrade/v1beta1/query_pb.js");
    ctx.printMessage(UpgradeQuery.method.authority.output, await ctx.query(UpgradeQuery.method.authority, {}));
  });
}

/** Applies `add` to every command under `root` that has no subcommands. */
function onLeaves(root: Command, add: (command: Command) => unknown): Command {
  if (root.commands.length === 0) add(root);
  for (const sub of root.commands) onLeaves(sub, add);
  return root;
}
