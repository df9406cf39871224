// Issue 33's check against a real network: `chaind upgrade rehearse` from a snapshot of a 4-validator CometBFT
// testnet's state at H-1 must give the app hash the real upgrade at H gave (header H+1's). The state at H-1 is the
// one chainvisor backed up when the node's v1 halted at H (its data directory, stopped, before v2 ran; the testnet
// runs chainvisor with UNSAFE_SKIP_BACKUP=false for this). The snapshot is made from it as an operator would:
// `chaind snapshots export --height H-1` and `snapshots dump` on a home holding that data; block H is the network's
// (CometBFT's `/block?height=H`, given with `--block`), since its time, proposer and extended commit reach state; a
// second rehearsal without it runs the block the rehearsal builds (built-commit.ts), with block H's time and proposer.
import { cp, mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { rpcResult, type TestnetNode } from "../../../scripts/testnet/index.ts";
import { decodeExtendedCommitTx } from "../../../src/app/extended-commit.ts";
import { homePaths } from "../../../src/config/index.ts";
import { BlockIDFlag } from "../../../src/gen/tendermint/types/validator_pb.js";
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
): Promise<{ withBlock: SnapshotRehearsal; built: SnapshotRehearsal; allPrecommitted: boolean }> {
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
  const answer = await rpcResult(node, `/block?height=${upgradeHeight}`);
  await writeFile(blockFile, JSON.stringify(answer));
  const rehearse = async (extra: string[]): Promise<SnapshotRehearsal> => {
    const args = ["upgrade", "rehearse", name, "--home", home, "--snapshot", archive, ...extra, "-o", "json"];
    const { stdout } = await chaindCli(args);
    return { ...(JSON.parse(stdout) as Omit<SnapshotRehearsal, "archive">), archive };
  };
  // Whether the real block's extended commit has every validator precommitting: then the block the rehearsal builds
  // without --block (each bonded validator re-signalling its latest signal) is the real one, state for state.
  const { header, data } = (
    answer as { block: { header: { time: string; proposer_address: string }; data: { txs: string[] } } }
  ).block;
  const txs = data.txs;
  const commit = decodeExtendedCommitTx(new Uint8Array(Buffer.from(txs[0] ?? "", "base64")));
  const allPrecommitted = commit.votes.every((vote) => vote.blockIdFlag === BlockIDFlag.BLOCK_ID_FLAG_COMMIT);
  return {
    withBlock: await rehearse(["--block", blockFile]),
    built: await rehearse(["--block-time", header.time, "--proposer", header.proposer_address]),
    allPrecommitted,
  };
}
