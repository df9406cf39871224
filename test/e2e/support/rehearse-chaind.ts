// Entry point of the rehearsal tests' chain (rehearse-chain.ts): the whole command tree serving it.
import { runCli } from "../../../src/cli/index.ts";
import { rehearseChain } from "./rehearse-chain.ts";

await runCli(rehearseChain);
