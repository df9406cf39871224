// Entry point of the big-state bench's chain (chain.ts): the whole command tree serving it.
import { runCli } from "../../src/cli/index.ts";
import { bigStateChain } from "./chain.ts";

await runCli(bigStateChain);
