// The query subcommands generated from a Query service descriptor: names, arguments, flags and help come from the
// descriptor (or the module's spec), a method that needs a hand-written command is refused, and a bad argument is
// one clear error.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Command } from "commander";
import { Query as AuthQuery } from "../../gen/chain/auth/v1beta1/query_pb.js";
import { Query as GovQuery } from "../../gen/chain/gov/v1/query_pb.js";
import { Query as UpgradeQuery } from "../../gen/chain/upgrade/v1beta1/query_pb.js";
import { CliError } from "./errors.ts";
import { generatedMethod, kebabCase, queryMethodCommand, queryServiceCommands } from "./query-commands.ts";
import { ClientSession } from "./session.ts";

const sink = { write: () => true };
const session = new ClientSession({ stdout: sink, stderr: sink });
const optionNames = (command: Command) => command.options.map((option) => option.long);

describe("queryServiceCommands", () => {
  it("without specs: one command per generatable method, named after it, its scalar fields as arguments", () => {
    const auth = queryServiceCommands(new Command("auth"), session, AuthQuery);
    const names = auth.commands.map((c) => c.name());
    assert.ok(names.includes("account") && names.includes("module-account-by-name") && names.includes("params"));
    // AddressBytesToString takes bytes: not generated.
    assert.ok(!names.includes("address-bytes-to-string"));
    const account = auth.commands.find((c) => c.name() === "account") as Command;
    assert.deepEqual(
      account.registeredArguments.map((a) => a.name()),
      ["address"],
    );
    assert.equal(account.description(), "Query Account");
    assert.ok(optionNames(account).includes("--node") && optionNames(account).includes("--height"));
    const accounts = auth.commands.find((c) => c.name() === "accounts") as Command;
    assert.ok(optionNames(accounts).includes("--page-key") && optionNames(accounts).includes("--count-total"));
  });

  it("with specs: exactly the listed methods, in order, with the given names, aliases and help", () => {
    const auth = queryServiceCommands(new Command("auth"), session, AuthQuery, {
      Params: { description: "params help" },
      ModuleAccountByName: { name: "module-account", aliases: ["m"], args: { name: "the module" } },
    });
    assert.deepEqual(
      auth.commands.map((c) => c.name()),
      ["params", "module-account"],
    );
    const module = auth.commands[1] as Command;
    assert.deepEqual(module.aliases(), ["m"]);
    assert.equal(module.registeredArguments[0]?.description, "the module");
    assert.equal(auth.commands[0]?.description(), "params help");
  });

  it("refuses an unknown method and one whose request needs a hand-written command", () => {
    assert.throws(() => queryServiceCommands(new Command("x"), session, AuthQuery, { Nope: {} }), /has no method Nope/);
    assert.equal(generatedMethod(AuthQuery.method.addressBytesToString), false);
    assert.throws(
      () => queryServiceCommands(new Command("x"), session, AuthQuery, { AddressBytesToString: {} }),
      /needs a hand-written command/,
    );
  });

  it("reads integer arguments as the field's type and refuses a bad one before any query", async () => {
    const proposal = queryMethodCommand(session, GovQuery.method.proposal, {});
    assert.deepEqual(
      proposal.registeredArguments.map((a) => a.name()),
      ["proposal_id"],
    );
    proposal.exitOverride();
    await assert.rejects(
      proposal.parseAsync(["abc"], { from: "user" }),
      (err: unknown) =>
        err instanceof CliError && err.message === 'invalid proposal_id "abc": expected a non-negative whole number',
    );
  });

  it("names commands in kebab case", () => {
    assert.equal(kebabCase("ModuleAccountByName"), "module-account-by-name");
    assert.equal(kebabCase("Params"), "params");
    assert.equal(queryMethodCommand(session, UpgradeQuery.method.authority, {}).name(), "authority");
  });
});
