// The module manager: hook orders, genesis, the version map and migrations (docs/CONTRACT.md §2.7).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JsonValue } from "@bufbuild/protobuf";
import pino from "pino";
import { openMultiStore } from "../store/index.ts";
import { type Context, newContext } from "./context.ts";
import { abciInfo } from "./errors.ts";
import type { AppModule, ValidatorUpdate } from "./module.ts";
import { GenesisError, ModuleManager, ModuleManagerError } from "./module-manager.ts";

const logger = pino({ level: "silent" });

interface Probe {
  module: AppModule;
  calls: string[];
}

// A module that records every call into a shared log and stores its genesis "value" in its store.
function probe(
  name: string,
  log: string[],
  options: {
    version?: bigint;
    hooks?: ("preBlock" | "beginBlock" | "endBlock")[];
    validators?: ValidatorUpdate[];
  } = {},
): Probe {
  const calls: string[] = [];
  const record = (what: string) => {
    calls.push(what);
    log.push(`${name}.${what}`);
  };
  const module: AppModule = {
    name,
    consensusVersion: options.version ?? 1n,
    storeKeys: [name],
    defaultGenesis: () => ({ value: `${name}-default` }),
    validateGenesis: (genesis: JsonValue) => {
      if ((genesis as { value?: unknown }).value === "bad") throw new Error("value must not be bad");
    },
    async initGenesis(ctx: Context, genesis: JsonValue) {
      record("initGenesis");
      ctx
        .kvStore(name)
        .set(new Uint8Array([1]), new TextEncoder().encode(String((genesis as { value: string }).value)));
      return options.validators;
    },
    async exportGenesis(ctx: Context) {
      const value = await ctx.kvStore(name).get(new Uint8Array([1]));
      return { value: value === undefined ? null : new TextDecoder().decode(value) };
    },
    registerServices: () => {},
  };
  for (const hook of options.hooks ?? []) {
    if (hook === "endBlock") {
      module.endBlock = async () => {
        record(hook);
        return undefined;
      };
    } else {
      module[hook] = async () => record(hook);
    }
  }
  return { module, calls };
}

async function context(names: string[]): Promise<Context> {
  const store = await openMultiStore({ backend: "memory", storeNames: names });
  return newContext({ multiStore: store.branch(), logger });
}

describe("module manager", () => {
  it("runs hooks in registration order by default and in the declared order when set", async () => {
    const log: string[] = [];
    const a = probe("a", log, { hooks: ["preBlock", "beginBlock", "endBlock"] });
    const b = probe("b", log, { hooks: ["beginBlock", "endBlock"] });
    const c = probe("c", log, { hooks: ["endBlock"] });
    const mm = new ModuleManager([a.module, b.module, c.module]);
    const ctx = await context(["a", "b", "c"]);
    await mm.preBlock(ctx);
    await mm.beginBlock(ctx);
    await mm.endBlock(ctx);
    assert.deepEqual(log, ["a.preBlock", "a.beginBlock", "b.beginBlock", "a.endBlock", "b.endBlock", "c.endBlock"]);

    log.length = 0;
    mm.setOrderEndBlockers("c", "a", "b");
    mm.setOrderBeginBlockers("b", "a");
    await mm.beginBlock(ctx);
    await mm.endBlock(ctx);
    assert.deepEqual(log, ["b.beginBlock", "a.beginBlock", "c.endBlock", "a.endBlock", "b.endBlock"]);
    assert.deepEqual(mm.orders().endBlock, ["c", "a", "b"]);
  });

  it("refuses orders that forget a module with the hook, name an unknown module or repeat one", () => {
    const log: string[] = [];
    const mm = new ModuleManager([
      probe("a", log, { hooks: ["endBlock"] }).module,
      probe("b", log, { hooks: ["endBlock"] }).module,
      probe("c", log).module,
    ]);
    assert.throws(() => mm.setOrderEndBlockers("a"), {
      name: "ModuleManagerError",
      message: "all modules must be defined when setting SetOrderEndBlockers, missing: [b]",
    });
    assert.throws(() => mm.setOrderEndBlockers("a", "b", "x"), /SetOrderEndBlockers: unknown module "x"/);
    assert.throws(() => mm.setOrderEndBlockers("a", "b", "a"), /listed twice/);
    // A module without the hook may be left out.
    mm.setOrderEndBlockers("b", "a");
    assert.throws(() => mm.setOrderInitGenesis("a", "b"), /missing: \[c\]/);
    assert.throws(() => new ModuleManager([probe("a", log).module, probe("a", log).module]), ModuleManagerError);
  });

  it("inits genesis in order with defaults for absent entries, exports it, and validates naming the module", async () => {
    const log: string[] = [];
    const mm = new ModuleManager([probe("a", log).module, probe("b", log).module]);
    mm.setOrderInitGenesis("b", "a");
    const ctx = await context(["a", "b"]);
    await mm.initGenesis(ctx, { a: { value: "given" } });
    assert.deepEqual(log, ["b.initGenesis", "a.initGenesis"]);
    assert.deepEqual(await mm.exportGenesis(ctx), { a: { value: "given" }, b: { value: "b-default" } });
    assert.throws(
      () => mm.validateGenesis({ b: { value: "bad" } }),
      (err: Error) => {
        assert.ok(err instanceof GenesisError);
        assert.equal(err.message, 'invalid genesis state for module "b": value must not be bad');
        return true;
      },
    );
    assert.throws(() => mm.validateGenesis({ zzz: {} }), /invalid genesis state for module "zzz": no such module/);
  });

  it("lets only one module return validators", async () => {
    const log: string[] = [];
    const update: ValidatorUpdate = { pubKey: { type: "ed25519", key: new Uint8Array(32) }, power: 10n };
    const mm = new ModuleManager([
      probe("a", log, { validators: [update] }).module,
      probe("b", log, { validators: [update] }).module,
    ]);
    await assert.rejects(
      mm.initGenesis(await context(["a", "b"]), {}),
      /validator InitGenesis updates already set by module a/,
    );
  });

  it("reports the version map", () => {
    const log: string[] = [];
    const mm = new ModuleManager([probe("b", log, { version: 3n }).module, probe("a", log).module]);
    assert.deepEqual(
      [...mm.getVersionMap()],
      [
        ["a", 1n],
        ["b", 3n],
      ],
    );
  });
});

describe("migrations", () => {
  it("registers steps from version 1 only, once each", () => {
    const log: string[] = [];
    const mm = new ModuleManager([probe("bank", log, { version: 2n }).module]);
    assert.throws(
      () => mm.registerMigration("bank", 0, async () => {}),
      (err: Error) => {
        assert.equal(err.message, "module migration versions should start at 1: invalid version");
        assert.equal(abciInfo(err).code, 27);
        return true;
      },
    );
    mm.registerMigration("bank", 1, async () => {});
    assert.throws(() => mm.registerMigration("bank", 1n, async () => {}), {
      message: "another migration for module bank and version 1 already exists: internal logic error",
    });
    assert.throws(() => mm.registerMigration("nope", 1, async () => {}), /unknown module "nope"/);
  });

  it("runs each step from the stored version, initialises new modules, returns the new map", async () => {
    const log: string[] = [];
    const bank = probe("bank", log, { version: 3n });
    const auth = probe("auth", log, { version: 2n });
    const fresh = probe("fresh", log, { version: 5n });
    const gov = probe("gov", log, { version: 1n });
    const mm = new ModuleManager([auth.module, bank.module, gov.module, fresh.module]);
    mm.registerMigration("bank", 1, async () => void log.push("bank 1→2"));
    mm.registerMigration("bank", 2, async () => void log.push("bank 2→3"));
    mm.registerMigration("auth", 1, async () => void log.push("auth 1→2"));
    const ctx = await context(["auth", "bank", "fresh", "gov"]);
    const result = await mm.runMigrations(
      ctx,
      new Map([
        ["auth", 1n],
        ["bank", 1n],
        ["gov", 1n],
      ]),
    );
    // Alphabetical, auth last; the new module gets its default genesis and no migration.
    assert.deepEqual(log, ["bank 1→2", "bank 2→3", "fresh.initGenesis", "auth 1→2"]);
    assert.deepEqual(
      [...result],
      [
        ["auth", 2n],
        ["bank", 3n],
        ["fresh", 5n],
        ["gov", 1n],
      ],
    );
    assert.deepEqual(await fresh.module.exportGenesis(ctx), { value: "fresh-default" });
  });

  it("fails on a missing step with upstream's text and code", async () => {
    const log: string[] = [];
    const mm = new ModuleManager([probe("bank", log, { version: 3n }).module]);
    mm.registerMigration("bank", 1, async () => {});
    const ctx = await context(["bank"]);
    await assert.rejects(mm.runMigrations(ctx, new Map([["bank", 1n]])), (err: Error) => {
      assert.equal(err.message, "no migration found for module bank from version 2 to version 3: not found");
      assert.deepEqual(abciInfo(err), { codespace: "sdk", code: 38, log: err.message });
      return true;
    });
  });

  it("uses the app's migration order, which must list every module", async () => {
    const log: string[] = [];
    const mm = new ModuleManager([probe("a", log, { version: 2n }).module, probe("b", log, { version: 2n }).module]);
    mm.registerMigration("a", 1, async () => void log.push("a"));
    mm.registerMigration("b", 1, async () => void log.push("b"));
    assert.throws(() => mm.setOrderMigrations("b"), /missing: \[a\]/);
    mm.setOrderMigrations("b", "a");
    await mm.runMigrations(
      await context(["a", "b"]),
      new Map([
        ["a", 1n],
        ["b", 1n],
      ]),
    );
    assert.deepEqual(log, ["b", "a"]);
  });
});
