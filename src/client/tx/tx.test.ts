import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { create, createRegistry, fromBinary } from "@bufbuild/protobuf";
import { DirectSecp256k1HdWallet, makeSignBytes, makeSignDoc } from "@cosmjs/proto-signing";
import { SigningStargateClient } from "@cosmjs/stargate";
import { TxRaw as CosmjsTxRaw } from "cosmjs-types/cosmos/tx/v1beta1/tx";
import { fromHex, toHex } from "../../bytes/hex.ts";
import { accAddressFromPubKey } from "../../crypto/address.ts";
import { addressToBech32 } from "../../crypto/bech32.ts";
import { fromBase64 } from "../../crypto/hash.ts";
import { COSMOS_SECP256K1_PUBKEY_TYPE_URL } from "../../crypto/pubkey.ts";
import { privateKeyFromMnemonic } from "../../crypto/secp256k1.ts";
import { file_chain_bank_v1beta1_tx, MsgSendSchema } from "../../gen/chain/bank/v1beta1/tx_pb.js";
import { file_chain_crypto_secp256k1_keys } from "../../gen/chain/crypto/secp256k1/keys_pb.js";
import { SignMode } from "../../gen/chain/tx/signing/v1beta1/signing_pb.js";
import { file_chain_tx_v1beta1_tx } from "../../gen/chain/tx/v1beta1/tx_pb.js";
import { openKeyring } from "../keyring/keyring.ts";
import {
  makeAuthInfoBytes,
  makeSignDocBytes,
  makeSimulationTxBytes,
  makeTxBodyBytes,
  makeTxRawBytes,
  packAny,
  privateKeySigner,
  pubKeyFromAny,
  rawAny,
  secp256k1PubKeyAny,
  signBytesOf,
  signerPubKeys,
  signTx,
  TxClientError,
  txHashHex,
  txToJson,
  unpackTx,
  verifyDirectSignature,
} from "./index.ts";

const FAUCET_MNEMONIC =
  "economy stock theory fatal elder harbor betray wasp final emotion task crumble siren bottom lizard educate guess current outdoor pair theory focus wife stone";

// CosmJS proto-signing test vectors (SIGN_MODE_DIRECT, simd-testing, account 1, sequences 0..2): a MsgSend of
// 1234567ucosm from the faucet to cosmos1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5lzv7xu, fee 2000ucosm, gas 200000.
const VECTOR_BODY =
  "0a90010a1c2f636f736d6f732e62616e6b2e763162657461312e4d736753656e6412700a2d636f736d6f7331706b707472653766646b6c366766727a6c65736a6a766878686c63337234676d6d6b38727336122d636f736d6f7331717970717870713971637273737a673270767871367273307a716733797963356c7a763778751a100a0575636f736d120731323334353637";
const VECTORS = [
  {
    sequence: 0n,
    authInfo:
      "0a4e0a460a1f2f636f736d6f732e63727970746f2e736563703235366b312e5075624b657912230a21034f04181eeba35391b858633a765c4a0c189697b40d216354d50890d350c7029012040a02080112130a0d0a0575636f736d12043230303010c09a0c",
    signature:
      "c9dd20e07464d3a688ff4b710b1fbc027e495e797cfa0b4804da2ed117959227772de059808f765aa29b8f92edf30f4c2c5a438e30d3fe6897daa7141e3ce6f9",
  },
  {
    sequence: 1n,
    authInfo:
      "0a500a460a1f2f636f736d6f732e63727970746f2e736563703235366b312e5075624b657912230a21034f04181eeba35391b858633a765c4a0c189697b40d216354d50890d350c7029012040a020801180112130a0d0a0575636f736d12043230303010c09a0c",
    signature:
      "525adc7e61565a509c60497b798c549fbf217bb5cd31b24cc9b419d098cc95330c99ecc4bc72448f85c365a4e3f91299a3d40412fb3751bab82f1940a83a0a4c",
  },
  {
    sequence: 2n,
    authInfo:
      "0a500a460a1f2f636f736d6f732e63727970746f2e736563703235366b312e5075624b657912230a21034f04181eeba35391b858633a765c4a0c189697b40d216354d50890d350c7029012040a020801180212130a0d0a0575636f736d12043230303010c09a0c",
    signature:
      "f3f2ca73806f2abbf6e0fe85f9b8af66f0e9f7f79051fdb8abe5bb8633b17da132e82d577b9d5f7a6dae57a144efc9ccc6eef15167b44b3b22a57240109762af",
  },
];
const VECTOR0_TX_HASH = "61C87B6853590FFE339D8423E439CD9E4E742424357FFEF4108280E1443DE245";

const signer = privateKeySigner(privateKeyFromMnemonic(FAUCET_MNEMONIC));
const faucet = addressToBech32(accAddressFromPubKey(signer.pubKey));
const recipient = addressToBech32(new Uint8Array(20).fill(7));
const fee = { amount: [{ denom: "stake", amount: "200" }], gasLimit: 200000n };

function chainSend(amount = "10") {
  return packAny(
    MsgSendSchema,
    create(MsgSendSchema, { fromAddress: faucet, toAddress: recipient, amount: [{ denom: "stake", amount }] }),
  );
}

describe("golden vectors (CosmJS proto-signing)", () => {
  it("reproduces body, auth info, sign bytes, signature, tx bytes and hash byte for byte", async () => {
    // The vector's message is a cosmos.bank MsgSend; ours has the same field numbers, so our codec
    // produces the same value bytes under the cosmos type URL.
    const message = rawAny(
      "/cosmos.bank.v1beta1.MsgSend",
      packAny(
        MsgSendSchema,
        create(MsgSendSchema, {
          fromAddress: "cosmos1pkptre7fdkl6gfrzlesjjvhxhlc3r4gmmk8rs6",
          toAddress: "cosmos1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5lzv7xu",
          amount: [{ denom: "ucosm", amount: "1234567" }],
        }),
      ).value,
    );
    for (const [i, vector] of VECTORS.entries()) {
      const signed = await signTx({
        messages: [message],
        fee: { amount: [{ denom: "ucosm", amount: 2000n }], gasLimit: 200000n },
        chainId: "simd-testing",
        accountNumber: 1n,
        sequence: vector.sequence,
        signer,
        pubKeyTypeUrl: COSMOS_SECP256K1_PUBKEY_TYPE_URL,
      });
      assert.equal(toHex(signed.bodyBytes), VECTOR_BODY, `body ${i}`);
      assert.equal(toHex(signed.authInfoBytes), vector.authInfo, `auth info ${i}`);
      const expectedSignBytes = makeSignBytes(
        makeSignDoc(fromHex(VECTOR_BODY), fromHex(vector.authInfo), "simd-testing", 1n),
      );
      assert.equal(toHex(signed.signBytes), toHex(expectedSignBytes), `sign bytes ${i}`);
      assert.equal(toHex(signed.signature), vector.signature, `signature ${i}`);
      // The vector's signed tx, encoded by CosmJS's own TxRaw codec (for vector 0 the hash pins the bytes too).
      const expectedTx = CosmjsTxRaw.encode({
        bodyBytes: fromHex(VECTOR_BODY),
        authInfoBytes: fromHex(vector.authInfo),
        signatures: [fromHex(vector.signature)],
      }).finish();
      assert.equal(toHex(signed.txBytes), toHex(expectedTx), `tx bytes ${i}`);
      if (i === 0) assert.equal(signed.txHash, VECTOR0_TX_HASH);
    }
  });
});

describe("SIGN_MODE_DIRECT against CosmJS with chain types", () => {
  it("produces CosmJS's sign bytes and signature for the same SignDoc", async () => {
    const wallet = await DirectSecp256k1HdWallet.fromMnemonic(FAUCET_MNEMONIC, { prefix: "chain" });
    const [account] = await wallet.getAccounts();
    assert.equal(account.address, faucet);
    const signed = await signTx({
      messages: [chainSend()],
      memo: "hello",
      timeoutHeight: 99n,
      fee,
      chainId: "chaind-test",
      accountNumber: 7n,
      sequence: 3n,
      signer,
    });
    const cosmjsDoc = makeSignDoc(signed.bodyBytes, signed.authInfoBytes, "chaind-test", 7n);
    assert.deepEqual(signed.signBytes, makeSignBytes(cosmjsDoc));
    const cosmjs = await wallet.signDirect(account.address, cosmjsDoc);
    assert.equal(toHex(signed.signature), toHex(fromBase64(cosmjs.signature.signature)));
    assert.equal(cosmjs.signature.pub_key.value, Buffer.from(signer.pubKey).toString("base64"));

    const decoded = unpackTx(signed.txBytes);
    assert.equal(decoded.body.memo, "hello");
    assert.equal(decoded.body.timeoutHeight, 99n);
    assert.equal(decoded.authInfo.signerInfos[0].sequence, 3n);
    assert.equal(decoded.authInfo.signerInfos[0].publicKey?.typeUrl, "/chain.crypto.secp256k1.PubKey");
    assert.ok(verifyDirectSignature(decoded, { chainId: "chaind-test", accountNumber: 7n }));
    assert.equal(verifyDirectSignature(decoded, { chainId: "chaind-test", accountNumber: 8n }), false);
    assert.equal(verifyDirectSignature(decoded, { chainId: "other", accountNumber: 7n }), false);
    assert.equal(txHashHex(signed.txBytes), signed.txHash);
    assert.match(signed.txHash, /^[0-9A-F]{64}$/);
  });

  it("reads and verifies a tx signed by a stock CosmJS client (/cosmos.* pubkey)", async () => {
    const wallet = await DirectSecp256k1HdWallet.fromMnemonic(FAUCET_MNEMONIC, { prefix: "chain" });
    const client = await SigningStargateClient.offline(wallet);
    const txRaw = await client.sign(
      faucet,
      [
        {
          typeUrl: "/cosmos.bank.v1beta1.MsgSend",
          value: { fromAddress: faucet, toAddress: recipient, amount: [{ denom: "stake", amount: "10" }] },
        },
      ],
      { amount: [{ denom: "stake", amount: "200" }], gas: "200000" },
      "",
      { accountNumber: 4n, sequence: 0, chainId: "chaind-test" },
    );
    const bytes = CosmjsTxRaw.encode(txRaw).finish();
    const decoded = unpackTx(bytes);
    assert.equal(decoded.authInfo.signerInfos[0].publicKey?.typeUrl, "/cosmos.crypto.secp256k1.PubKey");
    const [pubKey] = signerPubKeys(decoded.authInfo);
    assert.deepEqual(pubKey, { algorithm: "secp256k1", key: signer.pubKey });
    assert.ok(verifyDirectSignature(decoded, { chainId: "chaind-test", accountNumber: 4n }));
    // The same message re-typed as ours decodes with our MsgSend codec.
    const send = fromBinary(MsgSendSchema, decoded.body.messages[0].value);
    assert.equal(send.toAddress, recipient);
    // Our builder, given CosmJS's message bytes and the cosmos pubkey URL, signs exactly what CosmJS signed.
    const ours = await signTx({
      messages: decoded.body.messages,
      fee,
      chainId: "chaind-test",
      accountNumber: 4n,
      sequence: 0n,
      signer,
      pubKeyTypeUrl: COSMOS_SECP256K1_PUBKEY_TYPE_URL,
    });
    assert.deepEqual(ours.txBytes, new Uint8Array(bytes));
  });
});

describe("keyring keys as signers", () => {
  it("signs the same bytes as the raw key", async () => {
    const home = await mkdtemp(join(tmpdir(), "chaind-tx-"));
    try {
      const keyring = openKeyring({ home, backend: "test" });
      await keyring.recover("faucet", FAUCET_MNEMONIC);
      const parameters = { messages: [chainSend()], fee, chainId: "c", accountNumber: 2n, sequence: 1n };
      const viaKeyring = await signTx({ ...parameters, signer: await keyring.signer("faucet") });
      const viaKey = await signTx({ ...parameters, signer });
      assert.deepEqual(viaKeyring.txBytes, viaKey.txBytes);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});

describe("building and decoding", () => {
  it("leaves the pubkey out on request and builds multi-signer auth info in order", () => {
    const authInfo = unpackTx(
      makeTxRawBytes({
        bodyBytes: makeTxBodyBytes({ messages: [chainSend()] }),
        authInfoBytes: makeAuthInfoBytes({
          signers: [{ sequence: 1n }, { pubKey: signer.pubKey, sequence: 5n }],
          fee: { ...fee, payer: faucet },
        }),
        signatures: [new Uint8Array(64), new Uint8Array(64)],
      }),
    ).authInfo;
    assert.equal(authInfo.signerInfos[0].publicKey, undefined);
    assert.equal(authInfo.signerInfos[1].sequence, 5n);
    assert.equal(authInfo.fee?.payer, faucet);
    assert.deepEqual(
      signerPubKeys(authInfo).map((k) => k?.algorithm),
      [undefined, "secp256k1"],
    );
  });

  it("builds the simulation tx CosmJS sends: mode UNSPECIFIED, empty fee, one empty signature", () => {
    const decoded = unpackTx(
      makeSimulationTxBytes({ messages: [chainSend()], signers: [{ pubKey: signer.pubKey, sequence: 2n }] }),
    );
    const mode = decoded.authInfo.signerInfos[0].modeInfo?.sum;
    assert.equal(mode?.case, "single");
    assert.equal(mode?.value.mode, SignMode.UNSPECIFIED);
    assert.equal(decoded.authInfo.fee?.gasLimit, 0n);
    assert.deepEqual(decoded.raw.signatures, [new Uint8Array(0)]);
  });

  it("prints upstream-shaped tx JSON", async () => {
    const signed = await signTx({
      messages: [chainSend()],
      fee,
      chainId: "c",
      accountNumber: 0n,
      sequence: 0n,
      signer,
    });
    const registry = createRegistry(
      file_chain_tx_v1beta1_tx,
      file_chain_bank_v1beta1_tx,
      file_chain_crypto_secp256k1_keys,
    );
    const json = txToJson(unpackTx(signed.txBytes), registry) as {
      body: { messages: { "@type": string; from_address: string }[]; memo: string; timeout_height: string };
      auth_info: {
        signer_infos: { public_key: { "@type": string }; mode_info: unknown; sequence: string }[];
        fee: { gas_limit: string };
      };
      signatures: string[];
    };
    assert.equal(json.body.messages[0]["@type"], "/chain.bank.v1beta1.MsgSend");
    assert.equal(json.body.messages[0].from_address, faucet);
    assert.equal(json.body.memo, "");
    assert.equal(json.body.timeout_height, "0");
    assert.equal(json.auth_info.signer_infos[0].public_key["@type"], "/chain.crypto.secp256k1.PubKey");
    assert.deepEqual(json.auth_info.signer_infos[0].mode_info, { single: { mode: "SIGN_MODE_DIRECT" } });
    assert.equal(json.auth_info.signer_infos[0].sequence, "0");
    assert.equal(json.auth_info.fee.gas_limit, "200000");
    assert.equal(json.signatures[0], Buffer.from(signed.signature).toString("base64"));
    assert.throws(
      () => txToJson(unpackTx(signed.txBytes), createRegistry()),
      (error: unknown) => {
        assert.ok(error instanceof TxClientError);
        assert.match(error.message, /cannot print tx as JSON/);
        return true;
      },
    );
  });

  it("rejects malformed bytes, unknown pubkey types and bad fee amounts clearly", () => {
    assert.throws(
      () => unpackTx(Uint8Array.of(0x0a, 0x05, 0x01)),
      (error: unknown) => {
        assert.ok(error instanceof TxClientError);
        assert.equal(error.code, "tx-decode");
        assert.match(error.message, /malformed tx bytes: cannot decode TxRaw/);
        return true;
      },
    );
    const badBody = makeTxRawBytes({
      bodyBytes: Uint8Array.of(0x0a, 0x09),
      authInfoBytes: new Uint8Array(0),
      signatures: [],
    });
    assert.throws(() => unpackTx(badBody), /cannot decode TxBody/);
    assert.throws(
      () => pubKeyFromAny(rawAny("/chain.crypto.multisig.LegacyAminoPubKey", new Uint8Array(0))),
      /unsupported public key type "\/chain\.crypto\.multisig\.LegacyAminoPubKey"/,
    );
    assert.throws(
      () => pubKeyFromAny(secp256k1PubKeyAny(signer.pubKey.subarray(1))),
      /expected a PubKey message holding 33 key bytes/,
    );
    assert.throws(
      () => makeAuthInfoBytes({ signers: [], fee: { amount: [{ denom: "stake", amount: "-1" }], gasLimit: 1n } }),
      /invalid fee amount "-1stake": expected a non-negative integer/,
    );
    // A signature index that does not exist, or a tx without a pubkey, does not verify.
    const unsigned = unpackTx(
      makeTxRawBytes({ bodyBytes: new Uint8Array(0), authInfoBytes: new Uint8Array(0), signatures: [] }),
    );
    assert.equal(verifyDirectSignature(unsigned, { chainId: "c", accountNumber: 0n }), false);
    assert.equal(
      toHex(signBytesOf(unsigned, "c", 0n)),
      toHex(
        makeSignDocBytes({
          bodyBytes: new Uint8Array(0),
          authInfoBytes: new Uint8Array(0),
          chainId: "c",
          accountNumber: 0n,
        }),
      ),
    );
  });
});
