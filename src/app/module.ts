// The module interface: what a module (auth, bank, staking, gov, upgrade, ...) gives the app.
// A module is a plain object; the app's module manager calls it in the order the app declares.
//
// Contract, in the order the app uses it:
//   name / storeKeys      → the app opens one store per key (the store key is usually the module name)
//   types                 → messages that may appear inside Any values (accounts, pubkeys, proposal content)
//   registerServices      → Msg service (tx messages, routed by type URL) and Query service (by gRPC path)
//   registerMigrations    → in-place store migrations from one consensus version to the next
//   default/validate/init/exportGenesis → the module's part of genesis `app_state` (proto JSON)
//   preBlock / beginBlock / endBlock    → per-block hooks, in the app's declared order
import type { DescFile, DescMessage, JsonValue, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import type { GenService, GenServiceMethods } from "@bufbuild/protobuf/codegenv2";
import type { Context } from "./context.ts";

/** Module name → consensus version (upstream's VersionMap). */
export type VersionMap = Map<string, bigint>;

/** A validator-set change for the consensus engine (power 0 removes the validator). */
export interface ValidatorUpdate {
  pubKey: { type: "ed25519" | "secp256k1"; key: Uint8Array };
  power: bigint;
}

/**
 * A transport-free handler of one RPC: gets the decoded request and the context, returns the
 * response (a plain init object or a message). gRPC, REST, ABCI Query, the CLI and the tx pipeline
 * all call the same function. Query handlers signal errors with `grpcError(...)` or registered errors.
 */
export type Handler<I extends DescMessage, O extends DescMessage> = (
  request: MessageShape<I>,
  ctx: Context,
) => Promise<MessageInitShape<O>>;

/** Handlers for every method of a generated service, keyed by the method's local name (`send`, `allBalances`). */
export type ServiceHandlers<S extends GenService<GenServiceMethods>> = {
  [K in keyof S["method"]]: Handler<S["method"][K]["input"], S["method"][K]["output"]>;
};

/** Where a module registers its services (given to `AppModule.registerServices`). */
export interface ServiceRegistrar {
  /**
   * Registers a Msg service: every method's input type becomes routable by its type URL
   * (`/chain.bank.v1beta1.MsgSend`), with signers from the `(chain.msg.v1.signer)` option.
   */
  registerMsgService<S extends GenService<GenServiceMethods>>(service: S, handlers: ServiceHandlers<S>): void;
  /**
   * Registers a Query service under its full method paths (`/chain.bank.v1beta1.Query/AllBalances`).
   * Methods left out answer Unimplemented.
   */
  registerQueryService<S extends GenService<GenServiceMethods>>(
    service: S,
    handlers: Partial<ServiceHandlers<S>>,
  ): void;
}

/** One in-place migration step of a module's store, from `fromVersion` to `fromVersion + 1`. */
export type MigrationHandler = (ctx: Context) => Promise<void>;

/** Where a module registers its migrations (given to `AppModule.registerMigrations`). */
export interface MigrationRegistrar {
  /** Registers the step from `fromVersion` (≥ 1) to `fromVersion + 1`; a duplicate is an error. */
  registerMigration(moduleName: string, fromVersion: bigint | number, handler: MigrationHandler): void;
}

/**
 * A property of a module's state that holds at every height (e.g. the bank's total supply equals the sum of its
 * balances). `check` reads the state through `ctx` and throws an Error saying what does not hold; it must not
 * write. `chaind upgrade rehearse` runs every module's invariants before and after the upgrade, reported by name.
 */
export interface ModuleInvariant {
  /** Short name, reported as `<module>/<name>`. */
  name: string;
  check(ctx: Context): Promise<void>;
}

/** The module interface. Optional members are simply left out by modules that have none. */
export interface AppModule {
  /** Unique module name (`bank`); also its genesis key and, by convention, its store key. */
  readonly name: string;
  /** The module's consensus version (≥ 1); bumped whenever its state layout changes. */
  readonly consensusVersion: bigint;
  /** The stores this module owns (names in the multistore). */
  readonly storeKeys: readonly string[];
  /** Proto files or messages whose types may appear inside Any values (the app's type registry). */
  readonly types?: readonly (DescFile | DescMessage)[];

  /** The module's default genesis state as proto JSON (`{}` for a module without genesis). */
  defaultGenesis(): JsonValue;
  /** Throws an Error saying what is wrong with `genesis`. Must not touch state. */
  validateGenesis(genesis: JsonValue): void;
  /** Writes `genesis` into state; may return the initial validator set (only one module may). */
  initGenesis(ctx: Context, genesis: JsonValue): Promise<ValidatorUpdate[] | undefined>;
  /** Reads the module's state back as genesis JSON. */
  exportGenesis(ctx: Context): Promise<JsonValue>;

  /** Registers the Msg and Query services. */
  registerServices(registrar: ServiceRegistrar): void;
  /** Registers the module's store migrations. */
  registerMigrations?(registrar: MigrationRegistrar): void;

  /** Before anything else in a block (the upgrade guard lives here); may throw HaltError. */
  preBlock?(ctx: Context): Promise<void>;
  /** At the start of a block, after every preBlock. */
  beginBlock?(ctx: Context): Promise<void>;
  /** After the block's transactions; may return validator-set updates (only one module may). */
  endBlock?(ctx: Context): Promise<ValidatorUpdate[] | undefined>;
  /** Properties of the module's state that hold at any height (see {@link ModuleInvariant}). */
  readonly invariants?: readonly ModuleInvariant[];
}
