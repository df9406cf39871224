// Hash vectors. Each upstream vector names the CometBFT test it comes from; "computed" vectors come from the
// rules of CometBFT v0.38's types/block.go and crypto/merkle and pin the encodings against accidental change.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { sha256 } from "../../bytes/sha256.ts";
import { innerHash, leafHash, merkleProof, merkleRoot, rootFromProof, splitPoint } from "../../crypto/merkle.ts";
import { BlockIdFlag, defaultConsensusParams, type Header } from "../types.ts";
import { encodeBlock, encodeCommitSig, encodeDeterministicTxResult, SignedMsgType, voteSignBytes } from "./encode.ts";
import {
  consensusParamsHash,
  dataHash,
  ed25519Address,
  headerHash,
  lastResultsHash,
  partSetHeaderOf,
  validatorSetHash,
} from "./hashes.ts";
import { ProtoWriter } from "./proto-writer.ts";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const unhex = (s: string) => new Uint8Array(Buffer.from(s, "hex"));
const utf8 = (s: string) => new TextEncoder().encode(s);
const ZERO_TIME = { seconds: -62135596800n, nanos: 0 };

describe("merkle tree", () => {
  // crypto/merkle/tree_test.go TestHashFromByteSlices
  const cases: [string, Uint8Array[], string][] = [
    ["empty", [], "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
    ["single", [Uint8Array.of(1, 2, 3)], "054edec1d0211f624fed0cbca9d4f9400b0e491c43742af2c5b0abebf0c990d8"],
    ["single blank", [new Uint8Array(0)], "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"],
    [
      "two",
      [Uint8Array.of(1, 2, 3), Uint8Array.of(4, 5, 6)],
      "82e6cfce00453804379b53962939eaa7906b39904be0813fcadd31b100773c4b",
    ],
    [
      "many",
      [Uint8Array.of(1, 2), Uint8Array.of(3, 4), Uint8Array.of(5, 6), Uint8Array.of(7, 8), Uint8Array.of(9, 10)],
      "f326493eceab4f2d9ffbc78c59432a0a005d6ea98392045c74df5d14a113be18",
    ],
  ];
  for (const [name, items, want] of cases) {
    it(`TestHashFromByteSlices/${name}`, () => assert.equal(hex(merkleRoot(items)), want));
  }

  it("RFC 6962 leaf and node vectors (crypto/merkle/rfc6962_test.go TestRFC6962Hasher)", () => {
    assert.equal(hex(leafHash(utf8("L123456"))), "395aa064aa4c29f7010acfe3f25db9485bbd4b91897b6ad7ad547639252b4d56");
    assert.equal(hex(leafHash(new Uint8Array(0))), "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d");
    assert.equal(
      hex(innerHash(utf8("N123"), utf8("N456"))),
      "aa217fe888e47007fa15edab33c2b492a722cb106c64667fc2b044444de66bbb",
    );
  });

  it("split points (crypto/merkle/tree_test.go Test_getSplitPoint)", () => {
    const want: [number, number][] = [
      [2, 1],
      [3, 2],
      [4, 2],
      [5, 4],
      [10, 8],
      [20, 16],
      [100, 64],
      [255, 128],
      [256, 128],
      [257, 256],
    ];
    for (const [n, k] of want) assert.equal(splitPoint(n), k, `splitPoint(${n})`);
    assert.throws(() => splitPoint(1), /at least 2 items/);
  });

  it("every inclusion proof verifies against the root, and a tampered one does not", () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 8 }), { minLength: 1, maxLength: 40 }), fc.nat(), (items, i) => {
        const index = i % items.length;
        const proof = merkleProof(items, index);
        assert.deepEqual(rootFromProof(proof), merkleRoot(items));
        if (items.length > 1) {
          const bad = { ...proof, aunts: proof.aunts.map((a, j) => (j === 0 ? sha256(a) : a)) };
          assert.notDeepEqual(rootFromProof(bad), merkleRoot(items));
        }
      }),
    );
  });
});

describe("header hash", () => {
  // types/block_test.go TestHeaderHash "Generates expected hash"
  const header: Header = {
    version: { block: 1n, app: 2n },
    chainId: "chainId",
    height: 3n,
    time: { seconds: BigInt(Date.UTC(2019, 9, 13, 16, 14, 44) / 1000), nanos: 0 },
    lastBlockId: { hash: new Uint8Array(32), partSetHeader: { total: 6, hash: new Uint8Array(32) } },
    lastCommitHash: sha256(utf8("last_commit_hash")),
    dataHash: sha256(utf8("data_hash")),
    validatorsHash: sha256(utf8("validators_hash")),
    nextValidatorsHash: sha256(utf8("next_validators_hash")),
    consensusHash: sha256(utf8("consensus_hash")),
    appHash: sha256(utf8("app_hash")),
    lastResultsHash: sha256(utf8("last_results_hash")),
    evidenceHash: sha256(utf8("evidence_hash")),
    proposerAddress: sha256(utf8("proposer_address")).subarray(0, 20),
  };

  it("matches TestHeaderHash's expected F740121F…42A4", () => {
    assert.equal(
      hex(headerHash(header)).toUpperCase(),
      "F740121F553B5418C3EFBD343C2DBFE9E007BB67B0D020A0741374BAB65242A4",
    );
  });

  it("is empty when validators_hash is empty (TestHeaderHash 'nil ValidatorsHash yields nil')", () => {
    assert.equal(headerHash({ ...header, validatorsHash: new Uint8Array(0) }).length, 0);
  });

  it("changes when any field changes", () => {
    const base = hex(headerHash(header));
    assert.notEqual(hex(headerHash({ ...header, height: 4n })), base);
    assert.notEqual(hex(headerHash({ ...header, time: { ...header.time, nanos: 1 } })), base);
    assert.notEqual(hex(headerHash({ ...header, appHash: sha256(utf8("other")) })), base);
  });
});

describe("vote sign bytes (types/vote_test.go TestVoteSignBytesTestVectors)", () => {
  const nilId = { hash: new Uint8Array(0), partSetHeader: { total: 0, hash: new Uint8Array(0) } };
  it("case 0: the empty vote", () => {
    const got = voteSignBytes({ type: 0, height: 0n, round: 0n, blockId: nilId, timestamp: ZERO_TIME, chainId: "" });
    assert.equal(hex(got), "0d2a0b088092b8c398feffffff01");
  });
  it("case 1: precommit at height 1 round 1", () => {
    const got = voteSignBytes({
      type: SignedMsgType.precommit,
      height: 1n,
      round: 1n,
      blockId: nilId,
      timestamp: ZERO_TIME,
      chainId: "",
    });
    assert.equal(hex(got), "210802110100000000000000190100000000000000" + "2a0b088092b8c398feffffff01");
  });
  it("case 4: with a chain id", () => {
    const got = voteSignBytes({
      type: 0,
      height: 1n,
      round: 1n,
      blockId: nilId,
      timestamp: ZERO_TIME,
      chainId: "test_chain_id",
    });
    assert.equal(
      hex(got),
      "2e110100000000000000190100000000000000" + "2a0b088092b8c398feffffff01" + "320d" + hex(utf8("test_chain_id")),
    );
  });
});

describe("other hashes", () => {
  it("default consensus params hash is the well-known 048091BC…A22F", () => {
    assert.equal(
      hex(consensusParamsHash(defaultConsensusParams())).toUpperCase(),
      "048091BC7DDC283F77BFBF91D73C44DA58C3DF8A9CBC867405D8B7F3DAADA22F",
    );
  });

  it("data hash of no txs is the empty root; of ['abc'] the computed vector", () => {
    assert.equal(hex(dataHash([])), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    assert.equal(
      hex(dataHash([utf8("abc")])).toUpperCase(),
      "8A7DEAB2CC5EE003B6394337538A52B3198F1A6DDEB10C7DAF62FE1C9834B43B",
    );
  });

  it("last results hash covers code, data, gas_wanted, gas_used only", () => {
    const zero = { code: 0, data: new Uint8Array(0), gasWanted: 0n, gasUsed: 0n };
    assert.equal(
      hex(lastResultsHash([zero])).toUpperCase(),
      "6E340B9CFFB37A989CA544E6BB780A2C78901D3FB33738768511A30617AFA01D",
    );
    const r = { code: 5, data: unhex("0a01"), gasWanted: 200000n, gasUsed: 12345n };
    assert.equal(hex(encodeDeterministicTxResult(r)), "080512020a0128c09a0c30b960");
    // The hand-sized encoding against the general writer: large and negative int64, long data, big codes.
    for (const c of [
      { code: 4294967295, data: new Uint8Array(300).fill(7), gasWanted: -1n, gasUsed: 2n ** 63n - 1n },
      { code: 0, data: new Uint8Array(0), gasWanted: 2n ** 53n + 1n, gasUsed: 0n },
      { code: 128, data: Uint8Array.of(0), gasWanted: 0n, gasUsed: -(2n ** 63n) },
    ]) {
      const w = new ProtoWriter();
      w.varintIfSet(1, c.code);
      w.bytesIfSet(2, c.data);
      w.varintIfSet(5, c.gasWanted);
      w.varintIfSet(6, c.gasUsed);
      assert.equal(hex(encodeDeterministicTxResult(c)), hex(w.finish()));
    }
  });

  it("validator set hash of one ed25519 validator (computed example)", () => {
    const key = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
    assert.equal(
      hex(validatorSetHash([{ pubKey: { type: "ed25519", key }, votingPower: 10n }])).toUpperCase(),
      "48B98E5DFD08E8F5C1610566E298D2274D7BC0D651FFC9C79C43CA08DE339BF3",
    );
  });

  it("an absent CommitSig always writes its zero timestamp", () => {
    const sig = {
      blockIdFlag: BlockIdFlag.absent,
      validatorAddress: new Uint8Array(0),
      timestamp: ZERO_TIME,
      signature: new Uint8Array(0),
    };
    assert.equal(hex(encodeCommitSig(sig)), "08011a0b088092b8c398feffffff01");
  });

  it("the initial height's empty last commit encodes as 22 04 1a 02 12 00 inside a block", () => {
    const empty = new Uint8Array(0);
    const block = encodeBlock({
      header: {
        version: { block: 11n, app: 0n },
        chainId: "",
        height: 0n,
        time: { seconds: 0n, nanos: 0 },
        lastBlockId: { hash: empty, partSetHeader: { total: 0, hash: empty } },
        lastCommitHash: empty,
        dataHash: empty,
        validatorsHash: empty,
        nextValidatorsHash: empty,
        consensusHash: empty,
        appHash: empty,
        lastResultsHash: empty,
        evidenceHash: empty,
        proposerAddress: empty,
      },
      txs: [],
      evidence: [],
      lastCommit: {
        height: 0n,
        round: 0,
        blockId: { hash: empty, partSetHeader: { total: 0, hash: empty } },
        signatures: [],
      },
    });
    assert.ok(hex(block).endsWith("1200" + "1a00" + "220" + "41a021200"), hex(block));
  });

  it("part set: 70000 bytes of 0x07 make 2 parts (computed B3913BD9…D174)", () => {
    const psh = partSetHeaderOf(new Uint8Array(70000).fill(7));
    assert.equal(psh.total, 2);
    const h = hex(psh.hash).toUpperCase();
    assert.ok(h.startsWith("B3913BD9") && h.endsWith("D174"), h);
  });

  it("ed25519 address is the first 20 bytes of sha256(pubkey)", () => {
    const key = new Uint8Array(32).fill(9);
    assert.equal(hex(ed25519Address(key)), hex(sha256(key)).slice(0, 40));
  });
});
