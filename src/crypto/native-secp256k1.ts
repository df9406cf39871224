// libsecp256k1 (Bitcoin Core's secp256k1 library) as a Node-API addon, for verifying signatures on the tx path:
// a verify takes ~65 µs there against ~400 µs through OpenSSL's generic curve code, and every tx is verified once
// in CheckTx (or in its block). The addon comes prebuilt inside the `secp256k1` package; we load the file itself
// rather than the package's entry, which would also load a pure-JS fallback we never use, and which finds its
// addon with node-gyp-build, unable to tell two addons in one folder apart (the single-file release unpacks
// LevelDB's addon beside its bundle). When the addon cannot load, verification stays on OpenSSL: same answers,
// slower (secp256k1.ts; the two are checked against each other in native-secp256k1.test.ts).
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The addon's verifier: 0 valid; 1 the signature, 2 the key did not parse; 3 a parsed signature that is wrong. */
export type NativeVerify = (signature: Uint8Array, digest: Uint8Array, publicKey: Uint8Array) => number;

interface Secp256k1Addon {
  ecdsaVerify(signature: Uint8Array, digest: Uint8Array, publicKey: Uint8Array): number;
}

/** Set to `openssl` to verify with OpenSSL even where the addon loads (a way out should the addon misbehave). */
export const SECP256K1_ENV = "CHAIND_SECP256K1";

/** Where the single-file release puts the addon, relative to its bundle (scripts/single-file.ts). */
export const BUNDLED_ADDON = join("native", "secp256k1.node");

let loaded: { verify: NativeVerify | undefined; problem: string | undefined } | undefined;

/** The addon's verifier, loaded on first use; undefined when it cannot load or OpenSSL was asked for. */
export function nativeSecp256k1Verify(): NativeVerify | undefined {
  loaded ??= load();
  return loaded.verify;
}

/** Why the addon is not in use (undefined while it is). */
export function nativeSecp256k1Problem(): string | undefined {
  loaded ??= load();
  return loaded.problem;
}

function load(): { verify: NativeVerify | undefined; problem: string | undefined } {
  if (process.env[SECP256K1_ENV] === "openssl") return { verify: undefined, problem: `${SECP256K1_ENV}=openssl` };
  const require = createRequire(import.meta.url);
  const failures: string[] = [];
  for (const file of addonCandidates(require)) {
    if (!existsSync(file)) continue;
    try {
      const addon = require(file) as { Secp256k1: new () => Secp256k1Addon };
      const instance = new addon.Secp256k1();
      return { verify: (s, d, k) => instance.ecdsaVerify(s, d, k), problem: undefined };
    } catch (err) {
      // The glibc build on a musl system, say: the next candidate may load.
      failures.push(`${file} did not load (${(err as Error).message})`);
    }
  }
  if (failures.length > 0) return { verify: undefined, problem: failures.join("; ") };
  return { verify: undefined, problem: `no libsecp256k1 addon for ${process.platform}-${process.arch} was found` };
}

/** The addon files to try, best first: the installed package's prebuilt (or compiled) addon, then the bundle's. */
function addonCandidates(require: NodeJS.Require): string[] {
  const out: string[] = [];
  try {
    const root = dirname(require.resolve("secp256k1/package.json"));
    const prebuilds = join(root, "prebuilds", `${process.platform}-${process.arch}`);
    out.push(join(prebuilds, "secp256k1.glibc.node"), join(prebuilds, "secp256k1.musl.node"));
    out.push(join(root, "build", "Release", "secp256k1.node"));
  } catch {
    // Not installed beside us: the single-file release, which carries the addon next to its bundle.
  }
  out.push(join(dirname(fileURLToPath(import.meta.url)), BUNDLED_ADDON));
  return out;
}
