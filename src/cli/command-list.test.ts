// The light descriptions of src/cli/command-list.ts must say what the loaded commands say (a stale
// description would show in `chaind --help` of a lazily loaded tree), and the runner must find the
// command in argv the way commander will.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Command } from "commander";
import { ClientSession } from "../client/cli/session.ts";
import { CHAIND_COMMANDS } from "./command-list.ts";
import { queryCommand, querySpecs, servedModuleClis, txSpecs } from "./commands/client-commands.ts";
import { addLazyCommands, type CommandSpec, targetCommand } from "./lazy-command.ts";
import { ROOT_OPTION_SHAPE } from "./root.ts";

const sink = { write: () => true };

describe("command list", () => {
  it("describes each command as its implementation does", async () => {
    for (const spec of CHAIND_COMMANDS) {
      const command = await spec.load({ stdout: sink, stderr: sink }, []);
      assert.equal(command.name(), spec.name);
      assert.deepEqual(command.aliases(), [...(spec.aliases ?? [])], spec.name);
      assert.equal(command.description(), spec.description, spec.name);
    }
  });
});

describe("query and tx subcommand lists", () => {
  it("describe each subcommand as its implementation does", async () => {
    const io = { stdout: sink, stderr: sink };
    const session = new ClientSession(io, servedModuleClis());
    const specs = [...querySpecs(session, io), ...txSpecs(session, io)];
    // Every standard module with a CLI is listed (auth has no tx half).
    assert.deepEqual(
      specs.map((spec) => spec.name),
      [
        ...["auth", "bank", "gov", "staking", "upgrade", "tx", "txs", "wait-tx", "block", "blocks"],
        ...["bank", "gov", "staking", "upgrade", "sign", "broadcast", "encode", "decode"],
      ],
    );
    for (const spec of specs) {
      const command = await spec.load(io, []);
      assert.equal(command.name(), spec.name);
      assert.equal(command.description(), spec.description, spec.name);
    }
  });

  it("load only the subcommand that runs", async () => {
    const io = { stdout: sink, stderr: sink };
    const query = await queryCommand(io, ["bank", "balances", "chain1x", "--node", "tcp://127.0.0.1:1"]);
    const bank = query.commands.find((c) => c.name() === "bank");
    const gov = query.commands.find((c) => c.name() === "gov");
    assert.ok(bank !== undefined && bank.commands.length > 0, "bank is loaded");
    assert.ok(gov !== undefined && gov.commands.length === 0, "gov is a stub");
    const all = await queryCommand(io);
    assert.ok((all.commands.find((c) => c.name() === "gov")?.commands.length ?? 0) > 0, "gov is loaded with no args");
  });
});

describe("targetCommand", () => {
  const target = (args: string[]) => targetCommand(args, ROOT_OPTION_SHAPE).name;

  it("skips root options and their values", () => {
    assert.equal(target(["version"]), "version");
    assert.equal(target(["--home", "/h", "-o", "json", "q", "bank", "balances"]), "q");
    assert.equal(target(["--home=/h", "--log_level", "debug", "start"]), "start");
    assert.equal(target(["--output", "json", "tx", "bank"]), "tx");
  });

  it("gives what follows the name, for the command's own subcommands", () => {
    assert.deepEqual(targetCommand(["-o", "json", "q", "bank", "balances"], ROOT_OPTION_SHAPE), {
      name: "q",
      rest: ["bank", "balances"],
    });
    assert.deepEqual(targetCommand(["help", "tx", "bank"], ROOT_OPTION_SHAPE), { name: "tx", rest: ["bank"] });
  });

  it("names help's argument, and nothing for the root's help", () => {
    assert.equal(target(["help", "tx"]), "tx");
    assert.equal(target(["help"]), undefined);
    assert.equal(target(["--help"]), undefined);
    assert.equal(target([]), undefined);
  });
});

describe("addLazyCommands", () => {
  function specs(loaded: string[]): CommandSpec[] {
    return ["alpha", "beta"].map((name) => ({
      name,
      aliases: [`${name[0]}`],
      description: `the ${name} command`,
      load: async () => {
        loaded.push(name);
        return new Command(name).alias(`${name[0]}`).description(`the ${name} command`).option("--flag");
      },
    }));
  }

  it("loads only the command that runs, by name or alias", async () => {
    for (const args of [["beta", "--flag"], ["b"], ["help", "beta"]]) {
      const loaded: string[] = [];
      const root = new Command("root");
      await addLazyCommands(root, specs(loaded), args, { stdout: sink, stderr: sink }, { valueOptions: [] });
      assert.deepEqual(loaded, ["beta"], args.join(" "));
      assert.deepEqual(
        root.commands.map((c) => [c.name(), c.description()]),
        [
          ["alpha", "the alpha command"],
          ["beta", "the beta command"],
        ],
      );
    }
  });

  it("loads every command for the root's help and for an unknown command", async () => {
    for (const args of [[], ["--help"], ["gamma"]]) {
      const loaded: string[] = [];
      await addLazyCommands(
        new Command("root"),
        specs(loaded),
        args,
        { stdout: sink, stderr: sink },
        {
          valueOptions: [],
        },
      );
      assert.deepEqual(loaded, ["alpha", "beta"], args.join(" "));
    }
  });
});

describe("a chain's own module CLI", () => {
  it("appears in query and tx from the chain's definition, loaded only when its command runs", async () => {
    const { STANDARD_CHAIN, defineChain, useChain } = await import("../runtime/index.ts");
    const loaded: string[] = [];
    const notes = {
      name: "notes",
      query: "Querying commands for the notes module",
      tx: "Notes transaction subcommands",
      types: async () => [],
      load: async () => {
        loaded.push("notes");
        return {
          queryCommand: () =>
            new Command("notes").description("Querying commands for the notes module").addCommand(new Command("all")),
          txCommand: () =>
            new Command("notes").description("Notes transaction subcommands").addCommand(new Command("add")),
        };
      },
    };
    useChain(defineChain({ name: "noted", releases: [{ name: "v1", version: "1.0.0" }], moduleClis: [notes] }));
    try {
      const io = { stdout: sink, stderr: sink };
      const lazy = await queryCommand(io, ["bank", "params"]);
      assert.ok(
        lazy.commands.some((c) => c.name() === "notes" && c.commands.length === 0),
        "notes is a stub",
      );
      assert.deepEqual(loaded, []);
      const query = await queryCommand(io, ["notes", "all"]);
      assert.deepEqual(
        query.commands.find((c) => c.name() === "notes")?.commands.map((c) => c.name()),
        ["all"],
      );
      assert.deepEqual(loaded, ["notes"]);
    } finally {
      useChain(STANDARD_CHAIN);
    }
  });
});
