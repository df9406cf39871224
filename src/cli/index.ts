// Public entry point of the CLI (`chaind/cli`): the runner a chain's binary calls with its chain definition.
export { runCli } from "./run-cli.ts";
