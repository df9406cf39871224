// `--yes=true`, `--dry-run=false`: upstream's CLI (cobra) lets a boolean flag carry a value, and scripts written for
// it do; commander knows a flag without a value only bare and calls `--yes=true` an unknown option. Before parsing,
// a boolean flag's spelled value is turned into what commander reads: true → the bare flag, false → nothing (every
// boolean flag of chaind is off unless given; `--no-validate` is a flag of its own, as in cobra). Which flags are
// boolean is read from the command that runs and its parents, so a valued flag of the same name elsewhere is untouched.
import type { Command, Option } from "commander";
import { CliError } from "../client/cli/errors.ts";

/** strconv.ParseBool's spellings, which cobra accepts. */
const TRUE = new Set(["1", "t", "T", "TRUE", "true", "True"]);
const FALSE = new Set(["0", "f", "F", "FALSE", "false", "False"]);

/**
 * `args` with every `--flag=<bool>` of a boolean flag of the command they run rewritten for commander; anything
 * else (positional arguments, valued flags, everything after `--`) is kept as it is.
 * @example spellBooleanValues(program, ["tx", "bank", "send", "a", "b", "1stake", "--yes=true"]) // [..., "--yes"]
 */
export function spellBooleanValues(root: Command, args: readonly string[]): string[] {
  const out: string[] = [];
  let command = root;
  const options: Option[] = [...root.options];
  for (let i = 0; i < args.length; i++) {
    const token = args[i] as string;
    if (token === "--") {
      out.push(...args.slice(i));
      break;
    }
    if (!token.startsWith("-") || token === "-") {
      const sub = command.commands.find((c) => c.name() === token || c.aliases().includes(token));
      if (sub !== undefined) {
        command = sub;
        options.push(...sub.options);
      }
      out.push(token);
      continue;
    }
    const [flag, value] = splitAtEquals(token);
    const option = options.findLast((o) => o.long === flag || o.short === flag);
    if (option === undefined || value === undefined) {
      out.push(token);
      // A valued flag's value is the next token: not a command name, and not to be rewritten.
      if (option !== undefined && value === undefined && takesValue(option) && i + 1 < args.length) {
        out.push(args[++i] as string);
      }
      continue;
    }
    if (takesValue(option)) {
      out.push(token);
      continue;
    }
    if (TRUE.has(value)) out.push(flag);
    else if (!FALSE.has(value)) {
      throw new CliError(`invalid value "${value}" for ${flag}: expected true or false (or the flag alone)`);
    }
  }
  return out;
}

function splitAtEquals(token: string): [string, string | undefined] {
  const at = token.indexOf("=");
  return at < 0 ? [token, undefined] : [token.slice(0, at), token.slice(at + 1)];
}

function takesValue(option: Option): boolean {
  return option.required || option.optional;
}
