// The `checksum` query value of a download URL (`sha256:<hex>`, `sha512:<hex>`, or bare hex whose length names the
// algorithm), as cosmovisor's downloader reads it. Only sha256 and sha512 are accepted: md5 and sha1 are broken.
import { VisorError } from "./errors.ts";

export type HashAlgorithm = "sha256" | "sha512";

/** An expected digest. */
export interface Checksum {
  algorithm: HashAlgorithm;
  /** Lower-case hex. */
  hex: string;
}

const HEX_LENGTH: Record<HashAlgorithm, number> = { sha256: 64, sha512: 128 };

/**
 * Parses a checksum value.
 * @example parseChecksum("sha256:9f86d0...") // { algorithm: "sha256", hex: "9f86d0..." }
 */
export function parseChecksum(value: string): Checksum {
  const separator = value.indexOf(":");
  if (separator < 0) {
    const hex = value.toLowerCase();
    checkHex(value, hex);
    if (hex.length === HEX_LENGTH.sha256) return { algorithm: "sha256", hex };
    if (hex.length === HEX_LENGTH.sha512) return { algorithm: "sha512", hex };
    throw new VisorError(`Unknown type for checksum ${value}`, {
      details: ["write it as sha256:<64 hex digits> or sha512:<128 hex digits>"],
    });
  }
  const type = value.slice(0, separator).toLowerCase();
  const hex = value.slice(separator + 1).toLowerCase();
  if (type === "file") {
    throw new VisorError(`checksum files are not supported (checksum=${value})`, {
      details: ["put the digest itself in the URL: ?checksum=sha256:<hex>"],
    });
  }
  if (type !== "sha256" && type !== "sha512") {
    throw new VisorError(`unsupported checksum type: ${type}`, { details: ["use sha256 or sha512"] });
  }
  checkHex(value, hex);
  if (hex.length !== HEX_LENGTH[type]) {
    throw new VisorError(
      `invalid checksum: a ${type} digest has ${HEX_LENGTH[type]} hex digits, got ${hex.length} in "${value}"`,
    );
  }
  return { algorithm: type, hex };
}

function checkHex(value: string, hex: string): void {
  if (!/^[0-9a-f]*$/.test(hex) || hex === "") {
    throw new VisorError(`invalid checksum: "${value}" is not a hex digest`);
  }
}

/** The checksum carried by a URL's `checksum` query parameter, if any. */
export function checksumOfUrl(url: URL): Checksum | undefined {
  const value = url.searchParams.get("checksum");
  if (value === null || value === "") return undefined;
  return parseChecksum(value);
}

/** The URL actually requested: the `checksum` and `archive` parameters are directives to us, not to the server. */
export function requestUrl(url: URL): string {
  const copy = new URL(url.href);
  copy.searchParams.delete("checksum");
  copy.searchParams.delete("archive");
  return copy.href;
}
