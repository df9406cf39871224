// The upgrade module's full CLI (the ModuleCli contract, src/app/module-cli.ts): its builders (cli.ts) over the
// upgrade client of the running command (cli-client.ts), and `query upgrade authority`, generated from the Query
// service's descriptor.
import type { ModuleCli } from "../../../app/module-cli.ts";
import { addQueryFlags, addTxFlags } from "../../../client/cli/flags.ts";
import { queryMethodCommand } from "../../../client/cli/query-commands.ts";
import type { ClientSession } from "../../../client/cli/session.ts";
import { Query } from "../../../gen/chain/upgrade/v1beta1/query_pb.js";
import { type UpgradeCliOptions, upgradeQueryCommand, upgradeTxCommand } from "./cli.ts";
import { upgradeCliClient } from "./cli-client.ts";

/** `query upgrade …` and `tx upgrade …`. */
export const upgradeModuleCli: ModuleCli = {
  queryCommand: (session: ClientSession) =>
    upgradeQueryCommand(optionsOf(session)).addCommand(
      queryMethodCommand(session, Query.method.authority, {
        description: "Query the upgrade module's authority (the gov module account)",
      }),
    ),
  txCommand: (session: ClientSession) => upgradeTxCommand(optionsOf(session)),
};

function optionsOf(session: ClientSession): UpgradeCliOptions {
  return {
    client: (flags: Record<string, unknown>) => upgradeCliClient(session.open(flags)),
    stdout: session.io.stdout,
    stderr: session.io.stderr,
    env: session.io.env,
    addQueryFlags,
    addTxFlags,
  };
}
