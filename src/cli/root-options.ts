// The shape of `chaind`'s root options, on their own so the lazy loaders can find a command's name in
// argv without importing the root (src/cli/root.ts defines the options themselves).
import type { RootOptionShape } from "./lazy-command.ts";

/** The root options that take a value, for finding the command name in argv before parsing. */
export const ROOT_OPTION_SHAPE: RootOptionShape = {
  valueOptions: ["--home", "--log_level", "--log_format", "-o", "--output"],
};
