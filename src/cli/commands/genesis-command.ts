// `chaind genesis add-genesis-account | gentx | collect-gentxs | validate` (upstream x/genutil's
// genesis commands, v0.50 texts). Thin: parse, call src/node, print what upstream prints.

import { Command } from "commander";
import { type Coin, CoinError, parseCoin, parseCoins } from "../../app/coins.ts";
import { CliError } from "../../client/cli/errors.ts";
import { createLineReader, envOrStdinPassphrase, type Keyring, openKeyring } from "../../client/keyring/index.ts";
import { homePaths, loadGenesis, saveGenesis } from "../../config/index.ts";
import { addressFromBech32, addressToBech32 } from "../../crypto/index.ts";
import { collectGenTxs } from "../../node/collect-gentxs.ts";
import { addGenesisAccount } from "../../node/genesis-accounts.ts";
import { createGenTx } from "../../node/gentx.ts";
import { validateGenesisFile } from "../../node/validate-genesis.ts";
import { currentChainIdentity } from "../../runtime/current-chain.ts";
import type { CliIo } from "../io.ts";
import { globalFlags, sortedJson } from "./cli-support.ts";

/** `genesis …`. */
export function genesisCommand(io: CliIo): Command {
  const genesis = new Command("genesis").description("Build and check the genesis file: accounts, gentxs, validation");
  genesis.addCommand(addGenesisAccountCommand());
  genesis.addCommand(gentxCommand(io));
  genesis.addCommand(collectGenTxsCommand(io));
  genesis.addCommand(validateCommand(io));
  return genesis;
}

function keyringOf(home: string, backend: string): Keyring {
  return openKeyring({
    home,
    backend,
    passphrase: envOrStdinPassphrase({
      env: process.env,
      reader: createLineReader(process.stdin),
      prompt: (text) => void process.stderr.write(`${text}\n`),
    }),
  });
}

function addGenesisAccountCommand(): Command {
  return new Command("add-genesis-account")
    .description("Add a genesis account to genesis.json: the address (or a key name from the keyring) and its coins")
    .argument("<address_or_key_name>", "a chain1… address, or the name of a key in the keyring")
    .argument("<coins>", `the account's balance, e.g. 10000000${currentChainIdentity().denom},500token`)
    .option("--keyring-backend <backend>", "keyring backend for a key name: test or file", "test")
    .option("--append", "add the coins to an account that is already in genesis")
    .action(
      async (
        reference: string,
        coinsText: string,
        flags: { keyringBackend: string; append?: boolean },
        command: Command,
      ) => {
        const { home } = globalFlags(command);
        const address = await resolveAddress(home, flags.keyringBackend, reference);
        let coins: Coin[];
        try {
          coins = parseCoins(coinsText);
        } catch (err) {
          throw new CliError(`failed to parse coins: ${(err as Error).message}`, { cause: err });
        }
        if (coins.length === 0) throw new CliError(`failed to parse coins: "${coinsText}" holds no positive amount`);
        const file = homePaths(home).genesis;
        const doc = await loadGenesis(file);
        const appState = addGenesisAccount(doc.appState ?? {}, { address, coins, append: flags.append });
        await saveGenesis(file, { ...doc, appState });
      },
    );
}

async function resolveAddress(home: string, backend: string, reference: string): Promise<string> {
  if (reference.startsWith("chain1")) {
    try {
      return addressToBech32(addressFromBech32(reference));
    } catch (err) {
      throw new CliError(`invalid address "${reference}": ${(err as Error).message}`, { cause: err });
    }
  }
  const keyring = keyringOf(home, backend);
  try {
    return addressToBech32((await keyring.show(reference)).address);
  } catch (err) {
    throw new CliError(
      `"${reference}" is neither a chain1… address nor a key in the ${backend} keyring (${keyring.directory}): ${(err as Error).message}`,
      { cause: err },
    );
  }
}

function gentxCommand(io: CliIo): Command {
  return new Command("gentx")
    .description(
      "Create a genesis transaction: a MsgCreateValidator with this node's consensus key (priv_validator_key.json), self-delegating <amount> from <key_name>'s genesis account, signed with account number 0 and sequence 0",
    )
    .argument("<key_name>", "the operator's key in the keyring (its account must be in genesis)")
    .argument("<amount>", `self-delegation in the bond denom, e.g. 1000000${currentChainIdentity().denom}`)
    .option("--chain-id <id>", "must match genesis.json's chain_id")
    .option("--moniker <name>", "validator name (default: config.toml's moniker)")
    .option("--identity <id>", "identity signature (e.g. a Keybase key)", "")
    .option("--website <url>", "validator website", "")
    .option("--security-contact <email>", "validator security contact", "")
    .option("--details <text>", "validator description", "")
    .option("--commission-rate <rate>", "initial commission rate", "0.1")
    .option("--commission-max-rate <rate>", "maximum commission rate", "0.2")
    .option("--commission-max-change-rate <rate>", "maximum daily commission change", "0.01")
    .option("--min-self-delegation <amount>", "minimum self-delegation the validator keeps", "1")
    .option("--node-id <id>", "the node ID in the memo (default: node_key.json's)")
    .option("--ip <ip>", "the node's IP in the memo (default: this machine's first external IPv4)")
    .option("--output-document <file>", "write the gentx here instead of config/gentx/gentx-<node id>.json")
    .option("--keyring-backend <backend>", "keyring backend: test or file", "test")
    .option("--fees <coins>", `fees of the gentx, e.g. 10${currentChainIdentity().denom}`, "")
    .option("--gas <n>", "gas limit of the gentx", "200000")
    .action(
      async (keyName: string, amountText: string, flags: Record<string, string | undefined>, command: Command) => {
        const { home } = globalFlags(command);
        let amount: Coin;
        try {
          amount = parseCoin(amountText);
        } catch (err) {
          if (err instanceof CoinError) {
            throw new CliError(
              `invalid amount "${amountText}": expected a coin such as 1000000${currentChainIdentity().denom}`,
              {
                cause: err,
              },
            );
          }
          throw err;
        }
        let fees: Coin[];
        try {
          fees = parseCoins(flags.fees ?? "");
        } catch (err) {
          throw new CliError(`invalid --fees "${flags.fees}": ${(err as Error).message}`, { cause: err });
        }
        const gasText = flags.gas ?? "200000";
        if (!/^[0-9]+$/.test(gasText)) throw new CliError(`invalid --gas "${gasText}": expected a whole number`);
        const result = await createGenTx({
          home,
          keyring: keyringOf(home, flags.keyringBackend ?? "test"),
          keyName,
          amount,
          chainId: flags.chainId,
          moniker: flags.moniker,
          identity: flags.identity,
          website: flags.website,
          securityContact: flags.securityContact,
          details: flags.details,
          commissionRate: flags.commissionRate,
          commissionMaxRate: flags.commissionMaxRate,
          commissionMaxChangeRate: flags.commissionMaxChangeRate,
          minSelfDelegation: flags.minSelfDelegation,
          nodeId: flags.nodeId,
          ip: flags.ip,
          outputDocument: flags.outputDocument,
          fees,
          gas: BigInt(gasText),
        });
        io.stderr.write(`Genesis transaction written to "${result.file}"\n`);
      },
    );
}

function collectGenTxsCommand(io: CliIo): Command {
  return new Command("collect-gentxs")
    .description(
      "Collect the genesis transactions into genesis.json (app_state.genutil.gen_txs) and set persistent_peers",
    )
    .option("--gentx-dir <dir>", "directory holding the gentx files (default: <home>/config/gentx)")
    .action(async (flags: { gentxDir?: string }, command: Command) => {
      const { home } = globalFlags(command);
      const result = await collectGenTxs({ home, gentxDir: flags.gentxDir });
      const info = {
        moniker: result.moniker,
        chain_id: result.chainId,
        node_id: result.nodeId,
        gentxs_dir: result.gentxDir,
        app_message: result.appState,
      };
      io.stderr.write(`${sortedJson(info)}\n`);
    });
}

function validateCommand(io: CliIo): Command {
  return new Command("validate")
    .alias("validate-genesis")
    .description("Check a genesis file: the consensus part and every module's genesis state")
    .argument("[file]", "the genesis file (default: <home>/config/genesis.json)")
    .action(async (file: string | undefined, _flags: unknown, command: Command) => {
      const { home } = globalFlags(command);
      const path = file ?? homePaths(home).genesis;
      await validateGenesisFile({ home, file: path });
      io.stdout.write(`File at ${path} is a valid genesis file\n`);
    });
}
