// A one-entry memo for decoding small, rarely changing records (module params) that hot paths read
// several times per tx: the decoded value is reused while the stored bytes stay the same. Values are
// frozen, since every caller shares them.

/** Returns `decode` wrapped so that equal bytes give the same frozen value without decoding again. */
export function decodedOnce<T extends object>(decode: (bytes: Uint8Array) => T): (bytes: Uint8Array) => Readonly<T> {
  let lastBytes: Uint8Array | undefined;
  let lastValue: Readonly<T> | undefined;
  return (bytes) => {
    if (lastValue !== undefined && lastBytes !== undefined && Buffer.compare(lastBytes, bytes) === 0) return lastValue;
    const value = Object.freeze(decode(bytes));
    lastBytes = bytes.slice();
    lastValue = value;
    return value;
  };
}
