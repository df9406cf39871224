// Entry point of the big-state bench's chain (chain.ts): the whole command tree serving it. Node's on-disk compile
// cache goes on before anything else loads, as in chain/cmd/chaind.ts, so a restart is timed as `chaind` starts.
import { enableCompileCache } from "node:module";

enableCompileCache?.();
const { runCli } = await import("../../src/cli/index.ts");
const { bigStateChain } = await import("./chain.ts");
await runCli(bigStateChain);
