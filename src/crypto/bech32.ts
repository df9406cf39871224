// Bech32 (BIP-173, not bech32m) encoding of addresses and public keys with the chain's prefixes, and
// decoding that says exactly what was wrong: the prefix, the checksum, or the length.
import { bech32 } from "@scure/base";
import { Bech32Error } from "./errors.ts";

/** The human-readable prefixes of one chain's addresses and bech32 public keys. */
export interface Bech32Prefixes {
  /** Account addresses (`chain1…`). */
  readonly acc: string;
  /** Validator operator addresses (`chainvaloper1…`). */
  readonly val: string;
  /** Consensus (validator signing key) addresses (`chainvalcons1…`). */
  readonly cons: string;
  readonly accPub: string;
  readonly valPub: string;
  readonly consPub: string;
}

/** The reference chain's prefixes (docs/CONTRACT.md §1), the default of every process. */
export const BECH32_PREFIXES: Bech32Prefixes = bech32PrefixesOf({ account: "chain" });

/**
 * A chain's prefixes from its account prefix, the Cosmos way (`<p>`, `<p>valoper`, `<p>valcons`, each `…pub` for
 * public keys); the operator and consensus prefixes may be given instead of derived.
 * @example bech32PrefixesOf({ account: "tally" }).val // "tallyvaloper"
 */
export function bech32PrefixesOf(parts: { account: string; validator?: string; consensus?: string }): Bech32Prefixes {
  const acc = parts.account;
  const val = parts.validator ?? `${acc}valoper`;
  const cons = parts.consensus ?? `${acc}valcons`;
  for (const [what, prefix] of [
    ["account", acc],
    ["validator operator", val],
    ["consensus", cons],
  ]) {
    // BIP-173: the human-readable part is 1-83 printable ASCII characters; Cosmos prefixes are lower case.
    if (!/^[a-z][a-z0-9]{0,40}$/.test(prefix)) {
      throw new Bech32Error(
        "bech32-malformed",
        `invalid ${what} bech32 prefix "${prefix}": expected lower-case letters and digits starting with a letter, e.g. "tally"`,
        { text: prefix },
      );
    }
  }
  return { acc, val, cons, accPub: `${acc}pub`, valPub: `${val}pub`, consPub: `${cons}pub` };
}

// The prefixes of the chain this process serves: src/runtime's useChain sets them from the chain's identity, so
// addresses read and written anywhere (keys, genesis, msgs, REST) carry the chain's own prefix without each call
// being told. Library callers serving another chain in the same process pass `prefixes` explicitly.
let processPrefixes: Bech32Prefixes = BECH32_PREFIXES;

/** Makes `prefixes` the default of every address function in this process (src/runtime's useChain calls it). */
export function setBech32Prefixes(prefixes: Bech32Prefixes): void {
  processPrefixes = prefixes;
}

/** The prefixes of the chain this process serves (the reference chain's until a chain is set). */
export function currentBech32Prefixes(): Bech32Prefixes {
  return processPrefixes;
}

/** The three kinds of address: account, validator operator, consensus (validator signing key). */
export type AddressKind = "acc" | "val" | "cons";

/** The byte lengths an address may have by default: 20 (hash of a key or of a module name). */
export const ADDRESS_LENGTHS: readonly number[] = [20];

// Encoding also takes 32-byte addresses (ADR-028 derived addresses), which upstream can produce.
const ENCODABLE_ADDRESS_LENGTHS: readonly number[] = [20, 32];

// Cosmos decodes with a limit far above BIP-173's 90 characters so that bech32 public keys fit.
const BECH32_LENGTH_LIMIT = 1023;

/** Bech32 of `data` under `prefix` (lower case). */
export function encodeBech32(prefix: string, data: Uint8Array): string {
  return bech32.encode(prefix, bech32.toWords(data), BECH32_LENGTH_LIMIT);
}

/** The parts of a bech32 string. */
export interface DecodedBech32 {
  prefix: string;
  data: Uint8Array;
}

/**
 * Decodes any bech32 string. Throws Bech32Error `bech32-checksum` when the checksum does not match and
 * `bech32-malformed` for anything else that is not bech32.
 */
export function decodeBech32(text: string): DecodedBech32 {
  if (typeof text !== "string" || text.length === 0) {
    throw new Bech32Error("bech32-malformed", "empty bech32 string", { text });
  }
  let decoded: { prefix: string; words: number[] };
  try {
    decoded = bech32.decode(text as `${string}1${string}`, BECH32_LENGTH_LIMIT);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (reason.startsWith("Invalid checksum")) {
      throw new Bech32Error(
        "bech32-checksum",
        `invalid bech32 string "${text}": bad checksum (mistyped or corrupted)`,
        { text },
        { cause: error },
      );
    }
    throw new Bech32Error(
      "bech32-malformed",
      `invalid bech32 string "${text}": ${lowerFirst(reason)}`,
      { text },
      { cause: error },
    );
  }
  let data: Uint8Array;
  try {
    data = bech32.fromWords(decoded.words);
  } catch (error) {
    throw new Bech32Error(
      "bech32-malformed",
      `invalid bech32 string "${text}": the data part is not whole bytes`,
      { text },
      { cause: error },
    );
  }
  return { prefix: decoded.prefix, data };
}

/**
 * Decodes `text` and checks that its prefix is `expectedPrefix` and, when given, that it decodes to one of
 * `lengths` bytes. Errors name what was expected (`bech32-prefix`, `bech32-length`).
 */
export function decodeBech32WithPrefix(text: string, expectedPrefix: string, lengths?: readonly number[]): Uint8Array {
  const { prefix, data } = decodeBech32(text);
  if (prefix !== expectedPrefix) {
    throw new Bech32Error(
      "bech32-prefix",
      `invalid bech32 string "${text}": prefix "${prefix}", expected "${expectedPrefix}"`,
      { text, prefix, expectedPrefix },
    );
  }
  if (lengths !== undefined && !lengths.includes(data.length)) {
    throw new Bech32Error(
      "bech32-length",
      `invalid bech32 string "${text}": decodes to ${data.length} bytes, expected ${describeLengths(lengths)}`,
      { text, length: data.length, expected: [...lengths] },
    );
  }
  return data;
}

/** Bech32 address of `address` bytes with the prefix of `kind` (default: account `chain1…`) of the chain's `prefixes`. */
export function addressToBech32(
  address: Uint8Array,
  kind: AddressKind = "acc",
  prefixes: Bech32Prefixes = processPrefixes,
): string {
  if (!ENCODABLE_ADDRESS_LENGTHS.includes(address.length)) {
    throw new Bech32Error(
      "bech32-length",
      `cannot encode an address of ${address.length} bytes: expected ${describeLengths(ENCODABLE_ADDRESS_LENGTHS)}`,
      { length: address.length },
    );
  }
  return encodeBech32(prefixes[kind], address);
}

/**
 * Address bytes of a bech32 address of `kind` (default: account). Rejects another prefix (e.g. a
 * validator address where an account was expected), a bad checksum, and a length outside `lengths`.
 */
export function addressFromBech32(
  text: string,
  kind: AddressKind = "acc",
  lengths: readonly number[] = ADDRESS_LENGTHS,
  prefixes: Bech32Prefixes = processPrefixes,
): Uint8Array {
  return decodeBech32WithPrefix(text, prefixes[kind], lengths);
}

/** Converts a bech32 address from one kind to another (e.g. `chain1…` to `chainvaloper1…`). */
export function convertAddress(
  text: string,
  from: AddressKind,
  to: AddressKind,
  prefixes: Bech32Prefixes = processPrefixes,
): string {
  return addressToBech32(addressFromBech32(text, from, ADDRESS_LENGTHS, prefixes), to, prefixes);
}

function describeLengths(lengths: readonly number[]): string {
  return lengths.length === 1 ? `${lengths[0]}` : `${lengths.slice(0, -1).join(", ")} or ${lengths.at(-1)}`;
}

function lowerFirst(text: string): string {
  return text.length === 0 ? text : text[0].toLowerCase() + text.slice(1);
}
