// Which node a client asks when it is not told (docs/CONTRACT.md §8): the node whose home
// it was given (or the default home), at that home's config.toml rpc.laddr. Only config.toml's [rpc] laddr is read,
// synchronously (a client command's flags are read synchronously), and nothing else of the home.
import { ConfigError } from "./errors.ts";
import { homePaths } from "./home.ts";
import type { ListenAddress } from "./listen-address.ts";
import { parseTomlText, readSchemeAddress, TomlFieldReader } from "./toml-reader.ts";

// node:fs is taken with process.getBuiltinModule, not a value import: an ESM import of it reads every export, and
// its lazy ones (the streams, `promises`, `Dir`) load a dozen more built-in modules on every client command's start.
const { readFileSync } = process.getBuiltinModule("node:fs");

/** The address a client dials when nothing else says which: CometBFT's and the SDK's client default. */
export const DEFAULT_CLIENT_NODE = "tcp://localhost:26657";

/** rpc.laddr's default in config.toml (what a node listens on when the key is absent). */
const DEFAULT_RPC_LADDR = "tcp://127.0.0.1:26657";

/**
 * The `--node`-style address that reaches a node listening on `laddr`: a wildcard host (every interface) is dialled
 * on loopback, an IPv6 host in brackets. Only tcp:// can be dialled by the clients.
 * @example dialAddress(parseListenAddress("tcp://0.0.0.0:26657")) === "tcp://127.0.0.1:26657"
 */
export function dialAddress(laddr: ListenAddress): string {
  if (laddr.protocol !== "tcp") throw new Error(`rpc.laddr ${laddr.address}: only tcp:// addresses can be dialled`);
  const host = laddr.host === "0.0.0.0" || laddr.host === "" ? "127.0.0.1" : laddr.host === "::" ? "[::1]" : laddr.host;
  return `tcp://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${laddr.port}`;
}

/**
 * The consensus RPC address of the node whose home is `home`, from `<home>/config/config.toml` rpc.laddr (its
 * default when the key is absent); undefined when the home has no config.toml (not a node's home: the caller uses
 * {@link DEFAULT_CLIENT_NODE}). Throws {@link ConfigError} naming the file when it cannot be read or parsed, or
 * rpc.laddr is not an address a client can dial (a unix socket).
 * @example homeRpcAddress("/var/lib/chaind") // "tcp://127.0.0.1:26657"
 */
export function homeRpcAddress(home: string): string | undefined {
  const file = homePaths(home).configToml;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // No config.toml (or no home at all): not a node's home, so it names no node.
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw new ConfigError(
      { file, reason: `cannot read it to find the node's rpc.laddr: ${(error as Error).message}` },
      { code: "CONFIG_UNREADABLE", cause: error },
    );
  }
  const read = new TomlFieldReader(file, parseTomlText(text, file));
  const laddr = readSchemeAddress(read, "rpc.laddr", DEFAULT_RPC_LADDR);
  read.finish();
  if (laddr.protocol !== "tcp") {
    throw new ConfigError({
      file,
      key: "rpc.laddr",
      expected: '"tcp://<host>:<port>" for a client to dial',
      got: JSON.stringify(laddr.address),
      reason: "clients reach the node over tcp only: give --node",
    });
  }
  return dialAddress(laddr);
}
