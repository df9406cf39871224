// Commands answered before the command tree is loaded: supervisors call them often and expect them at once.

/** Global flags that take a value, so their value is not mistaken for the command word. */
const VALUE_FLAGS = new Set(["--home", "--log_level", "--log_format", "-o", "--output", "--node", "-n"]);

/**
 * The first word of argv (after the program) that is not a flag or a flag's value: the command's name.
 * @example commandWord(["--home", "/h", "status"]) === "status"
 */
export function commandWord(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") return argv[i + 1];
    if (!arg.startsWith("-")) return arg;
    if (VALUE_FLAGS.has(arg)) i++;
  }
  return undefined;
}
