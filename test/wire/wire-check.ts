// The core check of the wire tests: encode a full sample with our schema, let cosmjs-types decode
// and re-encode it, and report every way the two disagree.
import type { DescMessage } from "@bufbuild/protobuf";
import { toWireBinary } from "../../src/app/wire-decimals.ts";
import type { CosmjsCodec } from "./cosmjs-codec.ts";
import { compareMessage, extraCosmjsFields } from "./cosmjs-compare.ts";
import { sampleMessage } from "./sample-message.ts";

/** What one comparison found. */
export interface WireCheckResult {
  /** Human-readable differences; empty when the message is byte-compatible. */
  readonly problems: string[];
  /** cosmjs-types field names our schema lacks (judged by the caller against the allow-list). */
  readonly extraCosmjsFields: string[];
  /** Size of our encoding, to show that something substantial was compared. */
  readonly encodedLength: number;
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("hex");
}

function firstDifference(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return n;
}

/** Compares `desc` (sample variant `variant`) with its cosmjs-types codec, byte for byte and field by field. */
export function checkAgainstCosmjs(desc: DescMessage, codec: CosmjsCodec, variant: number): WireCheckResult {
  const message = sampleMessage(desc, { variant });
  // Encoded as every boundary of the node encodes it: LegacyDec fields as upstream's scaled integers.
  const ours = toWireBinary(desc, message);
  const problems: string[] = [];
  let decoded: Record<string, unknown>;
  let again: Uint8Array;
  try {
    decoded = codec.decode(ours);
    again = codec.encode(decoded).finish();
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    return {
      problems: [`cosmjs-types could not decode our bytes (${reason}); ours: ${hex(ours)}`],
      extraCosmjsFields: [],
      encodedLength: ours.length,
    };
  }
  if (hex(again) !== hex(ours)) {
    const at = firstDifference(ours, again);
    problems.push(
      `bytes differ from offset ${at}: ours ${ours.length} bytes ${hex(ours)}, ` +
        `cosmjs-types re-encoded ${again.length} bytes ${hex(again)}`,
    );
  }
  compareMessage(desc, message, decoded, desc.typeName, problems);
  return { problems, extraCosmjsFields: extraCosmjsFields(desc, decoded), encodedLength: ours.length };
}
