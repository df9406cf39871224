// `chaind pre-upgrade`: the hook chainvisor (like cosmovisor) runs with the NEW binary after switching
// to it and before restarting the node. This chain has no work to do there, so it succeeds at once and
// quietly; the exit-code protocol is in the help for chains that add work here.
import { Command } from "commander";
import type { CliIo } from "../io.ts";

const PROTOCOL_HELP = `
Called by chainvisor/cosmovisor as "<new binary> pre-upgrade" (no other arguments), after the switch and
before the restart. Exit status protocol:
  0   success: the upgrade continues
  1   "not implemented": the upgrade continues as well
  30  fatal: the upgrade is aborted (the supervisor exits with an error)
  31  retry: the supervisor runs pre-upgrade again (up to DAEMON_PREUPGRADE_MAX_RETRIES extra times)
This release has no pre-upgrade work: it exits 0 without output.
`;

/** `pre-upgrade`. */
export function preUpgradeCommand(_io: CliIo): Command {
  return new Command("pre-upgrade")
    .description("Work to do before the node restarts on a new release (called by chainvisor); exits 0")
    .addHelpText("after", PROTOCOL_HELP)
    .action(() => {
      process.exitCode = 0;
    });
}
