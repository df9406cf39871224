// Plain query subcommands generated from a module's Query service descriptor, as the REST routes are
// (src/server/service-routes.ts): one subcommand per unary method whose request is scalar fields (positional
// arguments, in declaration order) and at most a `pagination` PageRequest (the paging flags). It prints the
// response as every query does. A module hand-writes only the commands whose output or flags differ.
import type { DescField, DescMethod, DescService } from "@bufbuild/protobuf";
import { ScalarType } from "@bufbuild/protobuf";
import { Command } from "commander";
import { CliError } from "./errors.ts";
import { addQueryFlags, parseUint64 } from "./flags.ts";
import { addPagingFlags, readPageRequest } from "./paging.ts";
import type { ClientSession } from "./session.ts";

/** How one generated subcommand reads; every part has a default derived from the method. */
export interface QueryCommandSpec {
  /** The subcommand's name; default: the method's name in kebab case (`ModuleAccounts` → `module-accounts`). */
  name?: string;
  /** Other names of the subcommand. */
  aliases?: readonly string[];
  /** The help line; default: `Query <Method>`. */
  description?: string;
  /** Help text of the positional arguments, by the request field's proto name; default: the field's name. */
  args?: Readonly<Record<string, string>>;
}

/**
 * Adds to `parent` a subcommand for each method of `service` named in `specs` (keyed by method name, e.g. `Params`),
 * in that order; without `specs`, one for every method {@link generatedMethod} accepts, in the service's order, with
 * the default names and help. A listed method that cannot be generated is a bug (write that command by hand).
 *
 * @example queryServiceCommands(new Command("auth"), session, AuthQuery, { Params: { description: "Query …" } });
 */
export function queryServiceCommands(
  parent: Command,
  session: ClientSession,
  service: DescService,
  specs?: Readonly<Record<string, QueryCommandSpec>>,
): Command {
  if (specs === undefined) {
    for (const method of service.methods.filter(generatedMethod))
      parent.addCommand(queryMethodCommand(session, method, {}));
    return parent;
  }
  for (const [name, spec] of Object.entries(specs)) {
    const method = service.methods.find((m) => m.name === name);
    if (method === undefined) throw new Error(`${service.typeName} has no method ${name}`);
    if (!generatedMethod(method)) throw new Error(`${service.typeName}.${name} needs a hand-written command`);
    parent.addCommand(queryMethodCommand(session, method, spec));
  }
  return parent;
}

/** Whether a command can be generated for `method`: unary, request of scalar fields and at most a `pagination`. */
export function generatedMethod(method: DescMethod): boolean {
  return method.methodKind === "unary" && method.input.fields.every((field) => isPaging(field) || isScalar(field));
}

/** The generated subcommand of one Query method. */
export function queryMethodCommand(session: ClientSession, method: DescMethod, spec: QueryCommandSpec): Command {
  const command = new Command(spec.name ?? kebabCase(method.name)).description(
    spec.description ?? `Query ${method.name}`,
  );
  if (spec.aliases !== undefined) command.aliases([...spec.aliases]);
  const scalars = method.input.fields.filter(isScalar);
  for (const field of scalars) command.argument(`<${field.name}>`, spec.args?.[field.name] ?? field.name);
  const paged = method.input.fields.some(isPaging);
  addQueryFlags(command);
  if (paged) addPagingFlags(command);
  return command.action(async (...args: unknown[]) => {
    const invoked = args[args.length - 1] as Command;
    const options = args[args.length - 2] as Record<string, unknown>;
    const request: Record<string, unknown> = {};
    scalars.forEach((field, at) => {
      request[field.localName] = scalarArgument(field, String(args[at]));
    });
    if (paged) request.pagination = readPageRequest(options);
    const ctx = session.open(invoked.optsWithGlobals());
    for (const field of scalars) {
      const kind = addressKindOf(field);
      if (kind !== undefined)
        request[field.localName] = await ctx.addressArgument(String(request[field.localName]), kind);
    }
    ctx.printMessage(method.output, await ctx.query(method, request as never));
  });
}

function isPaging(field: DescField): boolean {
  return field.name === "pagination" && field.fieldKind === "message";
}

function isScalar(field: DescField): boolean {
  return field.fieldKind === "scalar" && field.scalar !== ScalarType.BYTES;
}

/**
 * Whether a string field holds an address, and of which kind (upstream marks these with a cosmos_proto scalar our
 * protos do not carry, so the field's name decides): `address`, `*_address`, `*_addr`, `voter`, `depositor`,
 * `proposer`; `validator_*` ones are operator addresses.
 */
export function addressKindOf(field: DescField): "acc" | "val" | undefined {
  if (field.fieldKind !== "scalar" || field.scalar !== ScalarType.STRING) return undefined;
  const name = field.name;
  if (!/^(address|voter|depositor|proposer)$|_(address|addr)$/.test(name)) return undefined;
  return name.startsWith("validator_") ? "val" : "acc";
}

/** A positional argument as the field's type; a bad one names the argument and what was expected. */
function scalarArgument(field: DescField, text: string): unknown {
  if (field.fieldKind !== "scalar") throw new Error(`${field.name} is not a scalar field`);
  switch (field.scalar) {
    case ScalarType.STRING:
      return text;
    case ScalarType.BOOL:
      if (text !== "true" && text !== "false")
        throw new CliError(`invalid ${field.name} "${text}": expected true or false`);
      return text === "true";
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return parseUint64(text, field.name, 64);
    case ScalarType.UINT32:
    case ScalarType.FIXED32: {
      const value = parseUint64(text, field.name, 64);
      if (value >= 1n << 32n) throw new CliError(`invalid ${field.name} "${text}": it does not fit 32 bits`);
      return Number(value);
    }
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      if (!Number.isFinite(Number(text)) || text.trim() === "") {
        throw new CliError(`invalid ${field.name} "${text}": expected a number`);
      }
      return Number(text);
    default: {
      if (!/^-?\d+$/.test(text)) throw new CliError(`invalid ${field.name} "${text}": expected an integer`);
      const value = BigInt(text);
      return field.scalar === ScalarType.INT64 ||
        field.scalar === ScalarType.SINT64 ||
        field.scalar === ScalarType.SFIXED64
        ? value
        : Number(value);
    }
  }
}

/** `ModuleAccounts` → `module-accounts`. */
export function kebabCase(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase();
}
