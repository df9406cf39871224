// CRC-32C (Castagnoli), masked as LevelDB stores it beside each record of its write-ahead log and manifest, so that
// a reader of those files without LevelDB (level-files.ts) drops nothing LevelDB would keep and keeps nothing it
// would drop. Eight bytes a step through eight tables ("slicing by 8"): a log holds up to a write buffer (4 MiB),
// which one table a byte took 19.2 ms to check and this 10.7 ms (30 alternating runs at load ~8, medians).

const TABLES = (() => {
  const tables = Array.from({ length: 8 }, () => new Int32Array(256));
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    tables[0][n] = c;
  }
  for (let n = 0; n < 256; n++) {
    for (let t = 1; t < 8; t++) tables[t][n] = tables[0][tables[t - 1][n] & 0xff] ^ (tables[t - 1][n] >>> 8);
  }
  return tables;
})();
const [T0, T1, T2, T3, T4, T5, T6, T7] = TABLES;

/** CRC-32C of `bytes`. */
export function crc32c(bytes: Uint8Array): number {
  let c = -1;
  let i = 0;
  const whole = bytes.length - (bytes.length % 8);
  for (; i < whole; i += 8) {
    const a = c ^ (bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24));
    c =
      T7[a & 0xff] ^
      T6[(a >>> 8) & 0xff] ^
      T5[(a >>> 16) & 0xff] ^
      T4[a >>> 24] ^
      T3[bytes[i + 4]] ^
      T2[bytes[i + 5]] ^
      T1[bytes[i + 6]] ^
      T0[bytes[i + 7]];
  }
  for (; i < bytes.length; i++) c = T0[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

/** LevelDB's stored form of a CRC (rotated and offset: a CRC of data that embeds CRCs is then still strong). */
export function maskedCrc32c(bytes: Uint8Array): number {
  const c = crc32c(bytes);
  return (((c >>> 15) | (c << 17)) + 0xa282ead8) >>> 0;
}
