// The one interface module command builders (src/x/gov/client, src/x/staking/client) are written against: what they
// need from the CLI's plumbing, which src/client/cli/module-client.ts implements over the consensus RPC.
import type { JsonValue, Registry } from "@bufbuild/protobuf";
import type { Any } from "@bufbuild/protobuf/wkt";

/** What a module's tx and query commands need from the CLI's plumbing. */
export interface ModuleCliClient {
  /** Signs `msgs` as `--from` and broadcasts them (or prints them with --generate-only); returns what to print. */
  broadcastMsgs(msgs: Any[], options: Record<string, unknown>): Promise<JsonValue>;
  /** Runs a query by gRPC method path with a binary request; returns the binary response. */
  query(methodPath: string, requestBytes: Uint8Array): Promise<Uint8Array>;
  /** The bech32 account address of `--from` (a key name or an address). */
  fromAddress(options: Record<string, unknown>): Promise<string>;
  /**
   * A query's address argument: a key's name stands for its address (`val`: the operator address), as upstream's
   * AutoCLI reads it; anything else comes back unchanged for the node to judge.
   */
  addressArgument(text: string, kind?: "acc" | "val"): Promise<string>;
  /** Prints a result in the chosen output format (`-o json|text`). */
  print(value: JsonValue, options: Record<string, unknown>): void;
  /** Resolves Any values for proto JSON (e.g. the messages inside proposals). */
  typeRegistry: Registry;
}
