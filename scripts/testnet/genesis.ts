// The shared genesis of a testnet: every validator funded, one gentx each collected in the first home, the gov
// periods optionally shortened, validated, then copied to every home.
import { copyFile, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { homePaths } from "../../src/config/home.ts";
import { chaind } from "./tools.ts";
import { type GenesisAccount, type NodeRecord, TestnetError, type TestnetOptions } from "./types.ts";

/** Builds the shared genesis in the first home and copies it to every other one. */
export async function buildGenesis(records: NodeRecord[], chainId: string, options: TestnetOptions): Promise<void> {
  const first = records[0].home;
  const accounts: GenesisAccount[] = [
    ...records.map((r) => ({ address: r.address, coins: options.validatorCoins ?? "1000000000000stake" })),
    ...(options.accounts ?? []),
  ];
  for (const account of accounts) {
    await chaind(["genesis", "add-genesis-account", account.address, account.coins, "--home", first]);
  }
  // Every validator signs its gentx against a genesis that already funds it.
  const genesisFile = homePaths(first).genesis;
  await Promise.all(records.slice(1).map((r) => copyFile(genesisFile, homePaths(r.home).genesis)));
  await Promise.all(
    records.map((record) =>
      chaind([
        "genesis",
        "gentx",
        record.keyName,
        options.selfDelegation ?? "100000000stake",
        "--chain-id",
        chainId,
        "--keyring-backend",
        "test",
        "--home",
        record.home,
      ]),
    ),
  );
  const gentxDir = homePaths(first).gentxDir;
  for (const record of records.slice(1)) {
    const own = homePaths(record.home).gentxDir;
    for (const name of await readdir(own)) await copyFile(join(own, name), join(gentxDir, name));
  }
  await chaind(["genesis", "collect-gentxs", "--home", first]);

  if (options.votingPeriod !== undefined || options.editGenesis !== undefined) {
    const genesis = JSON.parse(await readFile(genesisFile, "utf8")) as Record<string, unknown>;
    if (options.votingPeriod !== undefined) shortenGovernance(genesis, options.votingPeriod);
    options.editGenesis?.(genesis);
    await writeFile(genesisFile, `${JSON.stringify(genesis, null, 2)}\n`);
  }
  await chaind(["genesis", "validate", "--home", first]);
  await Promise.all(records.slice(1).map((r) => copyFile(genesisFile, homePaths(r.home).genesis)));
}

/** `--voting-period` in whole seconds (at least 2), or a TestnetError saying what is expected. */
export function votingPeriodSeconds(period: string): number {
  const match = /^(\d+)s$/.exec(period);
  const seconds = match === null ? Number.NaN : Number(match[1]);
  if (!(seconds >= 2))
    throw new TestnetError(`--voting-period ${period}: expected whole seconds, at least 2s, e.g. 20s`);
  return seconds;
}

/** Sets the gov voting and deposit periods; the expedited period must stay below the voting period. */
function shortenGovernance(genesis: Record<string, unknown>, period: string): void {
  const seconds = votingPeriodSeconds(period);
  const appState = genesis.app_state as Record<string, Record<string, Record<string, unknown>>> | undefined;
  const params = appState?.gov?.params;
  if (params === undefined) throw new TestnetError("genesis.json has no app_state.gov.params to shorten");
  params.voting_period = `${seconds}s`;
  params.max_deposit_period = `${seconds}s`;
  params.expedited_voting_period = `${Math.max(1, Math.floor(seconds / 2))}s`;
}
