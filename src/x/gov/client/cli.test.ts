import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { JsonValue } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { Command } from "commander";
import { buildTypeRegistry } from "../../../app/type-registry.ts";
import { CliError } from "../../../client/cli/errors.ts";
import { addressToBech32, moduleAddress } from "../../../crypto/index.ts";
import { file_chain_upgrade_v1beta1_tx, type MsgSoftwareUpgrade } from "../../../gen/chain/upgrade/v1beta1/tx_pb.js";
import type { TestKey } from "../../../testing/app.ts";
import { consensusKeyOf, createStakingTestChain, key, type StakingTestChain } from "../../../testing/staking.ts";
import { stakingQueryCommand, stakingTxCommand } from "../../staking/client/cli.ts";
import { govQueryCommand, govTxCommand, type ModuleCliClient, parseProposalJson, parseWeightedOptions } from "./cli.ts";

const val1 = key("cli-val-1");
const alice = key("cli-alice");
const carol = key("cli-carol");
const GOV = addressToBech32(moduleAddress("gov"));

interface Harness {
  chain: StakingTestChain;
  printed: JsonValue[];
  run(...args: string[]): Promise<void>;
}

// A ModuleCliClient over the in-process test chain: broadcasting signs with the --from test key and
// delivers the tx in a block; queries go through the app's query router.
async function harness(): Promise<Harness> {
  const chain = await createStakingTestChain({
    accounts: [
      { key: val1, stake: 100_000_000n },
      { key: alice, stake: 100_000_000n },
      { key: carol, stake: 100_000_000n },
    ],
    validators: [{ key: val1, selfDelegation: 10_000_000n }],
    govParams: { voting_period: "20s", expedited_voting_period: "5s" },
  });
  await chain.nextBlock();
  const keys: Record<string, TestKey> = { val1, alice, carol };
  const printed: JsonValue[] = [];
  const client: ModuleCliClient = {
    async broadcastMsgs(msgs, options) {
      const signer = keys[options.from as string];
      const { result } = await chain.deliver(signer, msgs);
      return { code: result.code, codespace: result.codespace, raw_log: result.log };
    },
    async query(path, request) {
      return chain.app.queryRouter.queryBinary(path, request, await chain.app.createQueryContext());
    },
    async fromAddress(options) {
      const signer = keys[options.from as string];
      if (signer === undefined) throw new Error(`no key ${String(options.from)}`);
      return signer.bech32;
    },
    print(value) {
      printed.push(value);
    },
    // The real client reads the keyring (src/client/cli/context.ts); here the test keys' names stand for them.
    async addressArgument(text, kind) {
      const named = keys[text];
      return named === undefined ? text : addressToBech32(named.address, kind ?? "acc");
    },
    typeRegistry: chain.app.typeRegistry,
  };
  const root = new Command("chaind").exitOverride().option("--from <key>");
  const tx = new Command("tx").addCommand(govTxCommand(() => client)).addCommand(stakingTxCommand(() => client));
  const query = new Command("query")
    .addCommand(govQueryCommand(() => client))
    .addCommand(stakingQueryCommand(() => client));
  root.addCommand(tx).addCommand(query);
  for (const command of [root, tx, query, ...tx.commands, ...query.commands]) command.exitOverride();
  return {
    chain,
    printed,
    run: async (...args) => {
      await root.parseAsync(["node", "chaind", ...args]);
    },
  };
}

describe("gov and staking CLI commands", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "chaind-gov-cli-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Writes a proposal file paying carol one stake from the gov account, with `fields` beside the message. */
  async function payCarolProposal(name: string, fields: Record<string, unknown>): Promise<string> {
    const file = join(dir, name);
    const messages = [
      {
        "@type": "/chain.bank.v1beta1.MsgSend",
        from_address: GOV,
        to_address: carol.bech32,
        amount: [{ denom: "stake", amount: "1" }],
      },
    ];
    await writeFile(file, JSON.stringify({ messages, ...fields }));
    return file;
  }

  test("submit-proposal from a file, vote, weighted-vote, deposit and the queries", async () => {
    const h = await harness();
    const file = await payCarolProposal("proposal.json", {
      metadata: "ipfs://CID",
      deposit: "10000000stake",
      title: "Pay carol",
      summary: "One stake to carol",
      expedited: false,
    });
    await h.run("--from", "alice", "tx", "gov", "submit-proposal", file);
    assert.deepEqual(h.printed.pop(), { code: 0, codespace: "", raw_log: "" });

    await h.run("--from", "val1", "tx", "gov", "weighted-vote", "1", "yes=0.75,abstain=0.25");
    assert.equal((h.printed.pop() as { code: number }).code, 0);
    await h.run("--from", "carol", "tx", "gov", "deposit", "1", "100000stake");
    assert.equal((h.printed.pop() as { code: number }).code, 0);

    await h.run("query", "gov", "proposal", "1");
    const shown = h.printed.pop() as { proposal: Record<string, unknown> };
    assert.equal(shown.proposal.status, "PROPOSAL_STATUS_VOTING_PERIOD");
    assert.equal(shown.proposal.title, "Pay carol");
    assert.deepEqual(shown.proposal.total_deposit, [{ denom: "stake", amount: "10100000" }]);
    assert.equal((shown.proposal.messages as { "@type": string }[])[0]["@type"], "/chain.bank.v1beta1.MsgSend");

    await h.run("query", "gov", "tally", "1");
    assert.deepEqual(h.printed.pop(), {
      tally: { yes_count: "7500000", abstain_count: "2500000", no_count: "0", no_with_veto_count: "0" },
    });
    await h.run("query", "gov", "proposals", "--status", "voting_period");
    assert.equal((h.printed.pop() as { proposals: unknown[] }).proposals.length, 1);
    await h.run("query", "gov", "proposals", "--status", "passed");
    assert.equal((h.printed.pop() as { proposals: unknown[] }).proposals.length, 0);
    // v0.50's AutoCLI flag name (docs: reference gov-tx-keys.md §4).
    await h.run("query", "gov", "proposals", "--proposal-status", "voting_period");
    assert.equal((h.printed.pop() as { proposals: unknown[] }).proposals.length, 1);
    await h.run("query", "gov", "proposals", "--proposal-status", "PROPOSAL_STATUS_PASSED");
    assert.equal((h.printed.pop() as { proposals: unknown[] }).proposals.length, 0);
    await h.run("query", "gov", "deposits", "1");
    assert.equal((h.printed.pop() as { deposits: unknown[] }).deposits.length, 2);
    await h.run("query", "gov", "params", "voting");
    assert.deepEqual((h.printed.pop() as { voting_params: unknown }).voting_params, { voting_period: "20s" });

    await h.run("--from", "val1", "tx", "gov", "vote", "1", "no_with_veto");
    assert.equal((h.printed.pop() as { code: number }).code, 0);
    await h.run("query", "gov", "vote", "1", val1.bech32);
    assert.deepEqual((h.printed.pop() as { vote: { options: unknown } }).vote.options, [
      { option: "VOTE_OPTION_NO_WITH_VETO", weight: "1.000000000000000000" },
    ]);
    // A key's name where an address goes, as upstream's AutoCLI reads it.
    await h.run("query", "gov", "vote", "1", "val1");
    assert.equal((h.printed.pop() as { vote: { voter: string } }).vote.voter, val1.bech32);
    await h.run("query", "gov", "deposit", "1", "alice");
    assert.equal((h.printed.pop() as { deposit: { depositor: string } }).deposit.depositor, alice.bech32);
    await h.run("query", "gov", "proposals", "--voter", "val1");
    assert.equal((h.printed.pop() as { proposals: unknown[] }).proposals.length, 1);
  });

  test("query output is the REST gateway's JSON: every field present, unset messages null (SPEC 2.1, 7)", async () => {
    const h = await harness();
    const file = await payCarolProposal("small-deposit.json", {
      deposit: "5000000stake",
      title: "Still in its deposit period",
      summary: "so it has no voting times",
    });
    await h.run("--from", "alice", "tx", "gov", "submit-proposal", file);
    assert.equal((h.printed.pop() as { code: number }).code, 0);
    await h.run("query", "gov", "proposal", "1");
    const shown = (h.printed.pop() as { proposal: Record<string, unknown> }).proposal;
    assert.equal(shown.status, "PROPOSAL_STATUS_DEPOSIT_PERIOD");
    assert.ok("voting_start_time" in shown, "an unset timestamp is printed as null, not left out");
    assert.equal(shown.voting_start_time, null);
    await h.run("query", "gov", "proposals");
    assert.deepEqual((h.printed.pop() as { pagination: unknown }).pagination, { next_key: null, total: "1" });
    await h.run("query", "staking", "validators");
    assert.deepEqual((h.printed.pop() as { pagination: unknown }).pagination, { next_key: null, total: "1" });
  });

  test("staking delegate and create-validator, then the staking queries", async () => {
    const h = await harness();
    const valoper = addressToBech32(val1.address, "val");
    await h.run("--from", "alice", "tx", "staking", "delegate", valoper, "2000000stake");
    assert.equal((h.printed.pop() as { code: number }).code, 0);

    const file = join(dir, "validator.json");
    await writeFile(
      file,
      JSON.stringify({
        pubkey: { "@type": "/chain.crypto.ed25519.PubKey", key: Buffer.from(consensusKeyOf(carol)).toString("base64") },
        amount: "3000000stake",
        moniker: "carol",
        "commission-rate": "0.1",
        "commission-max-rate": "0.2",
        "commission-max-change-rate": "0.01",
        "min-self-delegation": "1",
      }),
    );
    await h.run("--from", "carol", "tx", "staking", "create-validator", file);
    assert.deepEqual(h.printed.pop(), { code: 0, codespace: "", raw_log: "" });

    await h.run("query", "staking", "validators", "--status", "BOND_STATUS_BONDED");
    const validators = (h.printed.pop() as { validators: { description: { moniker: string }; tokens: string }[] })
      .validators;
    assert.deepEqual(validators.map((v) => [v.description.moniker, v.tokens]).sort(), [
      ["carol", "3000000"],
      ["validator", "12000000"],
    ]);
    await h.run("query", "staking", "delegation", alice.bech32, valoper);
    assert.deepEqual((h.printed.pop() as { delegation_response: { balance: unknown } }).delegation_response.balance, {
      denom: "stake",
      amount: "2000000",
    });
    // Key names for the delegator (account address) and the validator (its operator address).
    await h.run("query", "staking", "delegation", "alice", "val1");
    assert.equal(
      (h.printed.pop() as { delegation_response: { delegation: { validator_address: string } } }).delegation_response
        .delegation.validator_address,
      valoper,
    );
    await h.run("query", "staking", "validator", "carol");
    assert.equal((h.printed.pop() as { validator: { tokens: string } }).validator.tokens, "3000000");
    const carolOperator = addressToBech32(carol.address, "val");
    for (const [args, operator] of [
      [["delegations", "alice"], valoper],
      [["delegations-to", "carol"], carolOperator],
      [["delegator-validators", "carol"], carolOperator],
    ] as const) {
      await h.run("query", "staking", ...args);
      assert.ok(JSON.stringify(h.printed.pop()).includes(`"${operator}"`), args.join(" "));
    }
    await h.run("query", "staking", "pool");
    assert.deepEqual(h.printed.pop(), { pool: { not_bonded_tokens: "0", bonded_tokens: "15000000" } });
  });

  test("bad input is refused with a message saying what was expected", async () => {
    const h = await harness();
    await assert.rejects(
      h.run("--from", "val1", "tx", "gov", "vote", "1", "maybe"),
      /'maybe' is not a valid vote option/,
    );
    await assert.rejects(h.run("--from", "val1", "tx", "gov", "vote", "x", "yes"), /proposal-id x not a valid uint/);
    // Past uint64 is the user's mistake too (upstream's ParseUint), not the encoder's error with a stack.
    const tooBig = "18446744073709551616";
    await assert.rejects(
      h.run("query", "gov", "proposal", tooBig),
      (err) =>
        err instanceof CliError &&
        err.message === `proposal-id ${tooBig} not a valid uint, please input a valid proposal-id`,
    );
    // staking's page flags and historical-info height the same (they gave BigInt's SyntaxError or the encoder's stack).
    for (const [args, pattern] of [
      [["validators", "--limit", "@@"], /^invalid --limit "@@": expected a non-negative whole number$/],
      [["validators", "--offset", "-1"], /^invalid --offset "-1": expected a non-negative whole number$/],
      [["validators", "--limit", tooBig], /^invalid --limit "18446744073709551616": it does not fit an unsigned/],
      [["historical-info", "9223372036854775808"], /^invalid height "9223372036854775808": it does not fit a signed/],
    ] as const) {
      await assert.rejects(
        h.run("query", "staking", ...args),
        (err) => err instanceof CliError && pattern.test(err.message),
        args.join(" "),
      );
    }
    await assert.rejects(
      h.run("query", "gov", "votes", "1", "--limit", tooBig),
      (err) =>
        err instanceof CliError && /^invalid --limit "18446744073709551616": expected a whole number/.test(err.message),
    );
    await assert.rejects(h.run("--from", "val1", "tx", "gov", "deposit", "1", "lots"), /invalid deposit "lots"/);
    await assert.rejects(
      h.run("query", "gov", "proposals", "--status", "open"),
      /'open' is not a valid proposal status/,
    );
    await assert.rejects(
      h.run("--from", "alice", "tx", "staking", "delegate", alice.bech32, "1stake"),
      /invalid validator address/,
    );
    const file = join(dir, "bad-proposal.json");
    await writeFile(file, JSON.stringify({ title: "t", summary: "s", deposit: "10stake", extra: 1 }));
    await assert.rejects(h.run("--from", "alice", "tx", "gov", "submit-proposal", file), /unknown field "extra"/);
    await assert.rejects(
      h.run("--from", "alice", "tx", "gov", "submit-proposal", join(dir, "missing.json")),
      /cannot read proposal file/,
    );
    assert.throws(() => parseWeightedOptions("yes=0.5,no"), /expected <option>=<weight>/);
    assert.throws(() => parseWeightedOptions("yes=0.,no=1"), /invalid weight "0\."/);
    assert.throws(() => parseWeightedOptions("yes= 0.5,no=0.5"), /invalid weight " 0\.5"/);
    assert.deepEqual(parseWeightedOptions("yes=0.5,no=0.5"), [
      { option: 1, weight: "0.500000000000000000" },
      { option: 3, weight: "0.500000000000000000" },
    ]);
  });
});

test("a software-upgrade plan without time in a proposal file gets the zero time, as upstream's CLI sends it", () => {
  const registry = buildTypeRegistry([file_chain_upgrade_v1beta1_tx]);
  const file = (plan: Record<string, unknown>) =>
    JSON.stringify({
      messages: [{ "@type": "/chain.upgrade.v1beta1.MsgSoftwareUpgrade", authority: GOV, plan }],
      metadata: "",
      deposit: "10000000stake",
      title: "Upgrade",
      summary: "to v2",
    });
  const planOf = (text: string) =>
    anyUnpack(parseProposalJson(text, registry).messages[0], registry) as MsgSoftwareUpgrade | undefined;
  for (const plan of [
    { name: "v2", height: "130", info: "" },
    { name: "v2", height: "130", info: "", time: null },
    { name: "v2", height: "130", info: "", time: "0001-01-01T00:00:00Z" },
  ]) {
    const time = planOf(file(plan))?.plan?.time;
    assert.deepEqual([time?.seconds, time?.nanos], [-62135596800n, 0], JSON.stringify(plan));
  }
  // A time that is not zero is kept as written (the upgrade module refuses it with upstream's text).
  const later = planOf(file({ name: "v2", height: "130", info: "", time: "2030-01-01T00:00:00Z" }))?.plan?.time;
  assert.equal(later?.seconds, 1893456000n);
});
