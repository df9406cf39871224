// One CLI invocation's client plumbing. Every client command's action runs inside `session.run`: the
// contexts it opens are closed afterwards (a gRPC channel left open would keep the process alive).
// Errors pass through untouched: their class says whether the user sees one line or a stack
// (src/cli/report-error.ts).
import type { Command } from "commander";
import type { ModuleCliRef } from "../../app/module-cli.ts";
import { ClientContext, type ClientIo } from "./context.ts";
import { readQueryFlags } from "./flags.ts";
import { loadClientModules } from "./lazy-modules.ts";

/** Opens client contexts for the running command and closes them when its action ends. */
export class ClientSession {
  readonly io: ClientIo;
  /** The chain's module CLIs, whose types the registry holds. */
  readonly modules: readonly ModuleCliRef[];
  #open: ClientContext[] = [];
  #current: Command | undefined;
  #light = new WeakSet<Command>();

  constructor(io: ClientIo, modules: readonly ModuleCliRef[] = []) {
    this.io = io;
    this.modules = modules;
  }

  /** A context for the flags of a command (`command.optsWithGlobals()`). */
  open(options: Record<string, unknown>): ClientContext {
    const context = new ClientContext(readQueryFlags(options), this.io);
    this.#open.push(context);
    return context;
  }

  /** A context for the command whose action is running (for builders that ask without saying which). */
  openCurrent(): ClientContext {
    if (this.#current === undefined) throw new Error("no client command is running");
    return this.open(this.#current.optsWithGlobals());
  }

  /**
   * Marks `command` and every command under it light: their actions run without the type registry and
   * the keyring being loaded (src/client/cli/lazy-modules.ts). Only for commands that use no key and
   * print only messages holding no Any (a message with an Any still fails loudly, never prints wrong).
   */
  markLight(command: Command): Command {
    this.#light.add(command);
    for (const sub of command.commands) this.markLight(sub);
    return command;
  }

  /** Runs a command's action and closes the contexts it opened. */
  async run(command: Command, action: () => unknown): Promise<void> {
    this.#current = command;
    try {
      if (!this.#light.has(command)) await loadClientModules(this.modules);
      await action();
    } finally {
      this.#current = undefined;
      for (const context of this.#open.splice(0)) context.close();
    }
  }

  /**
   * Routes the action of every command under `root` through `run`. Commander has no public way to wrap an
   * action that someone else set, so this replaces its (long-stable) `_actionHandler`; a commander
   * release that renames it fails here, loudly, on the first command with an action.
   *
   * `defaultOutput` is the `-o` format these commands use when the user gave none: upstream prints tx
   * results (and `--generate-only` documents) as JSON by default and query results as text.
   */
  wrapActions(root: Command, defaultOutput?: "json"): Command {
    const visit = (command: Command) => {
      const internal = command as unknown as { _actionHandler: ((args: unknown[]) => unknown) | null };
      if (!("_actionHandler" in command)) throw new Error("commander no longer has _actionHandler: update session.ts");
      const original = internal._actionHandler;
      if (original !== null) {
        internal._actionHandler = (args: unknown[]) =>
          this.run(command, () => {
            if (defaultOutput !== undefined) applyDefaultOutput(command, defaultOutput);
            return original.call(command, args);
          });
      }
      for (const sub of command.commands) visit(sub);
    };
    visit(root);
    return root;
  }
}

/** Sets `-o` on the command that declares it (the root) to `format` unless the user gave `-o`. */
function applyDefaultOutput(command: Command, format: "json"): void {
  for (let at: Command | null = command; at !== null; at = at.parent) {
    if (at.options.some((option) => option.attributeName() === "output")) {
      if (at.getOptionValueSource("output") !== "cli" && at.getOptionValueSource("output") !== "env") {
        at.setOptionValueWithSource("output", format, "default");
      }
      return;
    }
  }
}
