// Issue 33's check against a real network: `chaind upgrade rehearse` from a snapshot of a 4-validator CometBFT
// testnet's state at H-1 must give the app hash the real upgrade at H gave (header H+1's). The state at H-1 is the
// one chainvisor backed up when the node's v1 halted at H (its data directory, stopped, before v2 ran; the testnet
// runs chainvisor with UNSAFE_SKIP_BACKUP=false for this). The snapshot is made from it as an operator would:
// `chaind snapshots export --height H-1` and `snapshots dump` on a home holding that data; block H is the network's
// (CometBFT's `/block?height=H`, given with `--block`), since its time, proposer and extended commit reach state.
import { cp, mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { rpcResult, type TestnetNode } from "../../../scripts/testnet/index.ts";
import { homePaths } from "../../../src/config/index.ts";
import { chaindCli } from "./chain-client.ts";

/** What the rehearsal's `-o json` report says (the fields the check reads). */
export interface SnapshotRehearsal {
  height: string;
  applied_at: string;
  app_hash_before: string;
  app_hash_after: string;
  passed: boolean;
  failures: string[];
  determinism: { ran: boolean; equal: boolean };
  /** The snapshot archive the rehearsal ran on. */
  archive: string;
}

/** chainvisor's environment that makes it back up the data directory at the upgrade (in DAEMON_HOME). */
export const BACKUP_AT_UPGRADE_ENV = { UNSAFE_SKIP_BACKUP: "false" };

/**
 * Exports a snapshot at `upgradeHeight - 1` from the data chainvisor backed up in `node`'s home at the upgrade and
 * rehearses `name` on it with the network's block `upgradeHeight`; resolves with the report.
 */
export async function rehearseFromUpgradeBackup(
  node: TestnetNode,
  name: string,
  upgradeHeight: number,
  workDir: string,
): Promise<SnapshotRehearsal> {
  const backups = (await readdir(node.home)).filter((entry) => entry.startsWith("data-backup-")).sort();
  const backup = backups.at(-1);
  if (backup === undefined) throw new Error(`${node.moniker}: chainvisor took no data backup in ${node.home}`);
  // A home of the chain holding the backed-up state only (the node's own home stays untouched).
  const home = join(workDir, "export-home");
  await mkdir(homePaths(home).dataDir, { recursive: true });
  await cp(homePaths(node.home).configDir, homePaths(home).configDir, { recursive: true });
  await cp(join(node.home, backup, "application.db"), homePaths(home).applicationDb, { recursive: true });

  const height = String(upgradeHeight - 1);
  const exported = await chaindCli(["snapshots", "export", "--height", height, "--home", home]);
  const format = /format (\d+)/.exec(exported.stdout)?.[1];
  if (format === undefined) throw new Error(`snapshots export printed no format: ${exported.stdout}`);
  const archive = join(workDir, `${height}-${format}.tar.gz`);
  await chaindCli(["snapshots", "dump", height, format, "--home", home, "--out", archive]);

  const blockFile = join(workDir, `block-${upgradeHeight}.json`);
  await writeFile(blockFile, JSON.stringify(await rpcResult(node, `/block?height=${upgradeHeight}`)));
  const { stdout } = await chaindCli([
    "upgrade",
    "rehearse",
    name,
    "--home",
    home,
    "--snapshot",
    archive,
    "--block",
    blockFile,
    "-o",
    "json",
  ]);
  return { ...(JSON.parse(stdout) as Omit<SnapshotRehearsal, "archive">), archive };
}
