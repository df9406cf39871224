// BIP39 mnemonics (English) and BIP32/BIP44 paths, as `keys add` uses them: 24 words from 256 bits of
// entropy, seed = PBKDF2-HMAC-SHA512(mnemonic, "mnemonic" + passphrase, 2048), path m/44'/118'/account'/0/index.
import { pbkdf2Sync } from "node:crypto";
import { generateMnemonic as scureGenerate, validateMnemonic as scureValidate } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english";
import { KeyError, MnemonicError } from "./errors.ts";

/** SLIP-44 coin type of the Cosmos family (the chain uses the same, so keys match other Cosmos wallets). */
export const DEFAULT_COIN_TYPE = 118;

/** The default HD path: m/44'/118'/0'/0/0. */
export const DEFAULT_HD_PATH = "m/44'/118'/0'/0/0";

const WORD_COUNTS = [12, 15, 18, 21, 24];
const MAX_HARDENED_INDEX = 0x7fffffff;

/** Parameters of the BIP44 path m/44'/coinType'/account'/0/index. */
export interface HdPathParameters {
  coinType?: number;
  account?: number;
  index?: number;
}

/** The BIP44 path string for `account` and `index` (defaults 0) under coin type 118. */
export function hdPath(parameters: HdPathParameters = {}): string {
  const { coinType = DEFAULT_COIN_TYPE, account = 0, index = 0 } = parameters;
  for (const [name, value] of Object.entries({ coinType, account, index })) {
    if (!Number.isSafeInteger(value) || value < 0 || value > MAX_HARDENED_INDEX) {
      throw new KeyError(
        "hd-path-invalid",
        `invalid HD path ${name} ${value}: expected an integer from 0 to ${MAX_HARDENED_INDEX}`,
        { [name]: value },
      );
    }
  }
  return `m/44'/${coinType}'/${account}'/0/${index}`;
}

/** A fresh mnemonic: 24 words (256 bits of entropy) unless `strength` says otherwise. */
export function generateMnemonic(strength: 128 | 160 | 192 | 224 | 256 = 256): string {
  return scureGenerate(wordlist, strength);
}

/** The mnemonic with surrounding and repeated whitespace removed and words in lower case. */
export function normalizeMnemonic(mnemonic: string): string {
  return mnemonic.trim().split(/\s+/u).join(" ").toLowerCase();
}

/**
 * Returns the normalized mnemonic, or throws MnemonicError saying what is wrong: the word count,
 * the first word not in the English list, or the checksum.
 */
export function assertValidMnemonic(mnemonic: string): string {
  const normalized = normalizeMnemonic(mnemonic);
  const words = normalized === "" ? [] : normalized.split(" ");
  if (!WORD_COUNTS.includes(words.length)) {
    throw new MnemonicError(`invalid mnemonic: ${words.length} words, expected 12, 15, 18, 21 or 24`, {
      wordCount: words.length,
    });
  }
  const unknown = words.findIndex((word) => !wordlist.includes(word));
  if (unknown >= 0) {
    throw new MnemonicError(
      `invalid mnemonic: word ${unknown + 1} "${words[unknown]}" is not in the BIP39 English word list`,
      { position: unknown + 1, word: words[unknown] },
    );
  }
  if (!scureValidate(normalized, wordlist)) {
    throw new MnemonicError("invalid mnemonic: checksum mismatch (a word is wrong or the words are out of order)", {
      wordCount: words.length,
    });
  }
  return normalized;
}

/** True when `mnemonic` is a valid English BIP39 mnemonic (after normalization). */
export function isValidMnemonic(mnemonic: string): boolean {
  try {
    assertValidMnemonic(mnemonic);
    return true;
  } catch {
    return false;
  }
}

/** The 64-byte BIP39 seed of a valid mnemonic and optional BIP39 passphrase (default ""). */
export function mnemonicToSeed(mnemonic: string, bip39Passphrase = ""): Uint8Array {
  const normalized = assertValidMnemonic(mnemonic).normalize("NFKD");
  const salt = `mnemonic${bip39Passphrase.normalize("NFKD")}`;
  return new Uint8Array(pbkdf2Sync(normalized, salt, 2048, 64, "sha512"));
}
