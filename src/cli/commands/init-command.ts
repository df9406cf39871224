// `chaind init <moniker> --chain-id <id>`: a new node home (upstream's `init`). Thin: parse, call
// src/node/init-node.ts, print upstream's JSON (sorted keys) to stderr.
import { Command, InvalidArgumentError } from "commander";
import { initNode } from "../../node/init-node.ts";
import { currentChainIdentity } from "../../runtime/current-chain.ts";
import { MAX_VERSION } from "../../store/version-limit.ts";
import type { CliIo } from "../io.ts";
import { globalFlags, sortedJson } from "./cli-support.ts";

/** `init`. */
export function initCommand(io: CliIo): Command {
  return new Command("init")
    .description(
      "Initialize the node's home: config.toml, app.toml, the validator and node keys, and a genesis.json holding every module's default genesis",
    )
    .argument("<moniker>", "the node's name (config.toml moniker)")
    .option("--chain-id <id>", "the chain ID of the new genesis (default: a random test-chain-…)")
    .option("--overwrite", "replace an existing genesis.json")
    .option("--default-denom <denom>", "the bond and fee denom of the new genesis", currentChainIdentity().denom)
    .option("--initial-height <n>", "height of the first block (default 1)", parseHeight)
    .action(
      async (
        moniker: string,
        flags: { chainId?: string; overwrite?: boolean; defaultDenom: string; initialHeight?: bigint },
        command: Command,
      ) => {
        const { home } = globalFlags(command);
        const info = await initNode({
          home,
          moniker,
          chainId: flags.chainId,
          overwrite: flags.overwrite,
          defaultDenom: flags.defaultDenom,
          initialHeight: flags.initialHeight ?? 1n,
        });
        io.stderr.write(`${sortedJson(info)}\n`);
      },
    );
}

// Up to the last height the state store can number (src/store/version-limit.ts), as genesis validation checks.
function parseHeight(text: string): bigint {
  if (!/^[0-9]+$/.test(text) || BigInt(text) < 1n || BigInt(text) > MAX_VERSION) {
    throw new InvalidArgumentError(`expected a whole number from 1 to ${MAX_VERSION} (2^53 − 1)`);
  }
  return BigInt(text);
}
