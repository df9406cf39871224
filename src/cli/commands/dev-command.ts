// `chaind dev`: one command from nothing to a running single-validator development chain (what
// `npm start` runs). Prepares the home when it has no genesis yet (src/node/dev-chain.ts), starts the
// node as `start` does, and prints the keys (mnemonics only when just created), the endpoints and a few
// commands to paste.
import { Command } from "commander";
import { DEFAULT_CLIENT_NODE, homeRpcAddress } from "../../config/home-rpc-address.ts";
import { defaultHome } from "../../config/index.ts";
import { type DevHome, prepareDevHome } from "../../node/dev-chain.ts";
import { type NodeEndpoints, startNode } from "../../node/start-node.ts";
import { currentChainIdentity } from "../../runtime/current-chain.ts";
import type { CliIo } from "../io.ts";
import { chaindInvocation, globalFlags } from "./cli-support.ts";
import { nodeLogger } from "./node-logger.ts";
import { addNodeFlags, endpointLines, type NodeFlags, nodeOptionsOf, runUntilStopped } from "./start-command.ts";

/** `dev`. */
export function devCommand(io: CliIo): Command {
  const command = new Command("dev")
    .description(
      `Run a development chain: on first use, init "${currentChainIdentity().devChainId}" with funded test keys (validator, alice, bob), short governance periods and 1 s blocks; then start it`,
    )
    .option("--reset", "remove this home's config/, data/ and keyring-test/ first and start a new chain");
  addNodeFlags(command).action(async (flags: NodeFlags & { reset?: boolean }, cmd: Command) => {
    const { home } = globalFlags(cmd);
    const { overrides, skipUpgradeHeights } = nodeOptionsOf(flags);
    // The listen flags go into a new home's config too, so clients (--home) and chainvisor find this node later.
    const listeners = {
      rpcLaddr: overrides.rpcLaddr,
      apiAddress: overrides.apiAddress,
      grpcAddress: overrides.grpcAddress,
    };
    const dev = await prepareDevHome({ home, reset: flags.reset, listeners });
    // After prepareDevHome: a new home's config.toml exists by now.
    const logger = nodeLogger(cmd, home);
    const node = await startNode({ home, logger, overrides, skipUpgradeHeights });
    await runUntilStopped(node, () => io.stdout.write(devBanner(dev, node.endpoints, node.chain.release.name)), logger);
  });
  return command;
}

/** What `dev` prints once the node runs. */
export function devBanner(dev: DevHome, endpoints: NodeEndpoints, release: string): string {
  const chaind = chaindInvocation();
  const homeFlag = dev.home === defaultHome() ? "" : ` --home ${quote(dev.home)}`;
  const rpc = endpoints.rpc?.replace(/^http:/, "tcp:");
  // The commands find the node from --home when the home's config.toml names where it listens (dev saves the ports
  // it was given); --node only for a port picked at this start.
  const nodeFlag = rpc === undefined || rpc === homeNode(dev.home) ? "" : ` --node ${rpc}`;
  const lines: string[] = [];
  lines.push(
    dev.created
      ? `Created the development chain "${dev.chainId}" in ${dev.home} (release ${release}).`
      : `Continuing the chain "${dev.chainId}" in ${dev.home} (release ${release}); --reset starts a new one.`,
  );
  if (dev.keys.length > 0) {
    lines.push("", "Keys (test keyring):");
    for (const key of dev.keys) lines.push(`  ${key.name.padEnd(10)}${key.address}`);
  }
  const withMnemonic = dev.keys.filter((key) => key.mnemonic !== undefined);
  if (withMnemonic.length > 0) {
    lines.push("", "Mnemonics (shown only now; anyone holding one controls its funds):");
    for (const key of withMnemonic) lines.push(`  ${key.name}: ${key.mnemonic}`);
  }
  lines.push("", "Endpoints:", ...endpointLines(endpoints));
  const alice = dev.keys.find((key) => key.name === "alice")?.address;
  const bob = dev.keys.find((key) => key.name === "bob")?.address;
  lines.push("", "Try:");
  if (alice !== undefined) {
    lines.push(`  ${chaind} query bank balances ${alice}${nodeFlag}${homeFlag}`);
  }
  if (bob !== undefined) {
    lines.push(
      `  ${chaind} tx bank send alice ${bob} 1000000${dev.denom} --chain-id ${dev.chainId} --keyring-backend test --yes --wait${nodeFlag}${homeFlag}`,
    );
  }
  lines.push(`  ${chaind} query upgrade plan${nodeFlag}${homeFlag}`);
  if (endpoints.rest !== undefined && alice !== undefined) {
    lines.push(`  curl ${endpoints.rest}/chain/bank/v1beta1/balances/${alice}`);
  }
  lines.push("", "Stop with Ctrl-C; run the same command again to continue this chain.", "");
  return lines.join("\n");
}

// The address a client without --node dials for this home (src/config/home-rpc-address.ts); undefined if unreadable.
function homeNode(home: string): string | undefined {
  try {
    return homeRpcAddress(home) ?? DEFAULT_CLIENT_NODE;
  } catch {
    return undefined;
  }
}

function quote(path: string): string {
  return /^[A-Za-z0-9_./~-]+$/.test(path) ? path : `'${path.replace(/'/g, "'\\''")}'`;
}
