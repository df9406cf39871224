// One client command's view of the world: its checked flags, the node (consensus RPC, and queries over
// abci_query or gRPC), the keyring, the type registry, and where to print. Connections open lazily and
// are released by `close()`, which the command tree calls after every action, failed or not.
import {
  createRegistry,
  type DescMessage,
  type JsonValue,
  type MessageInitShape,
  type MessageShape,
  type Registry,
} from "@bufbuild/protobuf";
import type { GenMessage } from "@bufbuild/protobuf/codegenv2";
import { addressFromBech32, addressToBech32 } from "../../crypto/bech32.ts";
import { KeyringError } from "../keyring/errors.ts";
import type { Keyring } from "../keyring/keyring.ts";
import { createLineReader, envOrStdinPassphrase, type LineReader } from "../keyring/passphrase.ts";
import { grpcQuery, type QueryMethod } from "../rpc/grpc-query.ts";
import { abciQueryTransport, grpcQueryTransport, type QueryTransport } from "../rpc/query-transport.ts";
import { createRpcClient, type RpcClient } from "../rpc/rpc-client.ts";
import { CliError } from "./errors.ts";
import type { QueryFlags } from "./flags.ts";
import { hasAny, loadedClientModules } from "./lazy-modules.ts";
import { messageJson, printValue } from "./output.ts";

/** The streams and environment of a client command. */
export interface ClientIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** Answers to prompts (confirmation, file keyring passphrase); default process.stdin. */
  stdin?: AsyncIterable<string | Uint8Array>;
  /** Default process.env (CHAIND_KEYRING_PASSPHRASE). */
  env?: Readonly<Record<string, string | undefined>>;
}

/** The node, the keyring and the printer of one client command. */
export class ClientContext {
  readonly flags: QueryFlags;
  readonly io: ClientIo;
  #rpc: RpcClient | undefined;
  #queries: QueryTransport | undefined;
  #lines: LineReader | undefined;
  #readsProcessStdin = false;
  #keyrings = new Map<string, Keyring>();
  #printNothing = false;

  constructor(flags: QueryFlags, io: ClientIo) {
    this.flags = flags;
    this.io = io;
  }

  /** The registry of every type the CLI may meet inside an Any (loaded before the action, src/client/cli/lazy-modules.ts). */
  get registry(): Registry {
    return loadedClientModules().registry();
  }

  /** The consensus RPC client of `--node`. */
  get rpc(): RpcClient {
    this.#rpc ??= createRpcClient(this.flags.node);
    return this.#rpc;
  }

  /** Where queries go: gRPC when `--grpc-addr` is given, else the RPC's abci_query. */
  get queries(): QueryTransport {
    this.#queries ??=
      this.flags.grpcAddr === undefined ? abciQueryTransport(this.rpc) : grpcQueryTransport(this.flags.grpcAddr);
    return this.#queries;
  }

  /** Runs one Query method at `--height` (or the given height) and returns the decoded response. */
  async query<I extends GenMessage<never> | DescMessage, O extends DescMessage>(
    method: QueryMethod<I, O>,
    request: MessageInitShape<I>,
    height: bigint | undefined = this.flags.height,
  ): Promise<MessageShape<O>> {
    return (await grpcQuery(this.queries, method, request, height)).response;
  }

  /** Prints a JSON value in the `-o` format (nothing after {@link ClientContext.printNothing}). */
  print(value: JsonValue): void {
    if (this.#printNothing) return;
    printValue(this.io.stdout, this.flags.output, value);
  }

  /** Makes later `print` calls no-ops: `--dry-run` has said all it has to say on stderr, as upstream does. */
  printNothing(): void {
    this.#printNothing = true;
  }

  /** A message as the CLI's JSON: every field, proto names, 64-bit integers as strings, unset messages null. */
  messageJson<D extends DescMessage>(schema: D, message: MessageShape<D>): JsonValue {
    return messageJson(schema, message, registryFor(schema));
  }

  /** Prints a message as the CLI's JSON or its YAML. */
  printMessage<D extends DescMessage>(schema: D, message: MessageShape<D>): void {
    this.print(this.messageJson(schema, message));
  }

  /** One line of standard input (shared by every prompt of this command, in order). */
  lines(): LineReader {
    if (this.#lines === undefined) {
      this.#readsProcessStdin = this.io.stdin === undefined;
      this.#lines = createLineReader(this.io.stdin ?? process.stdin);
    }
    return this.#lines;
  }

  /** The keyring of `--home` and `backend`; the file backend's passphrase comes from the env or stdin. */
  keyring(backend: string): Keyring {
    let keyring = this.#keyrings.get(backend);
    if (keyring === undefined) {
      try {
        keyring = loadedClientModules().openKeyring({
          // --keyring-dir, as upstream: the keyring-<backend> folder lives there instead of in --home.
          home: this.flags.keyringDir ?? this.flags.home,
          backend,
          passphrase: envOrStdinPassphrase({
            env: this.io.env ?? process.env,
            reader: this.lines(),
            prompt: (text) => void this.io.stderr.write(`${text}\n`),
          }),
        });
      } catch (err) {
        throw new CliError((err as Error).message, { cause: err });
      }
      this.#keyrings.set(backend, keyring);
    }
    return keyring;
  }

  /**
   * The bech32 account address of `--from`: a key of the keyring (by name or address), or, when
   * `allowAddress`, any valid account address (for --generate-only).
   */
  async fromAddress(from: string | undefined, backend: string, allowAddress: boolean): Promise<string> {
    if (from === undefined || from === "")
      throw new CliError("--from is required: the name or address of the signing key");
    try {
      return addressToBech32((await this.keyring(backend).show(from)).address);
    } catch (err) {
      if (allowAddress && isAccountAddress(from)) return from;
      if (err instanceof KeyringError) throw new CliError(err.message, { cause: err });
      throw err;
    }
  }

  /**
   * A query's address argument: as upstream's AutoCLI does, the name of a key in the keyring (test, then file;
   * no passphrase is needed to read an address) stands for its address, in `kind`'s prefix (`val`: the operator
   * address). Text that is a valid address of that kind, or no key's name, is returned unchanged, so the node
   * still names what is wrong with a bad one. The keyring is loaded only for a name: a light query given an
   * address imports nothing more.
   */
  async addressArgument(text: string, kind: "acc" | "val" = "acc"): Promise<string> {
    try {
      addressFromBech32(text, kind);
      return text;
    } catch {
      // Not an address of this kind: perhaps a key name.
    }
    const { openKeyring } = loadedClientModules({ optional: true }) ?? (await import("../keyring/keyring.ts"));
    for (const backend of ["test", "file"]) {
      try {
        const keyring = openKeyring({ home: this.flags.keyringDir ?? this.flags.home, backend });
        return addressToBech32((await keyring.show(text)).address, kind);
      } catch (err) {
        if (!(err instanceof KeyringError)) throw err;
      }
    }
    return text;
  }

  /** Releases the node connections, and standard input once a prompt has read from it. */
  close(): void {
    this.#queries?.close();
    // A stdin being read keeps the process alive (a terminal, or a pipe the caller leaves open) after
    // the command is done; nothing reads it after the command.
    if (this.#readsProcessStdin) process.stdin.destroy();
  }
}

// A message without an Any anywhere prints the same with any registry: such a message prints without
// waiting for the full one (which the light commands do not load).
function registryFor(schema: DescMessage): Registry {
  return (
    loadedClientModules({ optional: true })?.registry() ?? (hasAny(schema) ? loadedClientModules().registry() : EMPTY)
  );
}

const EMPTY = createRegistry();

function isAccountAddress(text: string): boolean {
  try {
    addressFromBech32(text);
    return true;
  } catch {
    return false;
  }
}
