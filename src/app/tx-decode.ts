// Decoding a broadcast tx as upstream's decoder does (x/auth/tx/decoder.go): TxRaw must follow
// ADR-027 (fields ascending, minimal length varints), TxRaw and AuthInfo may carry no unknown
// field, TxBody only non-critical ones (field numbers with bit 11 set), every Any must resolve in
// the type registry, and every Msg must name its signers. Any failure is sdk 2 `tx parse error`.

import type { UnknownField } from "@bufbuild/protobuf";
import { type DescMessage, fromBinary, type Message, type MessageShape, type Registry } from "@bufbuild/protobuf";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import { uvarintLength } from "../bytes/varint.ts";
import { PubKeySchema as Ed25519PubKeySchema } from "../gen/chain/crypto/ed25519/keys_pb.js";
import { PubKeySchema as Secp256k1PubKeySchema } from "../gen/chain/crypto/secp256k1/keys_pb.js";
import {
  type AuthInfo,
  AuthInfoSchema,
  type TxBody,
  TxBodySchema,
  type TxRaw,
  TxRawSchema,
} from "../gen/chain/tx/v1beta1/tx_pb.js";
import { accountBech32 } from "./address-cache.ts";
import { type Coin, coinsFromProto } from "./coins.ts";
import { ErrTxDecode } from "./errors.ts";
import type { MsgRoute, MsgRouter } from "./router.ts";
import { decodeSignerAddress, signerAddresses } from "./signers.ts";
import { containsLegacyDec, decimalsFromWire, fromWireBinary } from "./wire-decimals.ts";
import { rejectTruncatedLengths } from "./wire-lengths.ts";

/** One decoded message of a tx. */
export interface DecodedMsg {
  typeUrl: string;
  /** Undefined when the type is known but no Msg service handles it (→ sdk 6 before the ante handler). */
  route: MsgRoute | undefined;
  desc: DescMessage;
  msg: Message;
  /** The message's signer addresses (bech32), in field order. */
  signers: string[];
}

/** A public key carried in a SignerInfo. */
export interface TxPubKey {
  /** `secp256k1`, `ed25519`, or the type URL of anything else (rejected by the ante handler). */
  algorithm: "secp256k1" | "ed25519" | "other";
  typeUrl: string;
  key: Uint8Array;
}

/** A tx decoded and checked for shape, ready for the ante handler. */
export interface DecodedTx {
  txBytes: Uint8Array;
  raw: TxRaw;
  body: TxBody;
  authInfo: AuthInfo;
  msgs: DecodedMsg[];
  /** Required signers (20-byte addresses): unique msg signers in order of first appearance, then the fee payer. */
  signers: Uint8Array[];
  /** The same signers as bech32 account addresses. */
  signerAddresses: string[];
  /** fee.amount, parsed (order and validity as sent; checked by the ante handler). */
  fee: Coin[];
  gasLimit: bigint;
  /** Who pays the fee: fee.payer when set, else the first signer. */
  feePayer: Uint8Array;
  /** Public key of each SignerInfo (undefined where omitted). */
  pubKeys: (TxPubKey | undefined)[];
}

const SECP256K1_TYPE_URLS = new Set(["/chain.crypto.secp256k1.PubKey", "/cosmos.crypto.secp256k1.PubKey"]);
const ED25519_TYPE_URLS = new Set(["/chain.crypto.ed25519.PubKey", "/cosmos.crypto.ed25519.PubKey"]);
const NON_CRITICAL_BIT = 1024;
const MAX_ANY_DEPTH = 32;

/**
 * Decodes and checks `txBytes`. Throws a ChainError with sdk code 2 whose message ends
 * `: tx parse error` and says what was wrong.
 */
export function decodeTx(txBytes: Uint8Array, registry: Registry, msgRouter: MsgRouter): DecodedTx {
  try {
    return decodeUnchecked(txBytes, registry, msgRouter);
  } catch (err) {
    if (ErrTxDecode.is(err)) throw err;
    throw ErrTxDecode.wrap((err as Error).message, { cause: err });
  }
}

function decodeUnchecked(txBytes: Uint8Array, registry: Registry, msgRouter: MsgRouter): DecodedTx {
  if (txBytes.length === 0) throw new Error("tx bytes are empty");
  rejectNonAdr027(txBytes);
  const raw = parse(TxRawSchema, txBytes, "TxRaw");
  rejectUnknown(TxRawSchema, raw, registry, false, 0);
  rejectTruncatedLengths(TxBodySchema, raw.bodyBytes, "TxBody", registry);
  rejectTruncatedLengths(AuthInfoSchema, raw.authInfoBytes, "AuthInfo", registry);
  const body = parse(TxBodySchema, raw.bodyBytes, "TxBody");
  rejectUnknown(TxBodySchema, body, registry, true, 0);
  const authInfo = parse(AuthInfoSchema, raw.authInfoBytes, "AuthInfo");
  rejectUnknown(AuthInfoSchema, authInfo, registry, false, 0);

  const msgs = body.messages.map((any): DecodedMsg => {
    const desc = registry.getMessage(any.typeUrl.slice(1));
    if (!any.typeUrl.startsWith("/") || desc === undefined) {
      throw new Error(`unable to resolve type URL ${any.typeUrl}`);
    }
    // The unknown-field walk above parsed this Any already: convert that parse rather than parse again.
    const parsed = parsedAnys.get(any);
    const msg = parsed === undefined ? fromWireBinary(desc, any.value) : decimalsFromWireInPlace(desc, parsed);
    return {
      typeUrl: any.typeUrl,
      route: msgRouter.route(any.typeUrl),
      desc,
      msg,
      signers: signerAddresses(desc, msg),
    };
  });

  const signers: Uint8Array[] = [];
  const seen = new Set<string>();
  const addSigner = (address: Uint8Array): void => {
    const key = Buffer.from(address).toString("hex");
    if (seen.has(key)) return;
    seen.add(key);
    signers.push(address);
  };
  for (const msg of msgs) for (const address of msg.signers) addSigner(decodeSignerAddress(address, msg.desc.typeName));

  const fee = authInfo.fee;
  let feePayer = signers[0] ?? new Uint8Array();
  if (fee !== undefined && fee.payer !== "") {
    // An unreadable payer is reported by the ante handler's ValidateBasic (sdk 7), as upstream does.
    try {
      feePayer = decodeSignerAddress(fee.payer, "fee payer");
      addSigner(feePayer);
    } catch {
      // keep the first signer; ValidateBasic rejects the tx
    }
  }

  let feeCoins: Coin[];
  try {
    feeCoins = coinsFromProto(fee?.amount ?? []);
  } catch (err) {
    throw new Error(`invalid fee amount: ${(err as Error).message}`, { cause: err });
  }

  return {
    txBytes,
    raw,
    body,
    authInfo,
    msgs,
    signers,
    signerAddresses: signers.map((s) => accountBech32(s)),
    fee: feeCoins,
    gasLimit: fee?.gasLimit ?? 0n,
    feePayer,
    pubKeys: authInfo.signerInfos.map((info) =>
      info.publicKey === undefined ? undefined : decodePubKey(info.publicKey),
    ),
  };
}

/** Reads the public key inside an Any (secp256k1 or ed25519 under the chain or cosmos type URL). */
export function decodePubKey(any: { typeUrl: string; value: Uint8Array }): TxPubKey {
  if (SECP256K1_TYPE_URLS.has(any.typeUrl)) {
    return { algorithm: "secp256k1", typeUrl: any.typeUrl, key: fromBinary(Secp256k1PubKeySchema, any.value).key };
  }
  if (ED25519_TYPE_URLS.has(any.typeUrl)) {
    return { algorithm: "ed25519", typeUrl: any.typeUrl, key: fromBinary(Ed25519PubKeySchema, any.value).key };
  }
  return { algorithm: "other", typeUrl: any.typeUrl, key: any.value };
}

function parse<Desc extends DescMessage>(schema: Desc, bytes: Uint8Array, what: string): MessageShape<Desc> {
  try {
    return fromBinary(schema, bytes);
  } catch (err) {
    throw new Error(`cannot decode ${what}: ${(err as Error).message}`, { cause: err });
  }
}

// ADR-027: TxRaw's fields must be length-delimited, in ascending order, with minimal varint lengths,
// so that the bytes that are hashed and signed have one canonical form.
function rejectNonAdr027(bytes: Uint8Array): void {
  const reader = new BinaryReader(bytes);
  let previous = 0;
  while (reader.pos < reader.len) {
    const [fieldNo, wireType] = reader.tag();
    if (wireType !== WireType.LengthDelimited) {
      throw new Error(`expected ${WireType.LengthDelimited} wire type, got ${wireType}`);
    }
    if (fieldNo < previous)
      throw new Error(`txRaw must follow ADR-027, got tagNum ${fieldNo} after tagNum ${previous}`);
    previous = fieldNo;
    const lengthStart = reader.pos;
    const length = reader.uint32();
    const used = reader.pos - lengthStart;
    const minimal = uvarintLength(length);
    if (used !== minimal) {
      throw new Error(
        `length prefix varint for tagNum ${fieldNo} is not as short as possible, read ${used}, only need ${minimal}`,
      );
    }
    if (reader.pos + length > reader.len) throw new Error("invalid length; unexpected end of input");
    reader.pos += length;
  }
}

// Walks a decoded message and its nested messages (resolving Anys through the registry) and rejects
// unknown fields: all of them in strict mode, only critical ones (bit 11 clear) otherwise.
function rejectUnknown(
  desc: DescMessage,
  msg: Message,
  registry: Registry,
  allowNonCritical: boolean,
  depth: number,
): void {
  if (depth > MAX_ANY_DEPTH) throw new Error(`messages nested deeper than ${MAX_ANY_DEPTH} levels`);
  const unknown: UnknownField[] | undefined = msg.$unknown;
  if (unknown !== undefined) {
    for (const field of unknown) {
      if (allowNonCritical && (field.no & NON_CRITICAL_BIT) !== 0) continue;
      throw new Error(
        `unknown field ${field.no} (wire type ${field.wireType}) in ${desc.typeName}${allowNonCritical ? ", and it is critical" : ""}`,
      );
    }
  }
  if (desc.typeName === "google.protobuf.Any") {
    const any = msg as unknown as { typeUrl: string; value: Uint8Array };
    if (SECP256K1_TYPE_URLS.has(any.typeUrl) || ED25519_TYPE_URLS.has(any.typeUrl)) return;
    const inner = any.typeUrl.startsWith("/") ? registry.getMessage(any.typeUrl.slice(1)) : undefined;
    if (inner === undefined) throw new Error(`unable to resolve type URL ${any.typeUrl}`);
    const parsed = parse(inner, any.value, any.typeUrl);
    rejectUnknown(inner, parsed, registry, allowNonCritical, depth + 1);
    parsedAnys.set(any, parsed);
    return;
  }
  const record = msg as unknown as Record<string, unknown>;
  for (const field of desc.fields) {
    if (field.fieldKind === "message") {
      const value =
        field.oneof === undefined
          ? record[field.localName]
          : oneofValue(record, field.oneof.localName, field.localName);
      if (value !== undefined) rejectUnknown(field.message, value as Message, registry, allowNonCritical, depth + 1);
    } else if (field.fieldKind === "list" && field.listKind === "message") {
      for (const item of record[field.localName] as Message[]) {
        rejectUnknown(field.message, item, registry, allowNonCritical, depth + 1);
      }
    } else if (field.fieldKind === "map" && field.mapKind === "message") {
      for (const item of Object.values(record[field.localName] as Record<string, Message>)) {
        rejectUnknown(field.message, item, registry, allowNonCritical, depth + 1);
      }
    }
  }
}

// What `rejectUnknown` parsed out of each Any it walked (the same bytes, the same schema from the same
// registry), so the body's messages are parsed once per tx, not twice. Keyed by the Any object: nothing
// outlives the decoded tx.
const parsedAnys = new WeakMap<object, Message>();

// `fromWireBinary` for a message already parsed: its LegacyDec fields turned from wire text to decimal text.
function decimalsFromWireInPlace(desc: DescMessage, message: Message): Message {
  if (containsLegacyDec(desc)) decimalsFromWire(desc, message);
  return message;
}

function oneofValue(record: Record<string, unknown>, oneofName: string, fieldName: string): unknown {
  const oneof = record[oneofName] as { case: string | undefined; value?: unknown } | undefined;
  return oneof?.case === fieldName ? oneof.value : undefined;
}
