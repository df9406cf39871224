// Snappy decompression (the format LevelDB compresses its table blocks with: a varint of the uncompressed length,
// then literals and back-references), for reading a LevelDB store's tables without LevelDB (level-files.ts). Any
// stream that does not decode to exactly its stated length throws SnappyError: the caller then reads the store the
// ordinary way, which reports the damage as LevelDB does.

/** A snappy stream that does not decode. */
export class SnappyError extends Error {
  override name = "SnappyError";
}

/** The bytes `input` (one snappy block, as LevelDB writes them) decompresses to. */
export function snappyUncompress(input: Uint8Array): Uint8Array {
  let pos = 0;
  let length = 0;
  for (let shift = 0; ; shift += 7) {
    if (pos >= input.length || shift > 28) throw new SnappyError("bad length header");
    const byte = input[pos++];
    length += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) break;
  }
  // The densest element is a 3-byte copy of 64 bytes, so the rest of the input decodes to at most 64/3 of its size: a
  // damaged header stating more is refused before anything is allocated for it.
  const most = Math.floor(((input.length - pos) * 64) / 3);
  if (length > most) throw new SnappyError(`stated length ${length} is more than ${input.length - pos} bytes can hold`);
  const out = new Uint8Array(length);
  let op = 0;
  while (pos < input.length) {
    const tag = input[pos++];
    const kind = tag & 3;
    if (kind === 0) {
      let n = tag >>> 2;
      if (n >= 60) {
        // 60..63: the length minus one follows in 1..4 little-endian bytes.
        const bytes = n - 59;
        if (pos + bytes > input.length) throw new SnappyError("truncated literal length");
        n = 0;
        for (let i = 0; i < bytes; i++) n += input[pos + i] * 2 ** (8 * i);
        pos += bytes;
      }
      n += 1;
      if (pos + n > input.length || op + n > length) throw new SnappyError("literal out of bounds");
      out.set(input.subarray(pos, pos + n), op);
      pos += n;
      op += n;
      continue;
    }
    let n: number;
    let offset: number;
    if (kind === 1) {
      if (pos + 1 > input.length) throw new SnappyError("truncated copy");
      n = ((tag >>> 2) & 7) + 4;
      offset = ((tag >>> 5) << 8) | input[pos];
      pos += 1;
    } else if (kind === 2) {
      if (pos + 2 > input.length) throw new SnappyError("truncated copy");
      n = (tag >>> 2) + 1;
      offset = input[pos] | (input[pos + 1] << 8);
      pos += 2;
    } else {
      if (pos + 4 > input.length) throw new SnappyError("truncated copy");
      n = (tag >>> 2) + 1;
      offset = (input[pos] | (input[pos + 1] << 8) | (input[pos + 2] << 16) | (input[pos + 3] << 24)) >>> 0;
      pos += 4;
    }
    if (offset === 0 || offset > op || op + n > length) throw new SnappyError("copy out of bounds");
    if (offset >= n) out.copyWithin(op, op - offset, op - offset + n);
    else for (let i = 0; i < n; i++) out[op + i] = out[op - offset + i]; // overlapping: a repeated run
    op += n;
  }
  if (op !== length) throw new SnappyError(`decoded ${op} bytes of ${length}`);
  return out;
}
