// Running a node's chaind under chainvisor: installing it in the home (the genesis release and any staged upgrades)
// and the DAEMON_* environment it runs with.

import { run } from "./tools.ts";
import { CHAINVISOR_ENTRY, type ChainvisorSetup, type NodeRecord } from "./types.ts";

/** `chainvisor init` with the genesis release, then `chainvisor add-upgrade` for each staged release, in one home. */
export async function installChainvisor(record: NodeRecord, setup: ChainvisorSetup): Promise<void> {
  const env = chainvisorEnv(record.home, setup);
  await run(process.execPath, [CHAINVISOR_ENTRY, "init", setup.genesis], env);
  for (const upgrade of setup.upgrades ?? []) {
    await run(process.execPath, [CHAINVISOR_ENTRY, "add-upgrade", upgrade.name, upgrade.path], env);
  }
}

/**
 * The environment chainvisor runs with in `home`: DAEMON_HOME and DAEMON_NAME, the defaults, then the setup's own,
 * then those of node `index` (when given).
 */
export function chainvisorEnv(home: string, setup: ChainvisorSetup, index?: number): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DAEMON_HOME: home,
    DAEMON_NAME: "chaind",
    DAEMON_SHUTDOWN_GRACE: "10s",
    UNSAFE_SKIP_BACKUP: "true",
    ...setup.env,
    ...(index === undefined ? {} : setup.nodeEnv?.[index]),
  };
}
