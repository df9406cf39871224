// `guestbookd query guestbook signature <name>` (generated from the Query service's descriptor) and
// `guestbookd tx guestbook sign <name> <message> --from <key>` (a MsgSign signed by --from), built with the CLI kit
// (chaind/client/cli) so they take the same flags and print as every built-in command does.
import { create } from "@bufbuild/protobuf";
import type { ModuleCli } from "chaind/app";
import { addTxFlags, type ClientSession, Command, queryServiceCommands, runModuleTx } from "chaind/client/cli";
import { packAny } from "chaind/client/tx";
import { Query } from "../gen/guestbook/v1/query_pb.js";
import { MsgSignSchema } from "../gen/guestbook/v1/tx_pb.js";

/** `query guestbook signature <name>`. */
export function guestbookQueryCommand(session: ClientSession): Command {
  return queryServiceCommands(
    new Command("guestbook").description("Querying commands for the guestbook module"),
    session,
    Query,
    { Signature: { description: "Query the message a guest signed", args: { name: "the guest's name" } } },
  );
}

/** `tx guestbook sign <name> <message>`: signs the guestbook as `--from`. */
export function guestbookTxCommand(session: ClientSession): Command {
  const guestbook = new Command("guestbook").description("Guestbook transaction subcommands");
  addTxFlags(
    guestbook
      .command("sign")
      .description("Sign the guestbook: write <message> under <name>")
      .argument("<name>", "the guest's name")
      .argument("<message>", "what the guest writes"),
  ).action(async (name: string, message: string, _options: unknown, command: Command) =>
    runModuleTx(session, command, (signer) => [
      packAny(MsgSignSchema, create(MsgSignSchema, { signer, name, message })),
    ]),
  );
  return guestbook;
}

/** The guestbook's CLI (ModuleCli): its query and tx commands. */
export const guestbookModuleCli: ModuleCli = {
  queryCommand: guestbookQueryCommand,
  txCommand: guestbookTxCommand,
};
