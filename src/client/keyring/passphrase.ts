// Where secrets typed by the user come from. The file keyring's passphrase is read from the environment
// variable CHAIND_KEYRING_PASSPHRASE when it is set, otherwise as one line of standard input (after a
// prompt on stderr). The same goes for the passphrase of an exported key (CHAIND_EXPORT_PASSPHRASE) and
// for a mnemonic given to `keys add --recover` (always stdin). Lines are read in the order asked.
import { KeyringError } from "./errors.ts";

/** Environment variable holding the file keyring's passphrase. */
export const KEYRING_PASSPHRASE_ENV = "CHAIND_KEYRING_PASSPHRASE";
/** Environment variable holding the passphrase of an exported (armored) key. */
export const EXPORT_PASSPHRASE_ENV = "CHAIND_EXPORT_PASSPHRASE";

/** Reads text input one line at a time. */
export interface LineReader {
  /** The next line without its line ending, or undefined at the end of the input. */
  readLine(): Promise<string | undefined>;
}

/** A LineReader over a stream or any async iterable of text/byte chunks (e.g. process.stdin). */
export function createLineReader(input: AsyncIterable<string | Uint8Array>): LineReader {
  const iterator = input[Symbol.asyncIterator]();
  const decoder = new TextDecoder();
  let buffer = "";
  let ended = false;
  return {
    async readLine() {
      for (;;) {
        const newline = buffer.indexOf("\n");
        if (newline >= 0) {
          const line = buffer.slice(0, newline).replace(/\r$/, "");
          buffer = buffer.slice(newline + 1);
          return line;
        }
        if (ended) {
          if (buffer === "") return undefined;
          const rest = buffer;
          buffer = "";
          return rest;
        }
        const next = await iterator.next();
        if (next.done) {
          ended = true;
          buffer += decoder.decode();
        } else {
          buffer += typeof next.value === "string" ? next.value : decoder.decode(next.value, { stream: true });
        }
      }
    },
  };
}

/** Why a passphrase is asked for. */
export type PassphrasePurpose = "keyring-unlock" | "keyring-create" | "export-encrypt" | "export-decrypt";

/** Supplies a passphrase for a purpose; the keyring calls it at most once per instance. */
export type PassphraseProvider = (purpose: PassphrasePurpose) => Promise<string>;

const PROMPTS: Record<PassphrasePurpose, string> = {
  "keyring-unlock": "Enter keyring passphrase:",
  "keyring-create": "Enter a passphrase for the new file keyring (at least 8 characters):",
  "export-encrypt": "Enter passphrase to encrypt the exported key:",
  "export-decrypt": "Enter passphrase to decrypt your key:",
};

/** Where an interactive passphrase provider reads from and prompts to. */
export interface PassphraseSourceParameters {
  env: Readonly<Record<string, string | undefined>>;
  reader: LineReader;
  /** Receives prompts (stderr in the CLI). */
  prompt: (text: string) => void;
}

/**
 * A PassphraseProvider that takes CHAIND_KEYRING_PASSPHRASE / CHAIND_EXPORT_PASSPHRASE from `env` when set,
 * and otherwise prompts and reads one line. Throws when the input ends before a line is read.
 */
export function envOrStdinPassphrase(parameters: PassphraseSourceParameters): PassphraseProvider {
  return async (purpose) => {
    const variable = purpose.startsWith("keyring") ? KEYRING_PASSPHRASE_ENV : EXPORT_PASSPHRASE_ENV;
    const fromEnv = parameters.env[variable];
    if (fromEnv !== undefined && fromEnv !== "") return fromEnv;
    parameters.prompt(PROMPTS[purpose]);
    const line = await parameters.reader.readLine();
    if (line === undefined) {
      throw new KeyringError("passphrase-missing", `no passphrase: set ${variable} or type it on standard input`, {
        purpose,
        variable,
      });
    }
    return line;
  };
}
