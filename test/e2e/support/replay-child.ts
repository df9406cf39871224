// Child process for test/e2e/replay-kill.test.ts: replays <source home> into <new home> with the reference
// chain's release line (as `chaind replay` does, state commits unsynced) and prints each replayed height as one
// JSON line, so the parent can SIGKILL it in the middle of the replay.
import { referenceChain } from "../../../chain/app.ts";
import { v2 } from "../../../chain/releases.ts";
import { homePaths } from "../../../src/config/home.ts";
import { loadEngineGenesis } from "../../../src/engine/genesis.ts";
import { createNodeLogger } from "../../../src/node/logger.ts";
import { openChainSwitchingApp } from "../../../src/replay/chain-line.ts";
import { replayHome } from "../../../src/replay/replay-home.ts";

const [sourceHome, home] = process.argv.slice(2);
if (sourceHome === undefined || home === undefined) {
  process.stderr.write("usage: replay-child.ts <source home> <new home>\n");
  process.exit(2);
}
const { chainId } = await loadEngineGenesis(homePaths(sourceHome).genesis);
const logger = createNodeLogger({ level: "silent" });
const report = await replayHome({
  sourceHome,
  home,
  openApp: (target, store) =>
    openChainSwitchingApp({
      chain: referenceChain,
      home: target,
      chainId,
      logger,
      release: v2,
      syncCommits: store.syncCommits,
    }),
  onProgress: (p) => process.stdout.write(`${JSON.stringify({ height: p.height.toString() })}\n`),
});
process.stdout.write(`${JSON.stringify({ done: report.toHeight.toString() })}\n`);
process.exit(0);
