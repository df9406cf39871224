// `chaind tx sign|broadcast|encode|decode`: working with tx documents (the JSON `--generate-only` prints)
// offline and online. Tx documents are always written as one line of JSON, whatever `-o` says, so that
// `tx sign` output can be fed to `tx broadcast`.
import { readFile, writeFile } from "node:fs/promises";
import { create, type JsonValue, type Registry, toBinary } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { Command } from "commander";
import { fromProtoJson } from "../../app/proto-json.ts";
import { decodeSignerAddress, signerBytes } from "../../app/signers.ts";
import { equalBytes } from "../../bytes/compare.ts";
import { currentBinaryName } from "../../config/home.ts";
import { addressToBech32 } from "../../crypto/index.ts";
import { type Tx, TxBodySchema, TxSchema } from "../../gen/chain/tx/v1beta1/tx_pb.js";
import { KeyringError, type KeyringSigner } from "../keyring/index.ts";
import {
  makeAuthInfoBytes,
  makeTxRawBytes,
  secp256k1PubKeyAny,
  signDirect,
  txFromTxRaw,
  txRawFromTx,
} from "../tx/index.ts";
import type { ClientContext } from "./context.ts";
import { CliError } from "./errors.ts";
import { addQueryFlags, addTxFlags, readTxFlags } from "./flags.ts";
import type { ClientSession } from "./session.ts";
import { broadcastTxBytes, resolveAccount, resolveChainId } from "./tx-sender.ts";

/** `tx sign <file>`: signs a tx document as `--from` (SIGN_MODE_DIRECT) and prints the signed document. */
export function txSignCommand(session: ClientSession): Command {
  return addTxFlags(
    new Command("sign")
      .description(
        "Sign a tx document made by --generate-only; account number and sequence come from the chain unless --account-number and --sequence are given (offline)",
      )
      .argument("<file>", 'the tx JSON file ("-" for standard input)')
      .option("--signature-only", "print only the signature (with public key, mode and sequence)")
      .option("--overwrite", "replace signatures the document already has")
      .option("--output-document <file>", "write the result to this file instead of standard output"),
  ).action(
    async (
      file: string,
      options: { signatureOnly?: boolean; overwrite?: boolean; outputDocument?: string },
      command: Command,
    ) => {
      const all = command.optsWithGlobals();
      const ctx = session.open(all);
      const flags = readTxFlags(all);
      const tx = await readTxDocument(ctx, file);
      if (tx.signatures.length > 0 && options.overwrite !== true) {
        throw new CliError(
          `the tx already has ${tx.signatures.length} signature(s): pass --overwrite to replace them (a SIGN_MODE_DIRECT signature covers the signer list, so adding a signer would invalidate them)`,
        );
      }
      if (flags.from === undefined || flags.from === "") {
        throw new CliError("--from is required: the name or address of the signing key");
      }
      let signer: KeyringSigner;
      try {
        signer = await ctx.keyring(flags.keyringBackend).signer(flags.from);
      } catch (err) {
        if (err instanceof KeyringError) throw new CliError(err.message, { cause: err });
        throw err;
      }
      // As upstream's client (authclient.SignTx): a key the tx does not name as a signer is refused here, not by the
      // node after broadcast ("pubKey does not match signer address").
      if (!requiredSigners(ctx.registry, tx).some((address) => equalBytes(address, signer.address))) {
        throw new CliError(`tx intended signer does not match the given signer: ${flags.from}`);
      }
      const account = await resolveAccount(ctx, flags, addressToBech32(signer.address));
      const chainId = await resolveChainId(ctx, flags.chainId);
      const fee = tx.authInfo?.fee;
      const bodyBytes = toBinary(TxBodySchema, tx.body ?? create(TxBodySchema));
      const authInfoBytes = makeAuthInfoBytes({
        signers: [{ pubKey: signer.pubKey, sequence: account.sequence }],
        fee: {
          amount: fee?.amount ?? [],
          gasLimit: fee?.gasLimit ?? 0n,
          payer: fee?.payer ?? "",
          granter: fee?.granter ?? "",
        },
      });
      const { signature } = await signDirect(signer, {
        bodyBytes,
        authInfoBytes,
        chainId,
        accountNumber: account.accountNumber,
      });
      let output: JsonValue;
      if (options.signatureOnly === true) {
        output = {
          signatures: [
            {
              public_key: {
                "@type": secp256k1PubKeyAny(signer.pubKey).typeUrl,
                key: Buffer.from(signer.pubKey).toString("base64"),
              },
              data: { single: { mode: "SIGN_MODE_DIRECT", signature: Buffer.from(signature).toString("base64") } },
              sequence: account.sequence.toString(),
            },
          ],
        };
      } else {
        const signed = txFromRawBytes(makeTxRawBytes({ bodyBytes, authInfoBytes, signatures: [signature] }));
        output = ctx.messageJson(TxSchema, signed);
      }
      await writeDocument(ctx, output, options.outputDocument);
    },
  );
}

/**
 * The addresses (20 bytes) that must sign `tx`: every message's signers, then the fee payer. A message whose type or
 * signers cannot be read makes the list empty of it: the node's own checks then say what is wrong.
 */
function requiredSigners(registry: Registry, tx: Tx): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const any of tx.body?.messages ?? []) {
    const desc = registry.getMessage(any.typeUrl.slice(any.typeUrl.lastIndexOf("/") + 1));
    if (desc === undefined) continue;
    try {
      const msg = anyUnpack(any, desc);
      if (msg !== undefined) out.push(...signerBytes(desc, msg));
    } catch {
      // Unreadable: left to the node.
    }
  }
  const payer = tx.authInfo?.fee?.payer ?? "";
  if (payer !== "") {
    try {
      out.push(decodeSignerAddress(payer, "fee payer"));
    } catch {
      // Left to the node.
    }
  }
  return out;
}

/** `tx broadcast <file>`: broadcasts a signed tx document; prints the TxResponse. */
export function txBroadcastCommand(session: ClientSession): Command {
  return addTxFlags(
    new Command("broadcast")
      .description("Broadcast a signed tx document (made by tx sign) to the node")
      .argument("<file>", 'the signed tx JSON file ("-" for standard input)'),
  ).action(async (file: string, _options: unknown, command: Command) => {
    const all = command.optsWithGlobals();
    const ctx = session.open(all);
    const flags = readTxFlags(all);
    if (flags.generateOnly) throw new CliError("--generate-only cannot be used with tx broadcast");
    const tx = await readTxDocument(ctx, file);
    if (tx.signatures.length === 0)
      throw new CliError(`the tx in ${file} has no signatures: sign it with "${currentBinaryName()} tx sign" first`);
    ctx.print(await broadcastTxBytes(ctx, flags, rawBytesOf(tx)));
  });
}

/** `tx encode <file>`: the base64 TxRaw bytes of a tx document (what broadcast_tx_sync takes). */
export function txEncodeCommand(session: ClientSession): Command {
  return addQueryFlags(new Command("encode"))
    .description("Encode a tx document as base64 TxRaw bytes")
    .argument("<file>", 'the tx JSON file ("-" for standard input)')
    .action(async (file: string, _options: unknown, command: Command) => {
      const ctx = session.open(command.optsWithGlobals());
      const tx = await readTxDocument(ctx, file);
      ctx.io.stdout.write(`${Buffer.from(rawBytesOf(tx)).toString("base64")}\n`);
    });
}

/** `tx decode <bytes>`: the tx document of base64 (or `--hex`) TxRaw bytes. */
export function txDecodeCommand(session: ClientSession): Command {
  return addQueryFlags(new Command("decode"))
    .description("Decode base64 (or hex with --hex) TxRaw bytes into a tx document")
    .argument("<bytes>", "the encoded tx")
    .option("-x, --hex", "the argument is hex instead of base64")
    .action(async (text: string, options: { hex?: boolean }, command: Command) => {
      const ctx = session.open(command.optsWithGlobals());
      const trimmed = text.trim();
      const valid = options.hex === true ? /^(?:[0-9a-fA-F]{2})+$/ : /^[A-Za-z0-9+/]+={0,2}$/;
      if (!valid.test(trimmed)) {
        throw new CliError(
          `invalid tx bytes "${trimmed.slice(0, 40)}": expected ${options.hex === true ? "hex" : "base64"} of TxRaw bytes`,
        );
      }
      const bytes = new Uint8Array(Buffer.from(trimmed, options.hex === true ? "hex" : "base64"));
      ctx.print(ctx.messageJson(TxSchema, txFromRawBytes(bytes)));
    });
}

/** A Tx from TxRaw bytes; CliError `malformed tx bytes: …` when they are not a tx. */
export function txFromRawBytes(bytes: Uint8Array): Tx {
  try {
    return txFromTxRaw(bytes);
  } catch (err) {
    throw new CliError(`malformed tx bytes: ${(err as Error).message}`, { cause: err });
  }
}

/** The TxRaw bytes of a Tx (body and auth info encoded as they are in the document). */
export function rawBytesOf(tx: Tx): Uint8Array {
  return txRawFromTx(tx);
}

/** Reads and parses a tx document (`-` = stdin); errors name the file and what is wrong. */
export async function readTxDocument(ctx: ClientContext, file: string): Promise<Tx> {
  let text: string;
  try {
    text = file === "-" ? await readAll(ctx.io.stdin ?? process.stdin) : await readFile(file, "utf8");
  } catch (err) {
    throw new CliError(`cannot read tx file ${file}: ${(err as Error).message}`, { cause: err });
  }
  let json: JsonValue;
  try {
    json = JSON.parse(text) as JsonValue;
  } catch (err) {
    throw new CliError(`tx file ${file} is not JSON: ${(err as Error).message}`, { cause: err });
  }
  try {
    return fromProtoJson(TxSchema, json, ctx.registry);
  } catch (err) {
    throw new CliError(`tx file ${file} is not a tx document: ${(err as Error).message}`, { cause: err });
  }
}

async function writeDocument(ctx: ClientContext, document: JsonValue, file: string | undefined): Promise<void> {
  const text = `${JSON.stringify(document)}\n`;
  if (file === undefined) {
    ctx.io.stdout.write(text);
    return;
  }
  try {
    await writeFile(file, text);
  } catch (err) {
    throw new CliError(`cannot write ${file}: ${(err as Error).message}`, { cause: err });
  }
}

/** All of `input` (standard input) as text. */
export async function readAll(input: AsyncIterable<string | Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of input) text += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}
