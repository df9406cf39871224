// CRC-32C (Castagnoli), masked as LevelDB stores it beside each record of its write-ahead log and manifest, so that
// a reader of those files without LevelDB (level-files.ts) drops nothing LevelDB would keep and keeps nothing it
// would drop.

const TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

/** CRC-32C of `bytes`. */
export function crc32c(bytes: Uint8Array): number {
  let c = -1;
  for (let i = 0; i < bytes.length; i++) c = TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

/** LevelDB's stored form of a CRC (rotated and offset: a CRC of data that embeds CRCs is then still strong). */
export function maskedCrc32c(bytes: Uint8Array): number {
  const c = crc32c(bytes);
  return (((c >>> 15) | (c << 17)) + 0xa282ead8) >>> 0;
}
