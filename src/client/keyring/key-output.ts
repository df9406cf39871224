// How keys are printed: the same fields as upstream's key output (name, type, address, pubkey as a JSON
// string), as one JSON line or as YAML with the keys sorted (upstream's text mode).
import { type AddressKind, addressToBech32 } from "../../crypto/bech32.ts";
import { pubKeyToJson } from "../../crypto/pubkey.ts";
import type { KeyInfo } from "./record.ts";

/** One key as printed by `keys add|list|show`. Field order is upstream's JSON order. */
export interface KeyOutput {
  name: string;
  type: string;
  address: string;
  pubkey: string;
  mnemonic?: string;
}

/** The printable form of a key; `bech` picks the address prefix (acc `chain1…`, val, cons). */
export function keyOutput(key: KeyInfo, bech: AddressKind = "acc"): KeyOutput {
  return {
    name: key.name,
    type: key.type,
    address: addressToBech32(key.address, bech),
    pubkey: pubKeyToJson({ algorithm: key.algorithm, key: key.pubKey }),
  };
}

/** YAML of one key: `address: …\nname: …\npubkey: '…'\ntype: local\n` (keys sorted, like upstream). */
export function formatKeyText(output: KeyOutput): string {
  return yamlMapping(output, "");
}

/** YAML list of keys (`- address: …`), as `keys list` and `keys add` print them. */
export function formatKeysText(outputs: readonly KeyOutput[]): string {
  return outputs.map((output) => yamlMapping(output, "- ")).join("");
}

function yamlMapping(output: KeyOutput, firstIndent: string): string {
  const entries = Object.entries(output)
    .filter((entry): entry is [string, string] => typeof entry[1] === "string")
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const rest = " ".repeat(firstIndent.length);
  return entries.map(([key, value], i) => `${i === 0 ? firstIndent : rest}${key}: ${yamlScalar(value)}\n`).join("");
}

// Plain YAML scalars must not look like another type or contain indicators; everything else is single-quoted
// (a single quote inside is doubled), which is what upstream's YAML library prints for the pubkey JSON.
const PLAIN = /^[A-Za-z_][A-Za-z0-9_.\-/ ]*$/;
const RESERVED = /^(?:true|false|yes|no|on|off|y|n|null|~)$/i;

/** A YAML scalar for `value`: plain when safe, otherwise single-quoted. */
export function yamlScalar(value: string): string {
  if (value !== "" && PLAIN.test(value) && !RESERVED.test(value) && !value.endsWith(" ")) return value;
  return `'${value.replace(/'/g, "''")}'`;
}
