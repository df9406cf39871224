// Byte compatibility of our generated schemas with upstream (via cosmjs-types), plus binary and
// JSON round trips of every generated message. Generic: it walks whatever `npm run generate` produced
// under src/gen/chain and src/gen/tendermint, so new schemas are covered without editing this file.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import {
  create,
  createFileRegistry,
  createRegistry,
  type DescMessage,
  equals,
  fromBinary,
  fromJson,
  isFieldSet,
  toBinary,
  toJson,
} from "@bufbuild/protobuf";
import { protoCamelCase } from "@bufbuild/protobuf/reflect";
import {
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FileDescriptorProtoSchema,
} from "@bufbuild/protobuf/wkt";
import { containsLegacyDec, fromWireBinary, legacyDecFields, toWireBinary } from "../../src/app/wire-decimals.ts";
import { cosmosAnyTypeUrls } from "./any-type-url.ts";
import {
  type CosmjsCodec,
  codecIn,
  cosmjsExportName,
  cosmjsModuleFor,
  enumValuesIn,
  loadCosmjsModule,
} from "./cosmjs-codec.ts";
import { compareMessage } from "./cosmjs-compare.ts";
import { enumsOf, type GeneratedMessage, loadGeneratedFiles, messagesOf } from "./generated-files.ts";
import { allowedExtraCosmjsFields, allowedMissingInCosmjs } from "./known-differences.ts";
import { sampleMessage, sampleVariantCount } from "./sample-message.ts";
import { checkAgainstCosmjs } from "./wire-check.ts";

const genRoot = fileURLToPath(new URL("../../src/gen", import.meta.url));
const files = await loadGeneratedFiles(genRoot, ["chain", "tendermint"]);
const generatedPaths = new Set(files.map((f) => f.relPath));
const messages = messagesOf(files);
const registry = createRegistry(...files.map((f) => f.file));

interface ComparedMessage extends GeneratedMessage {
  readonly codec: CosmjsCodec;
}

// Sort every generated message into: has a cosmjs-types codec; lives in a file cosmjs-types also
// has but is missing from it (a likely misspelt or invented message); or has no counterpart file.
const compared: ComparedMessage[] = [];
const missingInCosmjs: string[] = [];
const withoutCounterpartFile = new Set<string>();
for (const entry of messages) {
  const specifier = cosmjsModuleFor(entry.relPath);
  const module = specifier === undefined ? undefined : loadCosmjsModule(specifier);
  if (module === undefined) {
    withoutCounterpartFile.add(entry.relPath);
    continue;
  }
  const codec = codecIn(module, cosmjsExportName(entry.desc));
  if (codec === undefined) missingInCosmjs.push(entry.desc.typeName);
  else compared.push({ ...entry, codec });
}

// The messages the foundation issue names; B-owned ones are tolerated as pending while their
// generated file does not exist yet, but are compared like the rest once it does.
const required: readonly { typeName: string; pendingUntilFile?: string }[] = [
  { typeName: "chain.upgrade.v1beta1.Plan" },
  { typeName: "chain.upgrade.v1beta1.MsgSoftwareUpgrade" },
  { typeName: "chain.upgrade.v1beta1.MsgCancelUpgrade" },
  ...["CurrentPlan", "AppliedPlan", "UpgradedConsensusState", "ModuleVersions", "Authority"].flatMap((q) => [
    { typeName: `chain.upgrade.v1beta1.Query${q}Request` },
    { typeName: `chain.upgrade.v1beta1.Query${q}Response` },
  ]),
  { typeName: "chain.base.v1beta1.Coin" },
  { typeName: "chain.bank.v1beta1.MsgSend" },
  { typeName: "chain.tx.v1beta1.TxRaw" },
  { typeName: "chain.tx.v1beta1.TxBody" },
  { typeName: "chain.tx.v1beta1.AuthInfo" },
  { typeName: "chain.tx.v1beta1.SignDoc" },
  { typeName: "chain.auth.v1beta1.BaseAccount" },
  { typeName: "chain.gov.v1.MsgSubmitProposal", pendingUntilFile: "chain/gov/v1/tx" },
  { typeName: "chain.gov.v1.MsgVote", pendingUntilFile: "chain/gov/v1/tx" },
  { typeName: "chain.gov.v1.MsgDeposit", pendingUntilFile: "chain/gov/v1/tx" },
  { typeName: "chain.gov.v1.Proposal", pendingUntilFile: "chain/gov/v1/gov" },
  { typeName: "tendermint.types.Header", pendingUntilFile: "tendermint/types/types" },
  { typeName: "tendermint.types.BlockID", pendingUntilFile: "tendermint/types/types" },
];

describe("generated messages round-trip", () => {
  for (const { desc } of messages) {
    test(desc.typeName, () => {
      for (let variant = 0; variant < sampleVariantCount(desc); variant++) {
        const message = sampleMessage(desc, { variant });
        // The sample must really fill every field, or the comparisons below prove little.
        for (const field of desc.fields) {
          if (field.oneof !== undefined) continue;
          assert.ok(isFieldSet(message, field), `sample of ${desc.typeName} leaves ${field.name} unset`);
        }
        const bytes = toBinary(desc, message);
        const fromBytes = fromBinary(desc, bytes);
        assert.ok(equals(desc, message, fromBytes), `binary round trip of ${desc.typeName} changed the message`);
        assert.deepEqual(toBinary(desc, fromBytes), bytes, `re-encoding ${desc.typeName} changed its bytes`);
        const json = JSON.parse(JSON.stringify(toJson(desc, message, { registry })));
        const fromText = cosmosAnyTypeUrls(desc, fromJson(desc, json, { registry }), registry);
        assert.ok(equals(desc, message, fromText), `JSON round trip of ${desc.typeName} changed the message`);
      }
    });
  }
});

describe("byte compatibility with cosmjs-types", () => {
  for (const { desc, codec } of compared) {
    test(desc.typeName, () => {
      const allowed = allowedExtraCosmjsFields.get(desc.typeName)?.fields ?? [];
      for (let variant = 0; variant < sampleVariantCount(desc); variant++) {
        const result = checkAgainstCosmjs(desc, codec, variant);
        assert.deepEqual(result.problems, [], `variant ${variant} of ${desc.typeName}`);
        const unexpected = result.extraCosmjsFields.filter((name) => !allowed.includes(name));
        assert.deepEqual(unexpected, [], `cosmjs-types has fields our ${desc.typeName} lacks`);
      }
    });
  }
});

describe("enums match cosmjs-types", () => {
  for (const { relPath, desc } of enumsOf(files)) {
    const specifier = cosmjsModuleFor(relPath);
    const module = specifier === undefined ? undefined : loadCosmjsModule(specifier);
    if (module === undefined) continue;
    test(desc.typeName, () => {
      const theirs = enumValuesIn(module, cosmjsExportName(desc));
      assert.ok(theirs, `cosmjs-types ${specifier} exports no enum ${cosmjsExportName(desc)}`);
      const ours = new Map(desc.values.map((v) => [v.name, v.number]));
      assert.deepEqual(ours, theirs);
    });
  }
});

test("every message in a file that cosmjs-types also has exists in cosmjs-types", () => {
  const unexplained = missingInCosmjs.filter((name) => !allowedMissingInCosmjs.has(name));
  assert.deepEqual(unexplained, [], "messages with no cosmjs-types counterpart (misspelt, or not upstream?)");
});

test("the allow-lists hold only differences that really exist", () => {
  for (const [typeName, allowance] of allowedExtraCosmjsFields) {
    const entry = compared.find((m) => m.desc.typeName === typeName);
    assert.ok(entry, `allow-listed ${typeName} is not among the compared messages`);
    const result = checkAgainstCosmjs(entry.desc, entry.codec, 0);
    assert.deepEqual(result.extraCosmjsFields, [...allowance.fields].sort(), `allow-list entry for ${typeName}`);
  }
  for (const typeName of allowedMissingInCosmjs.keys()) {
    assert.ok(missingInCosmjs.includes(typeName), `allow-listed missing message ${typeName} is not missing`);
  }
});

test("coverage: the messages the foundation names are byte-compared", (t) => {
  const comparedNames = new Set(compared.map((m) => m.desc.typeName));
  const samples = compared.reduce((n, m) => n + sampleVariantCount(m.desc), 0);
  t.diagnostic(`${compared.length} of ${messages.length} generated messages byte-compared with cosmjs-types`);
  t.diagnostic(`${samples} samples in total (one per oneof case)`);
  t.diagnostic(`files without a cosmjs-types counterpart: ${[...withoutCounterpartFile].join(", ") || "none"}`);
  const pending: string[] = [];
  const absent: string[] = [];
  for (const { typeName, pendingUntilFile } of required) {
    if (comparedNames.has(typeName)) continue;
    if (pendingUntilFile !== undefined && !generatedPaths.has(pendingUntilFile)) pending.push(typeName);
    else absent.push(typeName);
  }
  if (pending.length > 0) t.diagnostic(`pending (file not generated yet): ${pending.join(", ")}`);
  assert.deepEqual(absent, [], "required messages that were not byte-compared");
});

// The harness must be able to fail: feed it deliberately wrong schemas for MsgSend.
describe("the harness catches schema mistakes", () => {
  const bankTx = loadCosmjsModule("cosmjs-types/cosmos/bank/v1beta1/tx");
  const msgSend = bankTx === undefined ? undefined : codecIn(bankTx, "MsgSend");
  assert.ok(msgSend, "cosmjs-types MsgSend is needed for the self-test");

  function brokenMsgSend(fields: { name: string; number: number; type: FieldDescriptorProto_Type }[]): DescMessage {
    // jsonName is filled in as protoc would, so the descriptor looks like a generated one.
    const proto = create(FileDescriptorProtoSchema, {
      name: "selftest/broken.proto",
      package: "chain.bank.v1beta1",
      syntax: "proto3",
      messageType: [
        {
          name: "MsgSend",
          field: fields.map((f) => ({
            ...f,
            jsonName: protoCamelCase(f.name),
            label: FieldDescriptorProto_Label.OPTIONAL,
          })),
        },
      ],
    });
    const desc = createFileRegistry(proto, () => undefined).getMessage("chain.bank.v1beta1.MsgSend");
    assert.ok(desc);
    return desc;
  }
  const { STRING, UINT64 } = FieldDescriptorProto_Type;

  test("two fields of the same type with swapped numbers", () => {
    const desc = brokenMsgSend([
      { name: "from_address", number: 2, type: STRING },
      { name: "to_address", number: 1, type: STRING },
    ]);
    const { problems } = checkAgainstCosmjs(desc, msgSend, 0);
    assert.ok(
      problems.some((p) => p.includes(".fromAddress: ours")),
      problems.join("\n"),
    );
  });

  test("a field upstream does not have", () => {
    const desc = brokenMsgSend([
      { name: "from_address", number: 1, type: STRING },
      { name: "memo", number: 4, type: STRING },
    ]);
    const { problems } = checkAgainstCosmjs(desc, msgSend, 0);
    assert.ok(
      problems.some((p) => p.startsWith("bytes differ")),
      problems.join("\n"),
    );
    assert.ok(
      problems.some((p) => p.includes(".memo: cosmjs-types has no field")),
      problems.join("\n"),
    );
  });

  test("a field with the wrong wire type", () => {
    const desc = brokenMsgSend([{ name: "from_address", number: 1, type: UINT64 }]);
    const { problems } = checkAgainstCosmjs(desc, msgSend, 0);
    assert.notDeepEqual(problems, []);
  });

  test("a field upstream has and we lack is reported", () => {
    const desc = brokenMsgSend([{ name: "from_address", number: 1, type: STRING }]);
    const result = checkAgainstCosmjs(desc, msgSend, 0);
    assert.deepEqual(result.extraCosmjsFields, ["amount", "toAddress"]);
  });
});

// Upstream v0.50's gogoproto customtype LegacyDec fields among the messages we carry (x/staking and DecCoin).
// Int customtypes need nothing: their binary form is the integer text, the same as our strings.
const UPSTREAM_LEGACY_DEC_FIELDS = [
  "chain.base.v1beta1.DecCoin.amount",
  "chain.staking.v1beta1.CommissionRates.max_change_rate",
  "chain.staking.v1beta1.CommissionRates.max_rate",
  "chain.staking.v1beta1.CommissionRates.rate",
  "chain.staking.v1beta1.Delegation.shares",
  "chain.staking.v1beta1.MsgEditValidator.commission_rate",
  "chain.staking.v1beta1.Params.min_commission_rate",
  "chain.staking.v1beta1.RedelegationEntry.shares_dst",
  "chain.staking.v1beta1.Validator.delegator_shares",
];

describe("LegacyDec fields travel in upstream's binary form", () => {
  const marked = messages.flatMap(({ desc }) => legacyDecFields(desc).map((f) => `${desc.typeName}.${f.name}`));

  test("exactly upstream's LegacyDec fields carry the legacy_dec option", () => {
    assert.deepEqual([...marked].sort(), UPSTREAM_LEGACY_DEC_FIELDS);
  });

  test("every message holding one is compared with cosmjs-types, which reads the scaled integer", (t) => {
    const holders = compared.filter(({ desc }) => containsLegacyDec(desc));
    t.diagnostic(`${holders.length} compared messages hold LegacyDec fields`);
    for (const name of UPSTREAM_LEGACY_DEC_FIELDS) {
      const owner = name.slice(0, name.lastIndexOf("."));
      assert.ok(
        compared.some((m) => m.desc.typeName === owner),
        `${owner} is not byte-compared with cosmjs-types`,
      );
    }
    assert.ok(holders.length >= 10, `only ${holders.length} holders compared`);
    for (const { desc, codec } of holders) assert.deepEqual(checkAgainstCosmjs(desc, codec, 0).problems, []);
  });

  test("binary round trip through the wire form keeps the decimal text", () => {
    for (const { desc } of messages.filter((m) => containsLegacyDec(m.desc))) {
      const message = sampleMessage(desc, { variant: 0 });
      assert.ok(equals(desc, message, fromWireBinary(desc, toWireBinary(desc, message))), desc.typeName);
    }
  });

  test("a decimal written as text in binary (the old form) is refused with a clear error", () => {
    const rates = registry.getMessage("chain.staking.v1beta1.CommissionRates");
    assert.ok(rates);
    const old = toBinary(rates, create(rates, { rate: "0.100000000000000000" }));
    assert.throws(
      () => fromWireBinary(rates, old),
      /CommissionRates\.rate in binary: expected a LegacyDec as an integer scaled by 10\^18/,
    );
  });

  test("the harness notices a LegacyDec written as text", () => {
    const staking = loadCosmjsModule("cosmjs-types/cosmos/staking/v1beta1/staking");
    const codec = staking === undefined ? undefined : codecIn(staking, "CommissionRates");
    const rates = registry.getMessage("chain.staking.v1beta1.CommissionRates");
    assert.ok(codec && rates);
    const sample = sampleMessage(rates, { variant: 0 });
    const decoded = codec.decode(toBinary(rates, sample)); // text on the wire: what the old codec did
    const problems: string[] = [];
    compareMessage(rates, sample, decoded, rates.typeName, problems);
    assert.equal(problems.length, 3, problems.join("\n"));
  });
});
