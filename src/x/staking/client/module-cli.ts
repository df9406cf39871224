// The staking module's full CLI (the ModuleCli contract, src/app/module-cli.ts): its builders (cli.ts) over the
// module client of the running command, with the query or tx flags on every leaf.
import type { ModuleCli } from "../../../app/module-cli.ts";
import { addQueryFlags, addTxFlags } from "../../../client/cli/flags.ts";
import { moduleCliClient, onLeaves } from "../../../client/cli/module-client.ts";
import type { ClientSession } from "../../../client/cli/session.ts";
import { stakingQueryCommand, stakingTxCommand } from "./cli.ts";

/** `query staking …` and `tx staking …`. */
export const stakingModuleCli: ModuleCli = {
  queryCommand: (session: ClientSession) =>
    onLeaves(
      stakingQueryCommand(() => moduleCliClient(session.openCurrent())),
      addQueryFlags,
    ),
  txCommand: (session: ClientSession) =>
    onLeaves(
      stakingTxCommand(() => moduleCliClient(session.openCurrent())),
      addTxFlags,
    ),
};
