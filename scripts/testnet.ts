// The command line of the local multi-validator testnet on loopback: N homes, each a `chaind start --abci` process and a `cometbft node`
// process on the SAME home (that is the design: chaind's config.toml is CometBFT's), one shared genesis built from N
// gentxs, distinct loopback ports, persistent peers by node id. See docs/MULTI-VALIDATOR.md.
//
//   node scripts/testnet.ts start --dir <dir> [--validators 4] [--base-port N] [--chain-id ID] [--timeout-commit 300ms]
//                                 [--voting-period 20s] [--account <address>=<coins>]...
//   node scripts/testnet.ts stop --dir <dir> [--grace 10]
//
// `start` on a directory it already set up starts the same nodes again (the chain continues). The processes run
// detached with their output in <home>/chaind.log and <home>/cometbft.log; <dir>/pids.json records them.
// This file is only the command line (flags, usage, exit statuses); the testnet itself is the library in
// scripts/testnet/ (index.ts), which tests use directly: `startTestnet(options)` / `stopTestnet(net)` and the
// per-process helpers.
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type GenesisAccount, startTestnet, stopTestnetDir, TestnetError } from "./testnet/index.ts";

const USAGE = `usage:
  node scripts/testnet.ts start --dir <dir> [--validators 4] [--base-port N] [--chain-id ID] [--timeout-commit 300ms]
                                [--voting-period 20s] [--account <address>=<coins>]...
  node scripts/testnet.ts stop --dir <dir> [--grace 10]`;

function parseAccount(text: string): GenesisAccount {
  const eq = text.indexOf("=");
  if (eq <= 0 || eq === text.length - 1) {
    throw new TestnetError(`--account ${text}: expected <address>=<coins>, e.g. chain1...=1000000stake`);
  }
  return { address: text.slice(0, eq), coins: text.slice(eq + 1) };
}

function parseWhole(flag: string, text: string | undefined, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    throw new TestnetError(`${flag} ${text}: expected a whole number from ${min} to ${max}`);
  }
  return value;
}

const CLI_OPTIONS = {
  dir: { type: "string" },
  validators: { type: "string" },
  "base-port": { type: "string" },
  "chain-id": { type: "string" },
  "timeout-commit": { type: "string" },
  "voting-period": { type: "string" },
  account: { type: "string", multiple: true },
  grace: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof CLI_OPTIONS }>>;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: CLI_OPTIONS });
  } catch (error) {
    process.stderr.write(`testnet: ${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const [command, ...extra] = positionals;
  if ((command !== "start" && command !== "stop") || extra.length > 0 || values.dir === undefined) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const log = (line: string) => process.stderr.write(`testnet: ${line}\n`);
  if (command === "stop") {
    const graceSeconds = parseWhole("--grace", values.grace, 0, 3600) ?? 10;
    const stopped = await stopTestnetDir(values.dir, { graceMs: graceSeconds * 1000 });
    log(`stopped ${stopped} processes`);
    return 0;
  }
  const net = await startTestnet({
    dir: values.dir,
    validators: parseWhole("--validators", values.validators, 1, 50),
    basePort: parseWhole("--base-port", values["base-port"], 1024, 65535),
    chainId: values["chain-id"],
    timeoutCommit: values["timeout-commit"],
    votingPeriod: values["voting-period"],
    accounts: (values.account ?? []).map(parseAccount),
    detached: true,
    log,
  });
  for (const node of net.nodes) {
    process.stdout.write(
      `${node.moniker}  rpc ${node.rpcUrl}  rest ${node.apiUrl}  grpc ${node.grpcAddress}  ` +
        `key ${node.keyName} ${node.address}  home ${node.home}\n`,
    );
  }
  log(`chain ${net.chainId} is producing blocks; stop it with: node scripts/testnet.ts stop --dir ${net.dir}`);
  return 0;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.exitCode = await main(process.argv.slice(2));
  } catch (error) {
    const known = error instanceof TestnetError;
    process.stderr.write(`testnet: ${known ? (error as Error).message : ((error as Error).stack ?? String(error))}\n`);
    process.exitCode = 1;
  }
}
