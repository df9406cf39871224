// Unsigned base-128 varints (protobuf's) for the snapshot stream and its metadata message.

/** Appends `value` (a non-negative safe integer) as a varint to `out`. */
export function pushUvarint(out: number[], value: number): void {
  let v = value;
  while (v >= 0x80) {
    out.push((v % 128) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
}

/** Reads a varint at `offset` of `buf`; undefined when the buffer ends inside it. */
export function readUvarint(buf: Uint8Array, offset: number): { value: number; next: number } | undefined {
  let value = 0;
  let scale = 1;
  for (let i = offset; i < buf.length; i++) {
    const byte = buf[i];
    value += (byte & 0x7f) * scale;
    if ((byte & 0x80) === 0) return { value, next: i + 1 };
    scale *= 128;
    if (scale > 2 ** 56) throw new Error("varint too long");
  }
  return undefined;
}
