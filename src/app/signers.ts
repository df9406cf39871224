// Who must sign a Msg: the fields named by the `(chain.msg.v1.signer)` message option. A named field
// is a bech32 address string (or a list of them), or a message (or list of messages) whose own
// signer option names its address field, as MsgMultiSend's inputs do.
import { type DescField, type DescMessage, getOption, hasOption, type Message } from "@bufbuild/protobuf";
import { currentBech32Prefixes } from "../crypto/index.ts";
import { signer as signerOption } from "../gen/chain/msg/v1/msg_pb.js";
import { decodeBech32Cached } from "./address-cache.ts";

/** Thrown when a message declares no signer or carries an unreadable signer address. */
export class SignerError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SignerError";
  }
}

const fieldCache = new WeakMap<DescMessage, DescField[]>();

/** The fields named by the message's signer option; throws SignerError when it has none. */
export function signerFields(desc: DescMessage): DescField[] {
  const cached = fieldCache.get(desc);
  if (cached !== undefined) return cached;
  if (!hasOption(desc, signerOption)) {
    throw new SignerError(`message ${desc.typeName} declares no signer: add option (chain.msg.v1.signer)`);
  }
  const names = getOption(desc, signerOption);
  if (names.length === 0) throw new SignerError(`message ${desc.typeName} declares an empty signer option`);
  const fields = names.map((name) => {
    const field = desc.fields.find((f) => f.name === name);
    if (field === undefined) {
      throw new SignerError(`message ${desc.typeName} names signer field "${name}", which it does not have`);
    }
    return field;
  });
  fieldCache.set(desc, fields);
  return fields;
}

/** The bech32 signer addresses of `msg`, in field order (duplicates kept). */
export function signerAddresses(desc: DescMessage, msg: Message): string[] {
  const out: string[] = [];
  for (const field of signerFields(desc))
    collect(field, (msg as unknown as Record<string, unknown>)[field.localName], out);
  return out;
}

/** The raw signer addresses (20 bytes each) of `msg`, decoded from bech32 (account or operator prefix). */
export function signerBytes(desc: DescMessage, msg: Message): Uint8Array[] {
  return signerAddresses(desc, msg).map((address) => decodeSignerAddress(address, desc.typeName));
}

/** Decodes a signer address; accepts the account (`chain1…`) and validator operator (`chainvaloper1…`) prefixes. */
export function decodeSignerAddress(address: string, typeName = "message"): Uint8Array {
  if (address === "") throw new SignerError(`${typeName}: empty address string is not allowed`);
  let decoded: { prefix: string; data: Uint8Array };
  try {
    decoded = decodeBech32Cached(address);
  } catch (err) {
    throw new SignerError(`${typeName}: invalid signer address: ${(err as Error).message}`, { cause: err });
  }
  const prefixes = currentBech32Prefixes();
  if (decoded.prefix !== prefixes.acc && decoded.prefix !== prefixes.val) {
    throw new SignerError(
      `${typeName}: invalid signer address "${address}": prefix "${decoded.prefix}", expected "${prefixes.acc}"`,
    );
  }
  return decoded.data;
}

function collect(field: DescField, value: unknown, out: string[]): void {
  if (field.fieldKind === "scalar") {
    if (typeof value !== "string") throw new SignerError(`signer field ${field.name} is not a string`);
    out.push(value);
    return;
  }
  if (field.fieldKind === "list") {
    const items = value as unknown[];
    if (field.listKind === "scalar") {
      for (const item of items) {
        if (typeof item !== "string") throw new SignerError(`signer field ${field.name} is not a list of strings`);
        out.push(item);
      }
      return;
    }
    if (field.listKind === "message") {
      for (const item of items) out.push(...signerAddresses(field.message, item as Message));
      return;
    }
  }
  if (field.fieldKind === "message") {
    if (value === undefined) throw new SignerError(`signer field ${field.name} is not set`);
    out.push(...signerAddresses(field.message, value as Message));
    return;
  }
  throw new SignerError(`signer field ${field.name} has an unsupported kind (${field.fieldKind})`);
}
