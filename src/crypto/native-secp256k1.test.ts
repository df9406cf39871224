// The libsecp256k1 addon verifies on the tx path and OpenSSL is its fallback: a node on either must accept and
// refuse exactly the same signatures, or two nodes of one chain could disagree about a block. Each case below goes
// through both and must get the same answer (and the answer the case expects). Also: the addon loads here, in a
// worker thread (where the verify pool runs), and CHAIND_SECP256K1=openssl turns it off.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { Worker } from "node:worker_threads";
import { secp256k1 } from "@noble/curves/secp256k1";
import { sha256 } from "../bytes/sha256.ts";
import { nativeSecp256k1Problem, SECP256K1_ENV } from "./native-secp256k1.ts";
import { signSecp256k1, verifySecp256k1, verifySecp256k1WithOpenSsl } from "./secp256k1.ts";

const N = secp256k1.CURVE.n;
const P = secp256k1.CURVE.Fp.ORDER;

function bigToBytes(value: bigint): Uint8Array {
  return Uint8Array.from(Buffer.from(value.toString(16).padStart(64, "0"), "hex"));
}

function bytesToBig(bytes: Uint8Array): bigint {
  return BigInt(`0x${Buffer.from(bytes).toString("hex")}`);
}

function withHalves(r: bigint, s: bigint): Uint8Array {
  const out = new Uint8Array(64);
  out.set(bigToBytes(r), 0);
  out.set(bigToBytes(s), 32);
  return out;
}

function flip(bytes: Uint8Array, index: number): Uint8Array {
  const out = Uint8Array.from(bytes);
  out[index] ^= 1 << (index % 8);
  return out;
}

interface Case {
  name: string;
  publicKey: Uint8Array;
  message: Uint8Array;
  signature: Uint8Array;
  valid: boolean;
}

/** Valid and invalid (key, message, signature) triples around one signer's signature. */
function casesFor(seed: number): Case[] {
  const privateKey = secp256k1.utils.randomPrivateKey();
  const publicKey = secp256k1.getPublicKey(privateKey, true);
  const message = randomBytes(40 + seed);
  const signature = signSecp256k1(privateKey, message);
  const r = bytesToBig(signature.subarray(0, 32));
  const s = bytesToBig(signature.subarray(32));
  const uncompressed = secp256k1.getPublicKey(privateKey, false);
  const otherParity = Uint8Array.from(publicKey);
  otherParity[0] = publicKey[0] === 2 ? 3 : 2;
  const xBeyondField = Uint8Array.from([2, ...bigToBytes(P)]);
  return [
    { name: "valid", publicKey, message, signature, valid: true },
    { name: "message changed", publicKey, message: flip(message, seed % message.length), signature, valid: false },
    { name: "r changed", publicKey, message, signature: flip(signature, seed % 32), valid: false },
    { name: "s changed", publicKey, message, signature: flip(signature, 32 + (seed % 32)), valid: false },
    { name: "high S (the malleable twin)", publicKey, message, signature: withHalves(r, N - s), valid: false },
    { name: "r = 0", publicKey, message, signature: withHalves(0n, s), valid: false },
    { name: "s = 0", publicKey, message, signature: withHalves(r, 0n), valid: false },
    { name: "r + n (r beyond the order)", publicKey, message, signature: withHalves(r + N, s), valid: false },
    { name: "r = n", publicKey, message, signature: withHalves(N, s), valid: false },
    { name: "signature of 65 bytes", publicKey, message, signature: Uint8Array.from([...signature, 1]), valid: false },
    { name: "signature of 63 bytes", publicKey, message, signature: signature.subarray(0, 63), valid: false },
    { name: "key of the other parity", publicKey: otherParity, message, signature, valid: false },
    { name: "key changed", publicKey: flip(publicKey, 1 + (seed % 32)), message, signature, valid: false },
    { name: "uncompressed key (65 bytes)", publicKey: uncompressed, message, signature, valid: false },
    {
      name: "key with prefix 04",
      publicKey: Uint8Array.from([4, ...publicKey.subarray(1)]),
      message,
      signature,
      valid: false,
    },
    { name: "key x beyond the field", publicKey: xBeyondField, message, signature, valid: false },
    { name: "empty key", publicKey: new Uint8Array(0), message, signature, valid: false },
    { name: "empty message", publicKey, message: new Uint8Array(0), signature, valid: false },
  ];
}

describe("secp256k1 verification: libsecp256k1 and OpenSSL", () => {
  it("the libsecp256k1 addon loads on this platform", () => {
    assert.equal(nativeSecp256k1Problem(), undefined);
  });

  it("agree on valid, tampered, malleable, out-of-range and malformed signatures and keys", () => {
    for (let seed = 0; seed < 40; seed++) {
      for (const c of casesFor(seed)) {
        const native = verifySecp256k1(c.publicKey, c.message, c.signature);
        const openssl = verifySecp256k1WithOpenSsl(c.publicKey, c.message, c.signature);
        assert.equal(native, c.valid, `libsecp256k1, ${c.name} (seed ${seed})`);
        assert.equal(openssl, c.valid, `OpenSSL, ${c.name} (seed ${seed})`);
      }
    }
  });

  it("agree on a signature of the empty message", () => {
    const privateKey = secp256k1.utils.randomPrivateKey();
    const publicKey = secp256k1.getPublicKey(privateKey, true);
    const signature = signSecp256k1(privateKey, new Uint8Array(0));
    assert.ok(verifySecp256k1(publicKey, new Uint8Array(0), signature));
    assert.ok(verifySecp256k1WithOpenSsl(publicKey, new Uint8Array(0), signature));
    // The addon takes the digest: the message is hashed once, not passed through.
    assert.equal(verifySecp256k1(publicKey, sha256(new Uint8Array(0)), signature), false);
  });

  it("the addon loads in a worker thread (the verify pool's)", async () => {
    const source = `
      import { parentPort } from "node:worker_threads";
      const { nativeSecp256k1Problem } = await import(${JSON.stringify(new URL("./native-secp256k1.ts", import.meta.url).href)});
      parentPort.postMessage(nativeSecp256k1Problem() ?? "loaded");
    `;
    const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(source)}`));
    const answer = await new Promise((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
    await worker.terminate();
    assert.equal(answer, "loaded");
  });

  it("loads only the addon: the package's pure-JS fallback (elliptic) never loads", () => {
    const script = `
      import { createRequire } from "node:module";
      import { verifySecp256k1 } from ${JSON.stringify(new URL("./secp256k1.ts", import.meta.url).href)};
      verifySecp256k1(new Uint8Array(33).fill(2), new Uint8Array(1), new Uint8Array(64));
      const loaded = Object.keys(createRequire(import.meta.url).cache);
      console.log(JSON.stringify(loaded.filter((file) => /node_modules[\\/](elliptic|secp256k1)[\\/]/.test(file))));
    `;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    const files = JSON.parse(run.stdout) as string[];
    assert.ok(
      files.some((file) => file.endsWith(".node")),
      `the addon is loaded: ${run.stdout}`,
    );
    assert.deepEqual(
      files.filter((file) => !file.endsWith(".node")),
      [],
      "nothing but the addon of the secp256k1 package, and nothing of elliptic",
    );
  });

  it(`${SECP256K1_ENV}=openssl keeps verification on OpenSSL, with the same answers`, () => {
    const script = `
      import { nativeSecp256k1Problem } from ${JSON.stringify(new URL("./native-secp256k1.ts", import.meta.url).href)};
      console.log(nativeSecp256k1Problem());
    `;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      env: { ...process.env, [SECP256K1_ENV]: "openssl" },
      encoding: "utf8",
    });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), `${SECP256K1_ENV}=openssl`);
  });
});
