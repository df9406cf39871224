// `chaind keys …`: create, recover, list, show, delete, export and import keys in the local keyring.
// Thin: it parses flags, reads secrets (env or stdin), calls src/client/keyring and prints. Machine-readable
// output (JSON, addresses, YAML records) goes to stdout; prompts, notices and the new mnemonic to stderr.
// Expected failures are thrown as CliError (message for the user, exit status 1); the root prints them.
import { readFile } from "node:fs/promises";
import { Command, Option } from "commander";
import { CliError } from "../client/cli/errors.ts";
import {
  createLineReader,
  envOrStdinPassphrase,
  formatKeysText,
  formatKeyText,
  type KeyOutput,
  KeyringError,
  keyOutput,
  type LineReader,
  openKeyring,
} from "../client/keyring/index.ts";
import { defaultHome } from "../config/home.ts";
import type { AddressKind } from "../crypto/bech32.ts";
import { CryptoError } from "../crypto/errors.ts";
import { assertValidMnemonic } from "../crypto/mnemonic.ts";
import { pubKeyToJson } from "../crypto/pubkey.ts";

/** Where a command reads and writes; defaults to the process's streams and environment. */
export interface CommandIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  stdin: AsyncIterable<string | Uint8Array>;
  env: Readonly<Record<string, string | undefined>>;
}

/** The default home directory, `~/.chaind`. */

type OutputFormat = "text" | "json";

interface GlobalOptions {
  home: string;
  keyringBackend: string;
  output: string;
  /** `--keyring-dir`: the keyring's directory when it is not `--home`. */
  keyringDir?: string;
}

/**
 * The `keys` command tree. It declares `--home` (default ~/.chaind), `--keyring-backend` (default test:
 * chaind has no OS keychain backend, unlike upstream's default `os`) and `-o/--output text|json` itself and
 * reads them with optsWithGlobals(), so the same options declared on the root take precedence.
 */
export function keysCommand(io: Partial<CommandIo> = {}): Command {
  const streams: CommandIo = {
    stdout: io.stdout ?? process.stdout,
    stderr: io.stderr ?? process.stderr,
    stdin: io.stdin ?? process.stdin,
    env: io.env ?? process.env,
  };
  // One reader for the whole invocation so successive prompts (mnemonic, then passphrase) read successive lines.
  let reader: LineReader | undefined;
  const lines = (): LineReader => {
    reader ??= createLineReader(streams.stdin);
    return reader;
  };
  const context = (command: Command) => {
    const options = command.optsWithGlobals() as GlobalOptions;
    const output = parseOutput(options.output);
    const keyring = openKeyring({
      // --keyring-dir, as upstream: the keyring lives there instead of in --home.
      home: options.keyringDir ?? options.home,
      backend: options.keyringBackend,
      passphrase: envOrStdinPassphrase({ env: streams.env, reader: lines(), prompt: (text) => prompt(streams, text) }),
    });
    return { output, keyring };
  };

  const keys = new Command("keys")
    .description("Manage the keys in the local keyring (BIP39 mnemonics, HD path m/44'/118'/0'/0/0)")
    // `chaind`'s root declares --home and -o too and lists them under "Global Options"; these copies keep `keys`
    // working under a root without them, and stay out of the help so that no flag is listed twice.
    .addOption(new Option("--home <dir>", "node and client home directory").default(defaultHome()).hideHelp())
    .addOption(
      new Option("--keyring-backend <backend>", "keyring backend: test (unencrypted) or file (passphrase)").default(
        "test",
      ),
    )
    .addOption(new Option("-o, --output <format>", "output format: text (YAML) or json").default("text").hideHelp())
    .option("--keyring-dir <dir>", "directory of the keyring (default: --home)");

  keys
    .command("add")
    .description("Create a key from a new 24-word mnemonic, or recover one with --recover")
    .argument("<name>", "name of the key")
    .option("--recover", "read an existing BIP39 mnemonic from stdin instead of creating one")
    .option("--account <n>", "HD account number (m/44'/118'/<account>'/0/<index>)", parseIndex("--account"), 0)
    .option("--index <n>", "HD address index", parseIndex("--index"), 0)
    .option("--no-backup", "do not print the new mnemonic")
    .option("--dry-run", "derive and print the key without adding it to the keyring")
    .action(
      guard(
        async (
          name: string,
          flags: { recover?: boolean; account: number; index: number; backup: boolean; dryRun?: boolean },
          cmd: Command,
        ) => {
          const { output, keyring } = context(cmd);
          const path = { account: flags.account, index: flags.index, dryRun: flags.dryRun === true };
          if (flags.recover) {
            prompt(streams, "> Enter your bip39 mnemonic");
            const mnemonic = await lines().readLine();
            if (mnemonic === undefined) throw new CliError("no mnemonic: type it on standard input after --recover");
            assertValidMnemonic(mnemonic);
            const key = await keyring.recover(name, mnemonic, path);
            printAdded(streams, output, keyOutput(key));
            return;
          }
          const { key, mnemonic } = await keyring.add(name, path);
          if (output === "json") {
            printAdded(streams, output, flags.backup ? { ...keyOutput(key), mnemonic } : keyOutput(key));
            return;
          }
          printAdded(streams, output, keyOutput(key));
          if (flags.backup) {
            streams.stderr.write(
              "\n**Important** write this mnemonic phrase in a safe place.\n" +
                "It is the only way to recover your account if you ever forget your password.\n\n" +
                `${mnemonic}\n`,
            );
          }
        },
      ),
    );

  keys
    .command("list")
    .description("List all keys")
    .option("-n, --list-names", "print only the names")
    .action(
      guard(async (flags: { listNames?: boolean }, cmd: Command) => {
        const { output, keyring } = context(cmd);
        const all = await keyring.list();
        if (flags.listNames) {
          if (output === "json") streams.stdout.write(`${JSON.stringify(all.map((key) => key.name))}\n`);
          else for (const key of all) streams.stdout.write(`${key.name}\n`);
          return;
        }
        if (all.length === 0 && output === "text") {
          streams.stderr.write("No records were found in keyring\n");
          return;
        }
        print(
          streams,
          output,
          all.map((key) => keyOutput(key)),
          true,
        );
      }),
    );

  keys
    .command("show")
    .description("Show a key by name or address")
    .argument("<name>", "key name or bech32 address")
    .option("-a, --address", "print only the address")
    .option("-p, --pubkey", "print only the public key JSON")
    .addOption(new Option("--bech <kind>", "address prefix: acc, val or cons").default("acc"))
    .action(
      guard(async (reference: string, flags: { address?: boolean; pubkey?: boolean; bech: string }, cmd: Command) => {
        const { output, keyring } = context(cmd);
        const bech = parseBech(flags.bech);
        if (flags.address && flags.pubkey) throw new CliError("choose one of -a/--address and -p/--pubkey, not both");
        const key = await keyring.show(reference);
        const shown = keyOutput(key, bech);
        if (flags.address) streams.stdout.write(`${shown.address}\n`);
        else if (flags.pubkey) streams.stdout.write(`${pubKeyToJson({ algorithm: key.algorithm, key: key.pubKey })}\n`);
        else print(streams, output, [shown], false);
      }),
    );

  keys
    .command("delete")
    .description("Delete one or more keys")
    .argument("<names...>", "key names or bech32 addresses")
    .option("-y, --yes", "skip the confirmation prompt")
    // Upstream's deprecated flag (delete without the keyring passphrase); deleting never asks for it here.
    .option("-f, --force", "accepted for upstream compatibility; deleting never asks for a passphrase")
    .action(
      guard(async (references: string[], flags: { yes?: boolean }, cmd: Command) => {
        const { keyring } = context(cmd);
        // Every name must resolve before anything is deleted, so a typo in the last one deletes none.
        for (const reference of references) await keyring.show(reference);
        for (const reference of references) {
          if (!flags.yes) {
            prompt(streams, "Key reference will be deleted. Continue? [y/N]:");
            const line = await lines().readLine();
            // No answer at all (no terminal, empty stdin) is not a "no": a script must not think it deleted.
            if (line === undefined) {
              throw new CliError(
                `no answer to the confirmation prompt on standard input: key "${reference}" was not deleted; pass --yes (-y) to delete without asking`,
              );
            }
            const answer = line.trim().toLowerCase();
            if (answer !== "y" && answer !== "yes") {
              streams.stderr.write(`aborted: key "${reference}" was not deleted\n`);
              continue;
            }
          }
          await keyring.delete(reference);
          streams.stderr.write("Key deleted forever (uh oh!)\n");
        }
      }),
    );

  keys
    .command("export")
    .description("Print a key's private key, encrypted with a passphrase (CHAIND_EXPORT_PASSPHRASE or stdin)")
    .argument("<name>", "key name or bech32 address")
    .option("--unarmored-hex", "print the raw private key as hex (needs --unsafe)")
    .option("--unsafe", "allow --unarmored-hex")
    .action(
      guard(async (reference: string, flags: { unarmoredHex?: boolean; unsafe?: boolean }, cmd: Command) => {
        const { keyring } = context(cmd);
        if (flags.unarmoredHex && !flags.unsafe) {
          throw new CliError("--unarmored-hex prints the private key in the clear: add --unsafe to confirm");
        }
        await keyring.show(reference);
        await keyring.unlock();
        if (flags.unarmoredHex) {
          streams.stdout.write(`${await keyring.exportPrivateKeyHex(reference)}\n`);
          return;
        }
        const passphrase = await exportPassphrase(streams, lines(), "export-encrypt");
        streams.stdout.write(await keyring.exportArmor(reference, passphrase));
      }),
    );

  keys
    .command("import")
    .description("Import a key exported by `keys export` (passphrase from CHAIND_EXPORT_PASSPHRASE or stdin)")
    .argument("<name>", "name for the imported key")
    .argument("<keyfile>", "file holding the exported key")
    .action(
      guard(async (name: string, keyfile: string, _flags: unknown, cmd: Command) => {
        const { keyring } = context(cmd);
        if (await keyring.has(name)) {
          throw new CliError(`key "${name}" already exists in the ${keyring.describe()}; cannot overwrite it`);
        }
        let armor: string;
        try {
          armor = await readFile(keyfile, "utf8");
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          // The system's words (`Error: EISDIR: illegal operation…`) say less than these, and nest an "Error:".
          const reason =
            code === "ENOENT"
              ? "no such file"
              : code === "EISDIR"
                ? "it is a directory; expected the file `keys export` wrote"
                : (error as Error).message;
          throw new CliError(`cannot read key file "${keyfile}": ${reason}`, { cause: error });
        }
        const passphrase = await exportPassphrase(streams, lines(), "export-decrypt");
        await keyring.importArmor(name, armor, passphrase);
        streams.stderr.write(`Imported key "${name}"\n`);
      }),
    );

  return keys;
}

// Turns the keyring's and crypto's typed errors into CliError (expected, printed without a stack); anything
// else is a bug and propagates unchanged. Commander passes arguments, then options, then the command.
function guard<Args extends unknown[]>(action: (...args: Args) => Promise<void>): (...args: Args) => Promise<void> {
  return async (...args: Args) => {
    try {
      await action(...args);
    } catch (error) {
      if (error instanceof KeyringError || error instanceof CryptoError) {
        throw new CliError(error.message, { cause: error });
      }
      throw error;
    }
  };
}

// Upstream prints a new key as a one-element YAML list in text mode and as one JSON object otherwise.
function printAdded(streams: CommandIo, output: OutputFormat, record: KeyOutput): void {
  streams.stdout.write(output === "json" ? `${JSON.stringify(record)}\n` : formatKeysText([record]));
}

function print(streams: CommandIo, output: OutputFormat, records: KeyOutput[], list: boolean): void {
  if (output === "json") {
    streams.stdout.write(`${JSON.stringify(list ? records : records[0])}\n`);
  } else {
    streams.stdout.write(list ? formatKeysText(records) : formatKeyText(records[0]));
  }
}

function prompt(streams: CommandIo, text: string): void {
  streams.stderr.write(`${text}\n`);
}

async function exportPassphrase(
  streams: CommandIo,
  reader: LineReader,
  purpose: "export-encrypt" | "export-decrypt",
): Promise<string> {
  return envOrStdinPassphrase({ env: streams.env, reader, prompt: (text) => prompt(streams, text) })(purpose);
}

function parseOutput(value: string): OutputFormat {
  if (value === "text" || value === "json") return value;
  throw new CliError(`invalid output format "${value}": expected text or json`);
}

function parseBech(value: string): AddressKind {
  if (value === "acc" || value === "val" || value === "cons") return value;
  throw new CliError(`invalid --bech "${value}": expected acc, val or cons`);
}

function parseIndex(flag: string): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number > 0x7fffffff) {
      throw new CliError(`invalid ${flag} "${value}": expected an integer from 0 to 2147483647`);
    }
    return number;
  };
}
