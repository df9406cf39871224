// The client the gov and staking command builders are written against (ModuleCliClient,
// src/client/module-cli-client.ts), implemented over the CLI plumbing: the node's query transport, the keyring
// and the CLI's tx flow.
import type { Any } from "@bufbuild/protobuf/wkt";
import type { Command } from "commander";
import type { ModuleCliClient } from "../module-cli-client.ts";
import type { ClientContext } from "./context.ts";
import { readTxFlags } from "./flags.ts";
import type { ClientSession } from "./session.ts";
import { runTx } from "./tx-sender.ts";

/** The gov and staking builders' client. */
export function moduleCliClient(ctx: ClientContext): ModuleCliClient {
  return {
    broadcastMsgs: (msgs, options) => runTx(ctx, readTxFlags(options), msgs),
    async query(methodPath, requestBytes) {
      return (await ctx.queries.query(methodPath, requestBytes, ctx.flags.height)).value;
    },
    async fromAddress(options) {
      const flags = readTxFlags(options);
      return ctx.fromAddress(flags.from, flags.keyringBackend, flags.generateOnly);
    },
    addressArgument: (text, kind) => ctx.addressArgument(text, kind),
    print: (value) => ctx.print(value),
    typeRegistry: ctx.registry,
  };
}

/** Applies `add` (e.g. addQueryFlags) to every command under `root` that has no subcommands. */
export function onLeaves(root: Command, add: (command: Command) => unknown): Command {
  if (root.commands.length === 0) add(root);
  for (const sub of root.commands) onLeaves(sub, add);
  return root;
}

/**
 * The action of a module's tx command: signs the Msgs `msgs` builds for the `--from` address and broadcasts them
 * (or prints the unsigned document with `--generate-only`, or simulates with `--dry-run`: the tx flags decide),
 * then prints the result as every tx command does.
 *
 * @example
 * .action(async (name, message, _options, command) =>
 *   runModuleTx(session, command, (signer) => [packAny(MsgSignSchema, create(MsgSignSchema, { signer, name, message }))]))
 */
export async function runModuleTx(
  session: ClientSession,
  command: Command,
  msgs: (signer: string) => Any[] | Promise<Any[]>,
): Promise<void> {
  const options = command.optsWithGlobals();
  const ctx = session.open(options);
  const flags = readTxFlags(options);
  const signer = await ctx.fromAddress(flags.from, flags.keyringBackend, flags.generateOnly);
  ctx.print(await runTx(ctx, flags, await msgs(signer)));
}
