// Inputs that are almost valid: a real document or archive with a few edits, so the parser gets past its first
// check and the damage lands deep inside (a header field, a length, a closing brace), where random input never goes.
import fc from "fast-check";

/** One edit: what to do, where (modulo the length), how many units, and what to insert. */
const edit = fc.tuple(
  fc.constantFrom("flip", "delete", "duplicate", "insert"),
  fc.nat(),
  fc.nat({ max: 16 }),
  fc.uint8Array({ maxLength: 8 }),
);

/** Applies one to three edits (a bit flipped, a slice deleted, duplicated, or random bytes inserted) to `valid`. */
export function mutatedBytes(valid: Uint8Array): fc.Arbitrary<Uint8Array> {
  return fc.array(edit, { minLength: 1, maxLength: 3 }).map((edits) => {
    let bytes = Buffer.from(valid);
    for (const [kind, at, length, insert] of edits) {
      const start = bytes.length === 0 ? 0 : at % bytes.length;
      const end = Math.min(bytes.length, start + length);
      if (kind === "flip") {
        if (bytes.length > 0) bytes[start] ^= 1 << (length % 8);
      } else if (kind === "delete") bytes = Buffer.concat([bytes.subarray(0, start), bytes.subarray(end)]);
      else if (kind === "duplicate") {
        bytes = Buffer.concat([bytes.subarray(0, end), bytes.subarray(start, end), bytes.subarray(end)]);
      } else bytes = Buffer.concat([bytes.subarray(0, start), insert, bytes.subarray(start)]);
    }
    return new Uint8Array(bytes);
  });
}

/** The same edits on text (a UTF-16 unit flipped instead of a bit of a byte). */
export function mutatedText(valid: string): fc.Arbitrary<string> {
  return fc.array(edit, { minLength: 1, maxLength: 3 }).map((edits) => {
    let text = valid;
    for (const [kind, at, length, insert] of edits) {
      const start = text.length === 0 ? 0 : at % text.length;
      const end = Math.min(text.length, start + length);
      if (kind === "flip") {
        const code = text.charCodeAt(start) ^ (1 << (length % 7));
        text = text.slice(0, start) + String.fromCharCode(code) + text.slice(start + 1);
      } else if (kind === "delete") text = text.slice(0, start) + text.slice(end);
      else if (kind === "duplicate") text = text.slice(0, end) + text.slice(start, end) + text.slice(end);
      else text = text.slice(0, start) + String.fromCharCode(...insert) + text.slice(start);
    }
    return text;
  });
}
